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

// setupScreen is the onboarding screen.
type setupScreen struct {
	c setupDeps
}

// setupDeps is what the setup screen reaches besides the common: its text,
// the input it sets the placeholder of, the browser its choice opens, and
// the Controller's dialog and quit.
type setupDeps struct {
	featureCommon
	setupHost
	text    string // Options.Setup: "" when a model is configured
	input   *views.Input
	browser interface{ onUIOpen() }
}

type setupHost interface {
	onUIQuit()
}

func (c *Controller) initSetup() {
	c.setup = &setupScreen{c: setupDeps{featureCommon: c.common(), setupHost: c, text: c.opts.Setup, input: c.input, browser: c.br}}
}

// onUIShow shows the setup screen (once the UI runs).
func (s *setupScreen) onUIShow() {
	c := s.c
	if c.text == "" {
		return
	}
	c.input.SetPlaceholder(setupPlaceholder)
	c.showConfirm("Connect a model", c.text, []views.Choice{
		{Label: "Browse past sessions", Key: 'b'},
		{Label: "Quit", Key: 'q', Dangerous: true},
	}, 0, func(i int) {
		if i == 1 {
			c.onUIQuit()
			return
		}
		c.setMessage("read-only until a model is configured: quit, set the variables and run rewind again", false)
		c.browser.onUIOpen() // what the choice says: the browser, not just the closed dialog
	})
}

// setupRefusal says why a prompt cannot be sent without a model.
const setupRefusal = "no model: set OPENAI_API_KEY + REWIND_MODEL"
