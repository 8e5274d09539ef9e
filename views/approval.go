package views

import (
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
type ApprovalModal struct {
	*tview.Box
	theme    themes.Theme
	req      ApprovalRequest
	diff     []DiffLine
	top      int
	bodyH    int
	feedback *lineEditor // non-nil while typing feedback
	onDecide func(d ApprovalDecision, feedback string)
	keys     Keymap
}

// NewApprovalModal returns an approval modal.
func NewApprovalModal() *ApprovalModal {
	m := &ApprovalModal{Box: tview.NewBox(), theme: themes.Default(), bodyH: 10}
	m.keys = Keymap{
		bind("approve once", func() { m.decide(ApproveOnce, "") }, R('y'), K(tcell.KeyEnter)),
		bind("approve this kind for the session", func() { m.decide(ApproveForSession, "") }, R('a')),
		{Keys: []Key{R('n'), R('r'), K(tcell.KeyEsc)}, Description: "reject", Handler: func() { m.decide(Reject, "") }, Visible: true, Dangerous: true},
		bind("reject with feedback", func() { m.feedback = &lineEditor{} }, R('f')),
		bind("scroll", func() { m.scroll(1) }, R('j'), K(tcell.KeyDown)),
		{Keys: []Key{R('k'), K(tcell.KeyUp)}, Description: "scroll up", Handler: func() { m.scroll(-1) }},
		{Keys: []Key{K(tcell.KeyPgDn), R(' ')}, Description: "page down", Handler: func() { m.scroll(m.bodyH - 1) }},
		{Keys: []Key{K(tcell.KeyPgUp)}, Description: "page up", Handler: func() { m.scroll(-(m.bodyH - 1)) }},
	}
	return m
}

// SetTheme applies a theme.
func (m *ApprovalModal) SetTheme(t themes.Theme) { m.theme = t }

// Bindings lists the modal's keys.
func (m *ApprovalModal) Bindings() []KeyBinding { return m.keys }

// SetOnDecision sets the callback; it is called once per request.
func (m *ApprovalModal) SetOnDecision(f func(d ApprovalDecision, feedback string)) { m.onDecide = f }

// SetRequest shows a new request.
func (m *ApprovalModal) SetRequest(r ApprovalRequest) {
	r.Tool = SanitizeLine(r.Tool)
	r.Action = SanitizeLine(r.Action)
	r.Description = Sanitize(r.Description)
	r.Arguments = Sanitize(r.Arguments)
	r.Command = Sanitize(r.Command)
	scopes := make([]string, len(r.SessionScopes))
	for i, sc := range r.SessionScopes {
		scopes[i] = SanitizeLine(sc)
	}
	r.SessionScopes = scopes
	m.req = r
	m.diff = nil
	if strings.TrimSpace(r.Diff) != "" {
		m.diff = ParseUnifiedDiff(r.Diff)
	}
	m.top = 0
	m.feedback = nil
}

// Request returns the request shown.
func (m *ApprovalModal) Request() ApprovalRequest { return m.req }

func (m *ApprovalModal) decide(d ApprovalDecision, feedback string) {
	m.feedback = nil
	if m.onDecide != nil {
		m.onDecide(d, feedback)
	}
}

func (m *ApprovalModal) scroll(n int) {
	m.top = max(0, min(m.top+n, len(m.body())-m.bodyH))
}

// sessionScope says what "approve for session" would cover.
func (m *ApprovalModal) sessionScope() string {
	if len(m.req.SessionScopes) > 0 {
		q := make([]string, len(m.req.SessionScopes))
		for i, sc := range m.req.SessionScopes {
			q[i] = "`" + sc + "`"
		}
		return strings.Join(q, ", ")
	}
	if m.req.Action != "" {
		return "every “" + m.req.Action + "”"
	}
	return ""
}

// body returns the scrollable rows: description, command or diff, args.
func (m *ApprovalModal) body() []DiffLine {
	var rows []DiffLine
	add := func(op DiffOp, s string) {
		for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			rows = append(rows, DiffLine{op, l})
		}
	}
	if m.req.Description != "" {
		add(DiffSame, m.req.Description)
	}
	if sc := m.sessionScope(); sc != "" {
		rows = append(rows, DiffLine{DiffHeader, "[a] approves " + sc + " for this session"})
	}
	if m.req.Command != "" {
		rows = append(rows, DiffLine{DiffHeader, "command:"})
		add('$', m.req.Command)
	}
	if len(m.diff) > 0 {
		rows = append(rows, m.diff...)
	} else if m.req.Arguments != "" && m.req.Command == "" {
		rows = append(rows, DiffLine{DiffHeader, "arguments:"})
		add(DiffSame, m.req.Arguments)
	}
	return rows
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
	x, y, w, h := drawModalFrame(screen, th, bx, by, bw, bh, title, th.Warning)
	if w <= 0 || h < 3 {
		return
	}
	base := tcell.StyleDefault.Background(th.ModalBg).Foreground(th.Text)
	rows := m.body()
	buttons := buttonRows(w)
	if m.feedback != nil {
		buttons = buttons[:1] // the feedback field takes one row
	}
	m.bodyH = max(1, h-1-len(buttons))
	m.top = max(0, min(m.top, len(rows)-m.bodyH))
	for r := 0; r < m.bodyH && m.top+r < len(rows); r++ {
		l := rows[m.top+r]
		if l.Op == '$' {
			n := drawText(screen, x, y+r, w, "$ ", base.Foreground(th.Accent).Bold(true))
			drawText(screen, x+n, y+r, w-n, l.Text, base.Foreground(th.Tool).Bold(true))
			continue
		}
		st, gutter := diffStyle(l.Op, th, base)
		n := drawText(screen, x, y+r, w, gutter, st)
		drawText(screen, x+n, y+r, w-n, l.Text, st)
	}
	if len(rows) > m.bodyH {
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
