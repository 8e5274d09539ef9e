package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// DefaultToolOutputLines is how many output lines ToolOutput keeps.
const DefaultToolOutputLines = 5000

// ToolCallInfo is the ToolOutput header's view model.
type ToolCallInfo struct {
	ID       string
	Name     string
	Args     string
	Status   ToolStatus
	Duration time.Duration
}

// ToolOutput shows the live output of one tool call: a header and a
// virtual, tail-following body that keeps the last MaxLines lines.
type ToolOutput struct {
	pane
	info     ToolCallInfo
	lines    []string
	partial  bool // the last line is still being written
	dropped  int
	maxLines int
	stream   streamSanitizer
	top      int
	follow   bool
	height   int
	keys     Keymap
}

// NewToolOutput returns an empty tool output pane.
func NewToolOutput() *ToolOutput {
	o := &ToolOutput{pane: newPane("Tool output"), maxLines: DefaultToolOutputLines, follow: true, height: 10}
	o.keys = Keymap{
		bind("scroll down", func() { o.Scroll(1) }, R('j'), K(tcell.KeyDown)),
		bind("scroll up", func() { o.Scroll(-1) }, R('k'), K(tcell.KeyUp)),
		bind("page down", func() { o.Scroll(o.height - 1) }, K(tcell.KeyPgDn)),
		bind("page up", func() { o.Scroll(-(o.height - 1)) }, K(tcell.KeyPgUp)),
		bind("top", func() { o.top, o.follow = 0, false }, R('g'), K(tcell.KeyHome)),
		bind("bottom, follow output", func() { o.follow = true }, R('G'), K(tcell.KeyEnd)),
	}
	return o
}

// SetTheme applies a theme.
func (o *ToolOutput) SetTheme(t themes.Theme) { o.setTheme(t) }

// Bindings lists the pane's keys.
func (o *ToolOutput) Bindings() []KeyBinding { return o.keys }

// SetMaxLines changes how many lines are kept (older ones are dropped).
func (o *ToolOutput) SetMaxLines(n int) {
	o.maxLines = max(1, n)
	o.trim()
}

// SetTool shows a tool call; a different ID clears the output.
func (o *ToolOutput) SetTool(info ToolCallInfo) {
	info.ID = SanitizeLine(info.ID)
	info.Name = SanitizeLine(info.Name)
	info.Args = SanitizeLine(info.Args)
	if info.ID != o.info.ID || info.ID == "" {
		o.Clear()
	}
	o.info = info
}

// Tool returns the header model.
func (o *ToolOutput) Tool() ToolCallInfo { return o.info }

// SetStatus updates the header's status and duration.
func (o *ToolOutput) SetStatus(s ToolStatus, d time.Duration) {
	o.info.Status, o.info.Duration = s, d
}

// Clear drops all output.
func (o *ToolOutput) Clear() {
	o.lines, o.partial, o.dropped, o.top, o.follow = nil, false, 0, 0, true
	o.stream = streamSanitizer{}
}

// SetOutput replaces the output (e.g. a finished call's stored result).
func (o *ToolOutput) SetOutput(text string) {
	o.lines, o.partial, o.dropped = nil, false, 0
	o.stream = streamSanitizer{}
	o.AppendOutput(text)
}

// AppendOutput appends streamed output. Escape sequences are stripped
// (also when split across calls); a carriage return restarts the current
// line, as progress bars expect.
func (o *ToolOutput) AppendOutput(text string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	for i, p := range strings.Split(text, "\n") {
		if i > 0 { // a newline ended the current line
			if !o.partial {
				o.lines = append(o.lines, "")
			}
			o.partial = false
		}
		if j := strings.LastIndexByte(p, '\r'); j >= 0 {
			if o.partial {
				o.lines[len(o.lines)-1] = ""
			}
			p = p[j+1:]
		}
		clean := o.stream.Write(p)
		if clean == "" {
			continue
		}
		if o.partial {
			o.lines[len(o.lines)-1] += clean
		} else {
			o.lines = append(o.lines, clean)
			o.partial = true
		}
	}
	o.trim()
}

func (o *ToolOutput) trim() {
	if n := len(o.lines) - o.maxLines; n > 0 {
		o.dropped += n
		o.lines = append(o.lines[:0:0], o.lines[n:]...)
		o.top = max(0, o.top-n)
	}
}

// Lines returns the kept output lines and how many were dropped.
func (o *ToolOutput) Lines() ([]string, int) { return o.lines, o.dropped }

// Scroll moves the body by n rows; reaching the end follows again.
func (o *ToolOutput) Scroll(n int) {
	total := o.rows()
	if o.follow {
		o.top = max(0, total-o.height)
	}
	o.top = max(0, o.top+n)
	o.follow = o.top >= total-o.height
}

func (o *ToolOutput) rows() int {
	n := len(o.lines)
	if o.dropped > 0 {
		n++
	}
	return n
}

// Draw draws the header and the visible output rows.
func (o *ToolOutput) Draw(screen tcell.Screen) {
	x, y, w, h := o.frame(screen, o)
	if w <= 0 || h <= 0 {
		return
	}
	th := o.theme
	base := o.base()
	if o.info.Name == "" && len(o.lines) == 0 {
		drawText(screen, x+1, y, w-1, "No tool call selected.", base.Foreground(th.Dim))
		return
	}
	glyph, col := ToolStatusGlyph(o.info.Status, th)
	cx := x
	cx += drawText(screen, cx, y, w, glyph+" ", base.Foreground(col).Bold(true))
	cx += drawText(screen, cx, y, x+w-cx, o.info.Name, base.Foreground(th.Tool).Bold(true))
	tail := formatDuration(o.info.Duration)
	if tail != "" {
		tail = " " + tail
	}
	argW := x + w - cx - len([]rune(tail))
	if o.info.Args != "" && argW > 2 {
		cx += drawText(screen, cx, y, argW, " "+truncate(o.info.Args, argW-1), base.Foreground(th.Dim))
	}
	if tail != "" {
		drawText(screen, x+w-len([]rune(tail)), y, len([]rune(tail)), tail, base.Foreground(th.Dim))
	}
	y++
	h--
	o.height = max(1, h)
	total := o.rows()
	top := o.top
	if o.follow {
		top = max(0, total-h)
	}
	top = min(top, max(0, total-h))
	for r := 0; r < h && top+r < total; r++ {
		i := top + r
		if o.dropped > 0 {
			if i == 0 {
				drawText(screen, x, y+r, w, fmt.Sprintf("… %d earlier lines dropped", o.dropped), base.Foreground(th.Dim).Italic(true))
				continue
			}
			i--
		}
		st := base
		if o.info.Status == ToolFailed {
			st = base.Foreground(th.ToolError)
		}
		drawText(screen, x, y+r, w, o.lines[i], st)
	}
}

// InputHandler scrolls.
func (o *ToolOutput) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return o.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) { o.keys.Handle(ev) })
}

// MouseHandler scrolls on the wheel and takes focus on click.
func (o *ToolOutput) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return o.WrapMouseHandler(func(a tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		if !o.InRect(ev.Position()) {
			return false, nil
		}
		switch a {
		case tview.MouseScrollUp:
			o.Scroll(-3)
		case tview.MouseScrollDown:
			o.Scroll(3)
		case tview.MouseLeftClick:
			setFocus(o)
		default:
			return false, nil
		}
		return true, nil
	})
}
