package views

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

func runRows() []RunRow {
	return []RunRow{
		{SessionID: "a", Title: "parser rewrite", WorkDir: "/home/dev/src/parser", State: "streaming", Activity: RunBusy, Step: 2, Elapsed: 75 * time.Second, Tokens: 12345},
		{SessionID: "b", Title: "flaky tests", WorkDir: "/home/dev/src/runner", State: "idle", Activity: RunIdle, Step: 4, Tokens: 800},
	}
}

// TestRunListKeepsTheSelectionOnItsRun: a new listing in another order
// keeps the selection on the same session; one without it keeps the row.
func TestRunListKeepsTheSelectionOnItsRun(t *testing.T) {
	t.Parallel()
	l := NewRunList()
	l.SetRuns(runRows())
	l.InputHandler()(tcell.NewEventKey(tcell.KeyDown, 0, tcell.ModNone), nil)
	if r, _ := l.Selected(); r.SessionID != "b" {
		t.Fatalf("↓ selected %q, want b", r.SessionID)
	}
	rows := runRows()
	rows[0], rows[1] = rows[1], rows[0]
	l.SetRuns(rows)
	if r, _ := l.Selected(); r.SessionID != "b" {
		t.Fatalf("after reordering the selection is on %q, want b", r.SessionID)
	}
	l.SetRuns(rows[1:])
	if r, ok := l.Selected(); !ok || r.SessionID != "a" {
		t.Fatalf("after the selected run ended the selection is on %q (%v), want the remaining a", r.SessionID, ok)
	}
}

// TestRunListDraws: the columns at 80 and 200 columns (the work dir keeps
// its last element, numbers right-aligned), the empty and loading states.
func TestRunListDraws(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		l := NewRunList()
		s := draw(t, l, sz.w, sz.h)
		if !strings.Contains(screenText(s), "Looking for live runs") {
			t.Fatalf("%dx%d: no loading state before the first listing:\n%s", sz.w, sz.h, screenText(s))
		}
		l.SetRuns(nil)
		redraw(s, l)
		if !strings.Contains(screenText(s), "No live runs.") {
			t.Fatalf("%dx%d: no empty state:\n%s", sz.w, sz.h, screenText(s))
		}
		l.SetRuns(runRows())
		redraw(s, l)
		txt := screenText(s)
		for _, want := range []string{"TITLE", "WORK DIR", "STATE", "TOKENS", "parser rewrite", "/parser", "streaming", "1m15s", "12.3k", "flaky tests", "idle"} {
			if !strings.Contains(txt, want) {
				t.Errorf("%dx%d: %q missing:\n%s", sz.w, sz.h, want, txt)
			}
		}
		y := 2 // border, headers
		if r := strings.TrimRight(row(s, y), "│║ "); !strings.HasSuffix(r, "12.3k") {
			t.Errorf("%dx%d: the tokens are not right-aligned: %q", sz.w, sz.h, r)
		}
	}
}

func TestFormatElapsed(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{0: "", 45 * time.Second: "45s", 12*time.Minute + 5*time.Second: "12m05s", 3*time.Hour + 20*time.Minute: "3h20m", 200 * time.Hour: "8d"} {
		if got := formatElapsed(d); got != want {
			t.Errorf("formatElapsed(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestRunListKeepsStateAndNumbersAt80: at 80 columns a long state stays
// whole with the step, elapsed time and tokens; the title and the work dir
// give way (the state was cut: "waiting for approval (WriteFile) · s").
func TestRunListKeepsStateAndNumbersAt80(t *testing.T) {
	t.Parallel()
	l := NewRunList()
	l.SetRuns([]RunRow{
		{SessionID: "a", Title: "a rather long title for a session that goes on and on", WorkDir: "/home/developer/work/clients/acme/monorepo/services/billing-api",
			State: "waiting for approval (WriteFile)", Activity: RunWaiting, Step: 3, Elapsed: 83 * time.Second, Tokens: 48100},
		{SessionID: "b", Title: "flaky tests", WorkDir: "/home/dev/src/runner", State: "idle", Activity: RunIdle, Step: 4, Tokens: 800},
	})
	s := draw(t, l, 80, 24)
	r := row(s, 2)
	for _, want := range []string{"a rather", "waiting for approval (WriteFile)", "   3  1m23s  48.1k"} {
		if !strings.Contains(r, want) {
			t.Errorf("the row lacks %q at 80 columns: %q", want, r)
		}
	}
}
