package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

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

// AddCommand registers a slash command (a feature registers its own when
// it is wired, or later, on the UI goroutine) and refreshes completion.
func (c *Controller) AddCommand(cmd Command) {
	c.commands.add(cmd)
	c.input.SetCommands(c.commands.slashCommands(c.disabledBy))
}

// registerCommands installs the commands of the core (/exit) and of the
// features built with the widgets (/theme, /help); every other feature
// registers its own when it is wired (features.go).
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
	c.prompts.runPromptShown(text, shown)
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

// runningOp is the operation in flight (UI): a run, a compaction, a
// session switch. ruleRunActive holds while there is one.
type runningOp struct {
	op     string             // "" idle, else the running operation ("run", "compaction"…)
	cancel context.CancelFunc // Esc stops it; nil when nothing can (a session switch)
	start  time.Time          // when it started: the status bar's elapsed time
}

// startOp runs f on a worker with a cancellable context (Esc cancels it) and
// posts evOpDone when it returns (UI).
func (c *Controller) startOp(op string, f func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.run.op, c.run.cancel, c.run.start = op, cancel, time.Now()
	c.statusM.Step = 0
	c.refreshStatus()
	c.onWorker(func() {
		defer cancel()
		err := f(ctx)
		c.post(evOpDone{op: op, err: err})
	})
}
