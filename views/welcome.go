package views

import (
	"github.com/gdamore/tcell/v2"
)

// Welcome is what the empty conversation shows: where rewind works, with
// which model and approval mode, and the few keys a newcomer needs.
type Welcome struct {
	WorkDir  string
	Model    string
	Agent    string // the agent new prompts run with, "default (built-in)"
	Approval string
	Keys     []KeyHint
}

// KeyHint is one key and what it does, for the empty conversation.
type KeyHint struct{ Key, Description string }

// SetWelcome sets what the conversation shows while it is empty.
func (c *Conversation) SetWelcome(w Welcome) {
	w.WorkDir = SanitizeLine(w.WorkDir)
	w.Model = SanitizeLine(w.Model)
	w.Agent = SanitizeLine(w.Agent)
	w.Approval = SanitizeLine(w.Approval)
	keys := make([]KeyHint, len(w.Keys)) // never write the caller's slice
	for i, k := range w.Keys {
		keys[i] = KeyHint{SanitizeLine(k.Key), SanitizeLine(k.Description)}
	}
	w.Keys = keys
	c.welcome = w
	c.welcomeLines = nil
}

// Welcome returns what the empty conversation shows.
func (c *Conversation) Welcome() Welcome { return c.welcome }

// drawWelcome draws the empty conversation from (x, y) in w×h. Its lines
// are laid out again only when the width, the theme or the welcome
// changed: a frame of a new session's workspace (each key typed before
// the first prompt) wrapped them all again.
func (c *Conversation) drawWelcome(screen tcell.Screen, x, y, w, h int) {
	if c.welcomeLines == nil || c.welcomeWidth != w {
		c.welcomeLines, c.welcomeWidth = c.welcomeLayout(w), w
	}
	for i, l := range c.welcomeLines {
		if i >= h {
			break
		}
		drawLine(screen, x, y+i, w, l)
	}
}

// welcomeLayout is the empty conversation's lines at width w.
func (c *Conversation) welcomeLayout(w int) []Line {
	th := c.theme
	base := c.base()
	dim, label := base.Foreground(th.Dim), base.Foreground(th.Accent).Bold(true)
	var lines []Line
	add := func(l Line) { lines = append(lines, l) }
	add(Line{{"No messages yet. Type below and press Enter.", dim}})
	add(Line{})
	field := func(name, value string) {
		if value == "" {
			return
		}
		pre := Span{padRight(name, 10), label}
		if name == "work dir" { // one row: the path's end
			value = trimLeft(value, max(1, w-strWidth(pre.Text)))
		}
		// the others wrap at words under the value
		lines = append(lines, wrapSpans([]Span{{value, base}}, max(strWidth(pre.Text)+8, w), Line{pre}, Line{{padRight("", 10), base}})...)
	}
	field("work dir", c.welcome.WorkDir)
	field("model", c.welcome.Model)
	field("agent", c.welcome.Agent)
	field("approvals", c.welcome.Approval)
	if len(c.welcome.Keys) > 0 {
		add(Line{})
		kw := 0
		for _, k := range c.welcome.Keys {
			kw = max(kw, strWidth(k.Key))
		}
		for _, k := range c.welcome.Keys {
			rows := wrapSpans([]Span{{k.Description, base}}, max(8, w-kw-2), Line{{padRight(k.Key, kw) + "  ", label}}, Line{{padRight("", kw+2), base}})
			lines = append(lines, rows...)
		}
	}
	return lines
}

// trimLeft keeps the end of s (a path's most telling part) in w columns,
// marking the cut with "…".
func trimLeft(s string, w int) string {
	if strWidth(s) <= w {
		return s
	}
	rs := []rune(s)
	for i := range rs {
		if strWidth(string(rs[i:])) <= w-1 {
			return "…" + string(rs[i:])
		}
	}
	return "…"
}
