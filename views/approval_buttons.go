package views

import "github.com/gdamore/tcell/v2"

// approvalButton is one answer key of the approval modal.
type approvalButton struct {
	key, label string
	reject     bool
}

var approvalButtons = []approvalButton{
	{"y", "approve", false},
	{"a", "approve for session", false},
	{"n", "reject", true},
	{"f", "reject with feedback", true},
}

// planButtons are the answers to a plan (ExitPlanMode): f keeps planning
// with the user's feedback, n rejects it; plan mode stays on for both.
var planButtons = []approvalButton{
	{"y", "approve plan", false},
	{"f", "keep planning (feedback)", true},
	{"n", "reject", true},
}

// buttons are the answer keys of the request shown.
func (m *ApprovalModal) buttons() []approvalButton {
	if m.req.Plan != "" {
		return planButtons
	}
	return approvalButtons
}

const buttonGap = 2

// buttonRows packs the answer keys into rows of at most w columns, whole
// buttons only, so a label is never cut ("[f] re").
func buttonRows(buttons []approvalButton, w int) [][]approvalButton {
	var rows [][]approvalButton
	cw := 0
	for _, b := range buttons {
		bw := strWidth("[" + b.key + "] " + b.label)
		if len(rows) == 0 || cw+buttonGap+bw > w {
			rows = append(rows, nil)
			cw = -buttonGap
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], b)
		cw += buttonGap + bw
	}
	return rows
}

// drawButtons draws rows of answer keys from (x, y).
func (m *ApprovalModal) drawButtons(screen tcell.Screen, x, y, w int, rows [][]approvalButton, base tcell.Style) {
	th := m.theme
	for r, row := range rows {
		cx := x
		for _, b := range row {
			col := th.ToolOK
			label := base
			switch {
			case b.reject:
				col = th.Error
			case !m.seenEnd: // approving waits for the end of the command
				col, label = th.Dim, base.Foreground(th.Dim)
			}
			cx += drawText(screen, cx, y+r, x+w-cx, "["+b.key+"] ", base.Foreground(col).Bold(true))
			cx += drawText(screen, cx, y+r, x+w-cx, b.label, label) + buttonGap
		}
	}
}
