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

// Status is the status bar's view model.
type Status struct {
	Model          string
	SessionTitle   string
	Step           int
	Elapsed        time.Duration
	Tokens         int
	MaxContext     int
	ContextPercent float64 // 0-100
	RunningTool    string  // "" when idle
	Demo           bool    // shows a DEMO label
	Mode           string  // "" (normal), "WATCH", "READ-ONLY", "PREVIEW"…
	Plan           bool    // plan mode: shows a PLAN label
	Alert          string  // a standing problem, e.g. "MCP: github failed"; "" when none
	Generation     int
	Thinking       string // the effort asked of the model; shown unless "" or "off"
}

// StatusBar is a one-row bar at the bottom of the workspace. The app
// sets transient messages and clears them when their timeout expires.
type StatusBar struct {
	*tview.Box
	theme  themes.Theme
	status Status
	msg    string
	msgErr bool
}

// NewStatusBar returns an empty status bar.
func NewStatusBar() *StatusBar { return &StatusBar{Box: tview.NewBox(), theme: themes.Default()} }

// SetTheme applies a theme.
func (b *StatusBar) SetTheme(t themes.Theme) { b.theme = t }

// SetStatus replaces the status model.
func (b *StatusBar) SetStatus(s Status) {
	s.Model = SanitizeLine(s.Model)
	s.SessionTitle = SanitizeLine(s.SessionTitle)
	s.RunningTool = SanitizeLine(s.RunningTool)
	s.Mode = SanitizeLine(s.Mode)
	s.Alert = SanitizeLine(s.Alert)
	b.status = s
}

// Status returns the current model.
func (b *StatusBar) Status() Status { return b.status }

// SetMessage shows a transient message (in the error colour if isError);
// the app clears it with ClearMessage after its timeout.
func (b *StatusBar) SetMessage(text string, isError bool) {
	b.msg, b.msgErr = SanitizeLine(text), isError
}

// ClearMessage removes the transient message.
func (b *StatusBar) ClearMessage() { b.msg = "" }

// Message returns the transient message.
func (b *StatusBar) Message() (string, bool) { return b.msg, b.msgErr }

// FormatTokens renders a token count compactly: 950, 12.3k, 1.2M.
func FormatTokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}

// ContextBar draws a percentage as an n-cell bar of █ and ░.
func ContextBar(pct float64, n int) string {
	pct = max(0, min(100, pct))
	full := int(pct/100*float64(n) + 0.5)
	return strings.Repeat("█", full) + strings.Repeat("░", n-full)
}

// contextShare is the status bar's context figure: a percentage up to the
// model's context, then how many times over it the session is (a long
// session opened to read, or under a model with a smaller context).
func contextShare(pct float64) string {
	switch over := pct / 100; {
	case pct <= 100:
		return fmt.Sprintf(" %.0f%%", pct)
	case over < 10:
		return fmt.Sprintf(" over ×%.1f", over)
	default:
		return fmt.Sprintf(" over ×%.0f", over)
	}
}

// essentialPrio: segments of this priority and up (the labels, the model,
// the session title at its shortest, the tokens, a running tool, a high
// context share) come before an info message; the rest give way to it.
// minStatusTitle is the title's shortest, in cells.
const (
	essentialPrio  = 83
	minStatusTitle = 8
)

type statusSeg struct {
	text  string
	style tcell.Style
	prio  int // lower is dropped first
	kind  segKind
}

// segKind marks the segments the layout treats apart.
type segKind int

const (
	segPlain    segKind = iota
	segLabel            // DEMO, the mode, an alert: boxes of their own
	segTitle            // elastic: at its shortest while placed, then widened
	segCtxLabel         // " ctx ": only with the percentage after it
	segCtxPct
)

