package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store/peers"
	"github.com/rewind-agent/rewind/views"
)

// Command is one slash command. The registry feeds the input's completion
// and the help overlay, so both list exactly what exists.
type Command struct {
	Name        string // with the leading "/"
	Args        string // e.g. "N"; "" when none
	Description string
	// DisabledWhen are the rules that refuse the command (disabled.go):
	// ruleRunActive for a command that changes the context, ruleReadOnly
	// for one that writes the session.
	DisabledWhen []rule
	// Run executes the command on the UI goroutine; arg is the trimmed text
	// after the name.
	Run func(arg string)
}

type commandRegistry struct {
	byName map[string]*Command
	order  []*Command
}

func newCommandRegistry() *commandRegistry {
	return &commandRegistry{byName: map[string]*Command{}}
}

// add registers cmd, replacing one of the same name.
func (r *commandRegistry) add(cmd Command) {
	if old, ok := r.byName[cmd.Name]; ok {
		*old = cmd
		return
	}
	p := &cmd
	r.byName[cmd.Name] = p
	r.order = append(r.order, p)
}

func (r *commandRegistry) get(name string) (*Command, bool) {
	c, ok := r.byName[name]
	return c, ok
}

// slashCommands is the registry as the views show it, sorted by name;
// disabledBy gives each its DisabledReason.
func (r *commandRegistry) slashCommands(disabledBy func([]rule) func() string) []views.SlashCommand {
	out := make([]views.SlashCommand, 0, len(r.order))
	for _, c := range r.order {
		out = append(out, views.SlashCommand{Name: c.Name, Args: c.Args, Description: c.Description, DisabledReason: disabledBy(c.DisabledWhen)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// AddCommand registers a slash command (feature files call it from New's
// registerCommands or later, on the UI goroutine) and refreshes completion.
func (c *Controller) AddCommand(cmd Command) {
	c.commands.add(cmd)
	c.input.SetCommands(c.commands.slashCommands(c.disabledBy))
}

// registerCommands installs the built-in slash commands; the feature files
// add /revert (timetravel.go), /sessions and /undelete (browser.go).
func (c *Controller) registerCommands() {
	for _, cmd := range []Command{
		c.theme.command(),
		c.help.command(),
		{Name: "/exit", Description: "quit rewind (a running step is cancelled first)", Run: func(string) { c.onUIQuit() }},
	} {
		c.commands.add(cmd)
	}
}

// onUISubmit handles Enter in the input: a slash command or a prompt.
// shown is the text as the input showed it (long pastes folded).
func (c *Controller) onUISubmit(text, shown string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if strings.HasPrefix(text, "/") {
		c.onUICommand(text)
		return
	}
	c.runPromptShown(text, shown)
}

// runPrompt sends text to the model: a run of the open session, or of a new
// one created on the way (UI).
func (c *Controller) runPrompt(text string) { c.runPromptShown(text, text) }

// runPromptShown is runPrompt with the text as the conversation shows it
// (long pastes folded).
func (c *Controller) runPromptShown(text, shown string) {
	// A prompt that cannot be sent goes back into the input: nothing typed
	// is lost.
	if r := c.firstHolding([]rule{ruleReadOnly, ruleRunActive}); r != 0 {
		c.input.SetText(text)
		c.msg.setMessage(c.refusal("", r)+" (your text stays in the input)", true)
		return
	}
	if c.pg.win.later > 0 {
		// Opened at a search hit: the prompt follows the newest message,
		// so the conversation jumps there first.
		c.pg.onUIJumpToEnd(func() {
			if c.pg.win.later > 0 { // the end could not be read (the status bar says why)
				c.input.SetText(text)
				return
			}
			c.runPromptShown(text, shown)
		})
		return
	}
	o, cfg := c.cur(), c.opts.Soul
	if o != nil && !c.importNoted[o.sess.ID] {
		// The first prompt of a session imported from another agent says
		// once that rewind goes on with its own model and tools.
		if note := peers.ContinueNotice(o.sess.Origin); note != "" {
			if c.importNoted == nil {
				c.importNoted = map[string]bool{}
			}
			c.importNoted[o.sess.ID] = true
			c.info(note)
		}
	}
	c.promptSeq++
	c.unsent = &unsentPrompt{text: text, at: c.conv.Len(), id: fmt.Sprintf("prompt-%d", c.promptSeq)}
	item := promptItem(text, shown)
	item.ID = c.unsent.id // PromptImages adds the images it attached
	c.conv.Append(item)
	c.conv.ScrollToEnd()
	c.stepStart = c.conv.Len()
	c.startOp("run", func(ctx context.Context) error {
		if o == nil { // the first prompt of a new session creates it
			var err error
			if o, err = c.onWorkerCreateSession(ctx, cfg); err != nil {
				return fmt.Errorf("%w: %w", soul.ErrNotSaved, err)
			}
		}
		return o.soul.Run(ctx, text)
	})
	c.dbBusy.onUIPromptSent() // the prompt waits too: say how to stop it
}

// unsentPrompt is a prompt shown as sent whose run has not ended: at is
// its item in the conversation.
type unsentPrompt struct {
	text string
	at   int
	id   string // its item's ID
}

// onUIPromptNotSaved gives back a prompt the run could not save (the
// database stayed busy until Esc, or refused the write): the conversation
// no longer shows it as sent, and its text is back in the input.
func (c *Controller) onUIPromptNotSaved(p *unsentPrompt, err error) {
	if p == nil {
		return
	}
	// The prompt is the last user item with its text (older pages loaded
	// meanwhile moved it from p.at).
	for i := c.conv.Len() - 1; i >= min(p.at, c.conv.Len()-1) && i >= 0; i-- {
		if it, _ := c.conv.Item(i); it.Kind == views.ItemUser && (it.Text == p.text || it.Full == p.text) {
			c.conv.SetItems(c.convItems(i))
			c.stepStart = c.conv.Len()
			break
		}
	}
	if cur := c.input.Text(); cur != "" {
		c.input.SetText(p.text + "\n" + cur)
	} else {
		c.input.SetText(p.text)
	}
	why := "the database stayed busy (another process is writing)"
	if !errors.Is(err, context.Canceled) {
		why = oneLine(err.Error(), 100)
	}
	c.msg.setMessage("not sent: "+why+"; your prompt is back in the input", true)
}

// onUICommand dispatches a slash command.
func (c *Controller) onUICommand(text string) {
	name, arg, _ := strings.Cut(text, " ")
	name = strings.ToLower(name)
	arg = strings.TrimSpace(arg)
	if name == "/quit" {
		name = "/exit"
	}
	cmd, ok := c.commands.get(name)
	if !ok {
		c.msg.setMessage(fmt.Sprintf("unknown command %s — type /help for the list (nothing was sent to the model)", oneLine(name, 30)), true)
		return
	}
	if c.refuse(cmd.Name, cmd.DisabledWhen...) {
		return
	}
	cmd.Run(arg)
}

// startOp runs f on a worker with a cancellable context (Esc cancels it) and
// posts evOpDone when it returns (UI).
func (c *Controller) startOp(op string, f func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.busy, c.runCancel, c.runStart = op, cancel, time.Now()
	c.statusM.Step = 0
	c.refreshStatus()
	c.onWorker(func() {
		defer cancel()
		err := f(ctx)
		c.post(evOpDone{op: op, err: err})
	})
}
