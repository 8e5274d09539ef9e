package views

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// ApprovalRequest is the approval modal's view model.
type ApprovalRequest struct {
	Tool        string
	Action      string // e.g. "edit file", "run shell command"
	Description string
	Arguments   string
	Diff        string // unified diff for edits
	Command     string // for Shell
	// SessionScopes is what [a] approves for the session: shell command
	// prefixes ("go test …"); empty means every call of Action.
	SessionScopes []string
	// Plan, for ExitPlanMode, is the plan (markdown) to approve: the
	// answers become approve (plan mode ends), keep planning with
	// feedback, and reject; nothing is approved for the session.
	Plan string
}

// ApprovalDecision is the user's answer.
type ApprovalDecision int

const (
	ApproveOnce ApprovalDecision = iota
	ApproveForSession
	Reject
)

// ApprovalModal asks to allow a tool call. Keys: y/Enter approve once,
// a approve this kind for the session, n/r/Esc reject, f reject with
// feedback (typed in a field, Enter sends, Esc goes back).
//
// What is approved (a shell command, an edit's diff, a tool's arguments)
// is shown whole, hard-wrapped, with hidden characters made visible
// (revealSpans, revealCode). While its end has not been on screen, the
// modal says how much of it is still below and the approve keys do
// nothing: what the user approves is what they saw.
type ApprovalModal struct {
	*tview.Box
	theme    themes.Theme
	req      ApprovalRequest
	command  string // the raw command; req.Command is its revealed text
	args     string // the raw arguments; req.Arguments is sanitised
	diff     []DiffLine
	rows     []approvalRow // laid out for rowsW columns by Draw
	rowsW    int
	top      int
	bodyH    int
	seenEnd  bool        // the last row of what is approved has been drawn
	feedback *lineEditor // non-nil while typing feedback
	onDecide func(d ApprovalDecision, feedback string)
	keys     Keymap
}

// approvalRow is one row of the modal's body; a row of what is approved
// (gated) holds the number of its characters up to the row's end.
type approvalRow struct {
	line  Line
	gated bool
	chars int
}

// NewApprovalModal returns an approval modal.
func NewApprovalModal() *ApprovalModal {
	m := &ApprovalModal{Box: tview.NewBox(), theme: themes.Default(), bodyH: 10}
	m.keys = Keymap{
		bind("approve once", func() { m.approve(ApproveOnce) }, R('y'), K(tcell.KeyEnter)),
		bind("approve this kind for the session", func() {
			if m.req.Plan == "" { // a plan is approved each time
				m.approve(ApproveForSession)
			}
		}, R('a')),
		{Keys: []Key{R('n'), R('r'), K(tcell.KeyEsc)}, Description: "reject", Handler: func() { m.decide(Reject, "") }, Visible: true, Dangerous: true},
		bind("reject with feedback", func() { m.feedback = &lineEditor{} }, R('f')),
		bind("scroll", func() { m.scroll(1) }, R('j'), K(tcell.KeyDown)),
		{Keys: []Key{R('k'), K(tcell.KeyUp)}, Description: "scroll up", Handler: func() { m.scroll(-1) }},
		{Keys: []Key{K(tcell.KeyPgDn), R(' ')}, Description: "page down", Handler: func() { m.scroll(m.bodyH - 1) }},
		{Keys: []Key{K(tcell.KeyPgUp)}, Description: "page up", Handler: func() { m.scroll(-(m.bodyH - 1)) }},
		{Keys: []Key{K(tcell.KeyHome), R('g')}, Description: "top", Handler: func() { m.top = 0 }},
		{Keys: []Key{K(tcell.KeyEnd), R('G')}, Description: "end", Handler: func() { m.scroll(len(m.rows)) }},
	}
	return m
}

// SetTheme applies a theme.
func (m *ApprovalModal) SetTheme(t themes.Theme) { m.theme, m.rows = t, nil }

// Bindings lists the modal's keys.
func (m *ApprovalModal) Bindings() []KeyBinding { return m.keys }

// SetOnDecision sets the callback; it is called once per request.
func (m *ApprovalModal) SetOnDecision(f func(d ApprovalDecision, feedback string)) { m.onDecide = f }

// SetRequest shows a new request.
func (m *ApprovalModal) SetRequest(r ApprovalRequest) {
	r.Tool = SanitizeLine(r.Tool)
	r.Action = SanitizeLine(r.Action)
	r.Description = RevealHidden(r.Description) // for Shell it quotes the command
	m.args = r.Arguments
	r.Arguments = RevealHidden(r.Arguments)
	m.command = r.Command
	r.Command = RevealHidden(r.Command)
	scopes := make([]string, len(r.SessionScopes))
	for i, sc := range r.SessionScopes {
		scopes[i] = SanitizeLine(sc)
	}
	r.SessionScopes = scopes
	m.req = r
	m.diff = nil
	if strings.TrimSpace(r.Diff) != "" {
		m.diff = parseDiffRaw(r.Diff)
	}
	m.top = 0
	m.rows, m.rowsW = nil, 0
	m.seenEnd = false // Draw sets it once the end was on screen
	m.feedback = nil
}