// Draw draws the bar, dropping low-priority fields when narrow.
func (b *StatusBar) Draw(screen tcell.Screen) {
	x, y, w, _ := b.GetRect()
	th := b.theme
	base := tcell.StyleDefault.Background(th.StatusBarBg).Foreground(th.StatusBarFg)
	fill(screen, x, y, w, base)
	s := b.status
	var segs []statusSeg
	if s.Demo {
		segs = append(segs, statusSeg{" DEMO ", base.Background(th.Demo).Foreground(th.Background).Bold(true), 100, segLabel})
	}
	if s.Plan {
		segs = append(segs, statusSeg{" PLAN ", base.Background(th.Accent).Foreground(th.Background).Bold(true), 99, segLabel})
	}
	if s.Mode != "" {
		segs = append(segs, statusSeg{" " + s.Mode + " ", base.Background(th.Warning).Foreground(th.Background).Bold(true), 99, segLabel})
	}
	if s.Alert != "" {
		segs = append(segs, statusSeg{" ⚠ " + s.Alert + " ", base.Foreground(th.Error).Bold(true), 95, segLabel})
	}
	if s.Model != "" {
		segs = append(segs, statusSeg{" " + s.Model, base.Bold(true), 90, segPlain})
	}
	if s.SessionTitle != "" {
		// elastic: at its shortest while segments compete, then it takes
		// what room is left, up to 30 cells
		segs = append(segs, statusSeg{" · " + truncate(s.SessionTitle, minStatusTitle), base, 83, segTitle})
	}
	if s.Thinking != "" && s.Thinking != "off" {
		segs = append(segs, statusSeg{" · think " + s.Thinking, base.Foreground(th.Reasoning), 70, segPlain})
	}
	if s.Step > 0 {
		segs = append(segs, statusSeg{fmt.Sprintf(" · step %d", s.Step), base, 80, segPlain})
	}
	if e := s.Elapsed.Truncate(time.Second); e > 0 {
		segs = append(segs, statusSeg{" · " + formatDuration(e), base, 50, segPlain})
	}
	if s.Tokens > 0 || s.MaxContext > 0 {
		// the token count outlives everything but the labels and the model
		segs = append(segs, statusSeg{" · " + FormatTokens(s.Tokens) + " tok", base, 88, segPlain})
	}
	if s.MaxContext > 0 || s.ContextPercent > 0 {
		col, pctPrio := th.ToolOK, 82 // a low figure gives way to the title
		if s.ContextPercent >= 85 {
			col, pctPrio = th.Error, 84
		} else if s.ContextPercent >= 60 {
			col, pctPrio = th.Warning, 84
		}
		segs = append(segs,
			statusSeg{" ctx ", base, 81, segCtxLabel},
			statusSeg{ContextBar(s.ContextPercent, 8), base.Foreground(col), 60, segPlain},
			statusSeg{contextShare(s.ContextPercent), base.Foreground(col), pctPrio, segCtxPct})
	}
	if s.RunningTool != "" {
		segs = append(segs, statusSeg{" · ⚙ " + s.RunningTool, base.Foreground(th.ToolRunning), 85, segPlain})
	}
	// Room, first served first: an error message its share; the segments
	// of priority essentialPrio and up (the title at its shortest); an
	// info message its share of what is left; the other segments; the
	// rest of the title; the rest of the message. Within each, the
	// highest priority first, each segment that still fits (a lower one
	// may fit where a wider one did not).
	msgW, reserve := 0, 0
	var msgStyle tcell.Style
	if b.msg != "" {
		msgW = strWidth(b.msg) + 2
		reserve = min(msgW, max(w/2, w-30))
		msgStyle = base.Foreground(th.Accent)
		if b.msgErr {
			msgStyle = base.Foreground(th.Error).Bold(true)
		}
	}
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return segs[b].prio - segs[a].prio })
	keep, used, pct := make([]bool, len(segs)), 0, false
	place := func(budget, minPrio int) {
		for _, i := range order {
			sg := segs[i]
			if keep[i] || sg.prio < minPrio {
				continue
			}
			if sw := strWidth(sg.text); used+sw <= budget && (sg.kind != segCtxLabel || pct) {
				keep[i], used = true, used+sw
				pct = pct || sg.kind == segCtxPct
			}
		}
	}
	if !b.msgErr {
		place(w, essentialPrio)
		reserve = min(reserve, w-used)
	}
	place(w-reserve, 0)
	kept := segs[:0]
	for i, sg := range segs {
		if keep[i] {
			kept = append(kept, sg)
		}
	}
	segs = kept
	width := func() int {
		t := 0
		for _, sg := range segs {
			t += strWidth(sg.text)
		}
		return t
	}
	if i := slices.IndexFunc(segs, func(sg statusSeg) bool { return sg.kind == segTitle }); i >= 0 {
		room := w - reserve - width() + strWidth(segs[i].text) - 3
		segs[i].text = " · " + truncate(s.SessionTitle, max(minStatusTitle, min(30, room)))
	}
	// The first field after the labels needs no separator (no model
	// shown: "READ-ONLY · no model  · title").
	if i := slices.IndexFunc(segs, func(sg statusSeg) bool { return sg.kind != segLabel }); i >= 0 {
		if rest, ok := strings.CutPrefix(segs[i].text, " · "); ok {
			segs[i].text = " " + rest
		}
	}
	msgW = min(msgW, w-width())
	cx := x
	for _, sg := range segs {
		cx += drawText(screen, cx, y, x+w-cx, sg.text, sg.style)
	}
	if b.msg != "" && msgW > 2 {
		m := fitParts(b.msg, msgW-2)
		if strWidth(m) > msgW-2 { // its " …" did not fit
			m = fitWords(b.msg, msgW-2)
		}
		mw := strWidth(m)
		drawText(screen, x+w-mw-1, y, mw, m, msgStyle)
	}
}
