package tui

import (
	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/views"
)

// This file is /thinking and Alt-T: how hard the model is asked to think,
// for the open soul and the ones opened later, shown in the status bar.

// thinking owns the effort thinking comes back on at (UI goroutine only).
type thinking struct {
	c    thinkingDeps
	last llm.Effort
}

// thinkingDeps is what /thinking reaches besides the common: the soul
// settings the sessions opened next take (the open one's soul through cur)
// and the model's limits.
type thinkingDeps struct {
	featureCommon
	soul  *soul.Config                                          // Options.Soul: its Thinking is the effort now
	check func(model string, e llm.Effort) (llm.Effort, string) // Options.CheckThinking, or nil
}

func (c *Controller) initThinking() {
	th := &thinking{c: thinkingDeps{featureCommon: c.common(), soul: &c.opts.Soul, check: c.opts.CheckThinking}}
	c.commands.add(Command{Name: "/thinking", Args: "[off|low|medium|high]", Description: "how hard the model thinks before it answers; alone: on or off", Run: th.cmdThinking})
	c.keys = append(c.keys, globalBinding{KeyBinding: views.KeyBinding{
		Keys: []views.Key{{Key: tcell.KeyRune, Rune: 't', Mod: tcell.ModAlt}}, Description: "thinking on or off (/thinking LEVEL sets how hard)",
		Handler: func() { th.cmdThinking("") }, Visible: true}})
	if c.opts.CheckThinking != nil {
		e, note := c.opts.CheckThinking(c.opts.Model, c.opts.Soul.Thinking)
		c.opts.Soul.Thinking = e
		if note != "" {
			c.msg.setMessage(note, true)
		}
	}
}

// cmdThinking sets the effort named, or turns thinking on (at the last
// effort used, high at first) or off.
func (t *thinking) cmdThinking(arg string) {
	want := llm.EffortOff
	if !t.c.soul.Thinking.On() {
		want = t.last
		if !want.On() {
			want = llm.EffortHigh
		}
	}
	if arg != "" {
		e, err := llm.ParseEffort(arg)
		if err != nil {
			t.c.setMessage("/thinking: "+err.Error(), true)
			return
		}
		want = e
	}
	t.setThinking(want)
}

// setThinking applies e, or what the model can take of it, and says so.
func (t *thinking) setThinking(e llm.Effort) {
	c := t.c
	status := c.statusModel()
	note := ""
	if c.check != nil {
		e, note = c.check(status.Model, e)
	}
	c.soul.Thinking = e
	if e.On() {
		t.last = e
	}
	if o := c.cur(); o != nil && o.soul != nil {
		o.soul.SetThinking(e)
	}
	status.Thinking = string(e)
	c.refreshStatus()
	switch {
	case note != "":
		c.setMessage(note, true)
	case e.On():
		c.setMessage("thinking "+string(e)+": the next answer is thought through first (/thinking off to stop)", false)
	default:
		c.setMessage("thinking off: the model answers at once", false)
	}
}

// thinkingText is /status's line for e.
func thinkingText(e llm.Effort) string {
	if !e.On() {
		return "off (/thinking or Alt-T turns it on)"
	}
	return string(e) + " (/thinking LEVEL: off, low, medium, high)"
}