// Request returns the request shown.
func (m *ApprovalModal) Request() ApprovalRequest { return m.req }

// approve answers yes, once the whole of what is approved has been shown.
func (m *ApprovalModal) approve(d ApprovalDecision) {
	if m.seenEnd {
		m.decide(d, "")
	}
}

func (m *ApprovalModal) decide(d ApprovalDecision, feedback string) {
	m.feedback = nil
	if m.onDecide != nil {
		m.onDecide(d, feedback)
	}
}

func (m *ApprovalModal) scroll(n int) {
	m.top = max(0, min(m.top+n, len(m.rows)-m.bodyH))
}

// sessionScope says what "approve for session" would cover.
func (m *ApprovalModal) sessionScope() string {
	return ScopeText(m.req.SessionScopes, m.req.Action)
}

// ScopeText says what approving for the session covers, as the modal and
// the status line word it: prefixes (“go test …”) first, then what is
// approved only as typed (“and exactly “rm -f gone.txt””), or every call
// of the action when there are no scopes.
func ScopeText(scopes []string, action string) string {
	if len(scopes) == 0 {
		if action == "" {
			return ""
		}
		return "every “" + SanitizeLine(action) + "”"
	}
	var prefixes, exact []string
	for _, sc := range scopes {
		q := "“" + SanitizeLine(sc) + "”"
		if strings.HasSuffix(sc, " …") {
			prefixes = append(prefixes, q)
		} else {
			exact = append(exact, q)
		}
	}
	text := strings.Join(prefixes, ", ")
	if len(exact) > 0 {
		if text != "" {
			text += " and "
		}
		text += "exactly " + strings.Join(exact, ", ")
	}
	return text
}

// layout returns the scrollable rows for w columns: description, session
// scope, then what is approved: the command, the diff or the arguments,
// hard-wrapped with hidden characters revealed.
func (m *ApprovalModal) layout(w int, base tcell.Style) []approvalRow {
	th := m.theme
	var rows []approvalRow
	info := func(op DiffOp, s string) { // word-wrapped, not approved
		var ls []DiffLine
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			ls = append(ls, DiffLine{op, l})
		}
		for _, r := range wrapDiff(ls, w) {
			st, gutter := diffStyle(r.Op, th, base)
			if r.cont {
				gutter = strings.Repeat(" ", strWidth(gutter))
			}
			rows = append(rows, approvalRow{line: Line{{gutter, st}, {r.Text, st}}})
		}
	}
	token := base.Foreground(th.Warning).Bold(true)
	chars := 0
	approved := func(spans []Span, first, indent Span) {
		for _, l := range hardWrap(spans, w, Line{first}, Line{indent}, token) {
			for _, sp := range l[1:] {
				chars += revealedChars(sp, token)
			}
			rows = append(rows, approvalRow{line: l, gated: true, chars: chars})
		}
	}
	if m.req.Description != "" {
		info(DiffSame, m.req.Description)
	}
	if sc := m.sessionScope(); sc != "" && m.req.Plan == "" {
		info(DiffHeader, "[a] approves "+sc+" for this session")
	}
	switch {
	case m.req.Plan != "":
		info(DiffHeader, "plan:")
		st := base.Foreground(th.Text)
		approved(revealCode(strings.TrimRight(m.req.Plan, "\n"), st, token), Span{"", st}, Span{"", st})
	case m.command != "":
		info(DiffHeader, "command:")
		approved(revealSpans(strings.TrimRight(m.command, "\n"), base.Foreground(th.Tool).Bold(true), token),
			Span{"$ ", base.Foreground(th.Accent).Bold(true)}, Span{"  ", base})
	case len(m.diff) > 0:
		for _, l := range m.diff {
			st, gutter := diffStyle(l.Op, th, base)
			approved(revealCode(l.Text, st, token), Span{gutter, st}, Span{strings.Repeat(" ", strWidth(gutter)), st})
		}
	case m.args != "":
		info(DiffHeader, "arguments:")
		st := base.Foreground(th.Text)
		approved(revealCode(strings.TrimRight(m.args, "\n"), st, token), Span{"", st}, Span{"", st})
	}
	return rows
}

// approvedName names what the approve keys wait for, for "… continues".
func (m *ApprovalModal) approvedName() string {
	switch {
	case m.req.Plan != "":
		return "plan continues"
	case m.command != "":
		return "command continues"
	case len(m.diff) > 0:
		return "diff continues"
	}
	return "arguments continue"
}

