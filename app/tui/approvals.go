package tui

import (
	"strings"

	"github.com/rewind-agent/rewind/soul"
)

// scopeText says what "approve for session" on req covers, as the approval
// modal shows it: "`go test …`", or "every “edit file”".
func scopeText(req *soul.ApprovalRequest) string {
	if len(req.SessionScopes) == 0 {
		return "every “" + req.Action + "”"
	}
	q := make([]string, len(req.SessionScopes))
	for i, sc := range req.SessionScopes {
		q[i] = "`" + sc + "`"
	}
	return strings.Join(q, ", ")
}
