package tui

import "github.com/rewind-agent/rewind/views"

// Onboarding: with no model configured (Options.Setup), the workspace opens
// read-only with a screen saying which variables or config keys to set,
// where the config file is, and that `rewind demo` needs no key. Past
// sessions can still be browsed; prompts are refused with the same advice.

const setupPlaceholder = "no model configured: /status and the setup screen say what to set · /exit"

// noModelLabel is the status bar's mode on a session opened without a
// model while nobody writes it.
const noModelLabel = "READ-ONLY · no model"

// onUIShowSetup shows the setup screen (once the UI runs).
func (c *Controller) onUIShowSetup() {
	if c.opts.Setup == "" {
		return
	}
	c.input.SetPlaceholder(setupPlaceholder)
	c.showConfirm("Connect a model", c.opts.Setup, []views.Choice{
		{Label: "Browse past sessions", Key: 'b'},
		{Label: "Quit", Key: 'q', Dangerous: true},
	}, 0, func(i int) {
		if i == 1 {
			c.onUIQuit()
			return
		}
		c.setMessage("read-only until a model is configured: quit, set the variables and run rewind again", false)
		c.br.onUIOpen() // what the choice says: the browser, not just the closed dialog
	})
}

// setupRefusal says why a prompt cannot be sent without a model.
const setupRefusal = "no model: set OPENAI_API_KEY + REWIND_MODEL"