// parseDiffRaw is ParseUnifiedDiff without sanitising: the approval modal
// reveals what Sanitize would drop.
func parseDiffRaw(s string) []DiffLine {
	var out []DiffLine
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "diff "):
			out = append(out, DiffLine{DiffHeader, l})
		case strings.HasPrefix(l, "+"):
			out = append(out, DiffLine{DiffAdd, l[1:]})
		case strings.HasPrefix(l, "-"):
			out = append(out, DiffLine{DiffRemove, l[1:]})
		case strings.HasPrefix(l, " "):
			out = append(out, DiffLine{DiffSame, l[1:]})
		default:
			out = append(out, DiffLine{DiffSame, l})
		}
	}
	return out
}

// contentLeft is how many characters of what is approved lie below the
// rows shown (0 when its end is visible, or there is nothing to approve).
func (m *ApprovalModal) contentLeft() int {
	total, shown := 0, 0
	last := m.top + m.bodyH - 1
	for i, r := range m.rows {
		if !r.gated {
			continue
		}
		total = r.chars
		if i <= last {
			shown = r.chars
		}
	}
	return total - shown
}

// Draw draws the centred modal.
func (m *ApprovalModal) Draw(screen tcell.Screen) {
	th := m.theme
	_, _, W, H := m.GetRect()
	bx, by, bw, bh := modalRect(m.Box, max(60, W*3/4), max(12, H*3/4))
	title := "Approve " + m.req.Tool
	if m.req.Action != "" {
		title += " — " + m.req.Action
	}
	if m.req.Plan != "" {
		title = "Approve the plan"
	}
	x, y, w, h := drawModalFrame(screen, th, bx, by, bw, bh, title, th.Warning)
	if w <= 0 || h < 3 {
		return
	}
	base := tcell.StyleDefault.Background(th.ModalBg).Foreground(th.Text)
	if m.rows == nil || m.rowsW != w {
		m.rows, m.rowsW = m.layout(w, base), w
	}
	rows := m.rows
	buttons := buttonRows(m.buttons(), w)
	if m.feedback != nil {
		buttons = buttons[:1] // the feedback field takes one row
	}
	m.bodyH = max(1, h-1-len(buttons))
	m.top = max(0, min(m.top, len(rows)-m.bodyH))
	for r := 0; r < m.bodyH && m.top+r < len(rows); r++ {
		drawLine(screen, x, y+r, w, rows[m.top+r].line)
	}
	left := m.contentLeft()
	if left == 0 {
		m.seenEnd = true
	}
	switch {
	case left > 0:
		unit := "characters"
		if left == 1 {
			unit = "character"
		}
		head := fmt.Sprintf(" %s: %d more %s", m.approvedName(), left, unit)
		more := head + " "
		for _, tail := range []string{" · j/PgDn/End to read on, approve needs the end ", " · End to read on, approve needs the end ", " · approve needs the end "} {
			if strWidth(head+tail) <= w {
				more = head + tail
				break
			}
		}
		drawText(screen, x, y+m.bodyH, w, more, base.Foreground(th.Warning).Bold(true))
	case len(rows) > m.bodyH:
		more := " ↓ j/k scroll "
		drawText(screen, x+w-len([]rune(more)), y+m.bodyH, len([]rune(more)), more, base.Foreground(th.Dim))
	}
	fy := y + h - len(buttons)
	if m.feedback != nil {
		n := drawText(screen, x, fy, w, "feedback: ", base.Foreground(th.Accent).Bold(true))
		m.feedback.draw(screen, x+n, fy, w-n, base.Background(th.SelectionBg).Foreground(th.SelectionFg), true)
		return
	}
	m.drawButtons(screen, x, fy, w, buttons, base)
}

// InputHandler maps the decision keys; in feedback mode it edits the text.
func (m *ApprovalModal) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return m.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		if m.feedback != nil {
			switch ev.Key() {
			case tcell.KeyEnter:
				m.decide(Reject, strings.TrimSpace(m.feedback.String()))
			case tcell.KeyEsc:
				m.feedback = nil
			default:
				m.feedback.handle(ev)
			}
			return
		}
		m.keys.Handle(ev)
	})
}

// PasteHandler pastes into the feedback field.
func (m *ApprovalModal) PasteHandler() func(string, func(tview.Primitive)) {
	return m.WrapPasteHandler(func(s string, _ func(tview.Primitive)) {
		if m.feedback != nil {
			m.feedback.paste(s)
		}
	})
}

// MouseHandler scrolls the body and swallows clicks (the modal is modal).
func (m *ApprovalModal) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return m.WrapMouseHandler(func(a tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		switch a {
		case tview.MouseScrollUp:
			m.scroll(-3)
		case tview.MouseScrollDown:
			m.scroll(3)
		}
		return true, nil
	})
}
