package views

import (
	"fmt"
	"slices"
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
// virtual, tail-following body that keeps the last MaxLines lines. Long
// lines wrap; w switches to horizontal scrolling (←/→) and back.
type ToolOutput struct {
	pane
	onOpen   func(ToolCallInfo)
	info     ToolCallInfo
	lines    []string
	partial  bool // the last line is still being written
	dropped  int
	maxLines int
	stream   streamSanitizer
	// first visible row: row topSub of body line top (body lines are the
	// "dropped" notice, if any, then the kept lines)
	top, topSub int
	follow      bool
	height      int
	width       int
	layout      CodeLayout // wrap (default) or shift sideways
	keys        Keymap

	// lines laid out (tests: a frame's work does not grow with the
	// output's length)
	laidOut int
}

// NewToolOutput returns an empty tool output pane.
func NewToolOutput() *ToolOutput {
	o := &ToolOutput{pane: newPane("Tool output"), maxLines: DefaultToolOutputLines, follow: true, height: 10}
	o.keys = Keymap{
		bind("scroll down", func() { o.Scroll(1) }, R('j'), K(tcell.KeyDown)),
		bind("scroll up", func() { o.Scroll(-1) }, R('k'), K(tcell.KeyUp)),
		bind("page down", func() { o.Scroll(o.height - 1) }, K(tcell.KeyPgDn)),
		bind("page up", func() { o.Scroll(-(o.height - 1)) }, K(tcell.KeyPgUp)),
		bind("top", func() { o.top, o.topSub, o.follow = 0, 0, false }, R('g'), K(tcell.KeyHome)),
		bind("bottom, follow output", func() { o.follow = true }, R('G'), K(tcell.KeyEnd)),
		bind("wrap long lines / scroll sideways with ←/→", o.ToggleWrap, R('w')),
		{Keys: []Key{K(tcell.KeyLeft)}, Description: "scroll left", Handler: func() { o.shift(-codeShiftStep) }},
		{Keys: []Key{K(tcell.KeyRight)}, Description: "scroll right", Handler: func() { o.shift(codeShiftStep) }},
		bind("an Agent call: open the sub-agent's session read-only", func() {
			if o.onOpen != nil {
				o.onOpen(o.Tool())
			}
		}, K(tcell.KeyEnter)),
	}
	return o
}

// SetOnOpen sets what Enter does with the call shown (the workspace opens
// an Agent call's sub-agent session).
func (o *ToolOutput) SetOnOpen(f func(ToolCallInfo)) { o.onOpen = f }

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
	o.lines, o.partial, o.dropped, o.top, o.topSub, o.follow = nil, false, 0, 0, 0, true
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
		clean := expandTabs(o.stream.Write(p))
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

// trim drops the oldest lines past maxLines. The kept ones stay where
// they are (append moves them when the array is full, once in a while): a
// chunk of a long command's output copied all 5,000 of them each time.
func (o *ToolOutput) trim() {
	if n := len(o.lines) - o.maxLines; n > 0 {
		o.dropped += n
		o.lines = o.lines[n:]
		if cap(o.lines) > 4*o.maxLines { // SetMaxLines shrank it
			o.lines = slices.Clone(o.lines)
		}
		o.top = max(0, o.top-n)
		if o.top == 0 {
			o.topSub = 0
		}
	}
}

// Lines returns the kept output lines and how many were dropped.
func (o *ToolOutput) Lines() ([]string, int) { return o.lines, o.dropped }

// Scroll moves the body by n rows; reaching the end follows again.
func (o *ToolOutput) Scroll(n int) {
	if o.follow {
		if n >= 0 {
			return
		}
		o.top, o.topSub = o.bottomAnchor()
		o.follow = false
	}
	o.topSub += n
	for o.topSub < 0 && o.top > 0 {
		o.top--
		o.topSub += len(o.bodyRows(o.top))
	}
	o.topSub = max(0, o.topSub)
	for o.top < o.rows()-1 && o.topSub >= len(o.bodyRows(o.top)) {
		o.topSub -= len(o.bodyRows(o.top))
		o.top++
	}
	// at or past the bottom: follow again
	rows := -o.topSub
	for i := o.top; i < o.rows() && rows <= o.height; i++ {
		rows += len(o.bodyRows(i))
	}
	o.follow = rows <= o.height
}

// rows is the number of body lines.
func (o *ToolOutput) rows() int {
	n := len(o.lines)
	if o.dropped > 0 {
		n++
	}
	return n
}

// bodyRows lays body line i out for the current width.
func (o *ToolOutput) bodyRows(i int) []Line {
	o.laidOut++
	st := o.base()
	if o.info.Status == ToolFailed {
		st = o.base().Foreground(o.theme.ToolError)
	}
	text := ""
	if o.dropped > 0 {
		if i == 0 {
			text, st = fmt.Sprintf("… %d earlier lines dropped", o.dropped), o.base().Foreground(o.theme.Dim).Italic(true)
		} else {
			text = o.lines[i-1]
		}
	} else {
		text = o.lines[i]
	}
	w := max(1, o.width)
	if o.layout.NoWrap {
		return []Line{shiftLine(Line{{text, st}}, o.layout.Shift, w, o.base().Foreground(o.theme.Dim))}
	}
	return wrapPlain(text, w, st)
}

// bottomAnchor is the anchor that shows the last rows.
func (o *ToolOutput) bottomAnchor() (int, int) {
	need := o.height
	for i := o.rows() - 1; i >= 0; i-- {
		n := len(o.bodyRows(i))
		if n >= need {
			return i, n - need
		}
		need -= n
	}
	return 0, 0
}

// ToggleWrap switches long lines between wrapping and sideways scrolling.
func (o *ToolOutput) ToggleWrap() {
	o.layout = CodeLayout{NoWrap: !o.layout.NoWrap}
	o.topSub = 0
}

func (o *ToolOutput) shift(d int) {
	if o.layout.NoWrap {
		o.layout.Shift = max(0, o.layout.Shift+d)
	}
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
	o.height, o.width = max(1, h), w
	top, sub := min(o.top, max(0, o.rows()-1)), o.topSub
	if o.follow {
		top, sub = o.bottomAnchor()
	}
	row := 0
	for i := top; i < o.rows() && row < h; i++ {
		rs := o.bodyRows(i)
		if i == top {
			rs = rs[min(sub, len(rs)):]
		}
		for _, l := range rs {
			if row >= h {
				break
			}
			drawLine(screen, x, y+row, w, l)
			row++
		}
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
