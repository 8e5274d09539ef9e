package views

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

func TestThemeSwitchRedraws(t *testing.T) {
	t.Parallel()
	light, _ := themes.Builtin("light")
	ws := newTestWorkspace()
	s := draw(t, ws, 200, 60)
	x, y := mustFind(t, s, "model error: 500")
	if fg(s, x, y) != dark.Error {
		t.Fatal("dark error colour")
	}
	ws.SetTheme(light)
	redraw(s, ws)
	x, y = mustFind(t, s, "model error: 500")
	if fg(s, x, y) != light.Error || bg(s, x, y) != light.Background {
		t.Fatalf("after switching to light: fg %v bg %v", fg(s, x, y), bg(s, x, y))
	}
	_, y = mustFind(t, s, "DEMO")
	if bg(s, 120, y) != light.StatusBarBg {
		t.Fatal("status bar not re-themed")
	}
	x, y = mustFind(t, s, "gen 2 ·")
	if fg(s, x, y) != light.Dim {
		t.Fatal("timeline not re-themed")
	}
}

// TestRandomInputNeverBreaks feeds random bytes and markdown-ish noise to
// every text path: no panic, no control rune on screen.
func TestRandomInputNeverBreaks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"\x1b", "[", "]", "\x07", "\r", "\n", "\t", "```", "go", "`", "*", "_", "#", "> ", "- ", "1. ", "|", "---",
		"\u009b", "\u009d", "\xc2", "\xff", "世", "é", "\u202e", "a", "b", " ", "[red]", "\x00", "\x7f", "~~", "<b>", "http://x"}
	gen := func() string {
		var b strings.Builder
		for i := rng.Intn(200); i > 0; i-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	c := NewConversation()
	o := NewToolOutput()
	l := NewSessionList()
	tl := NewTimeline()
	in := NewInput()
	m := NewApprovalModal()
	for i := 0; i < 200; i++ {
		c.Append(Item{Kind: ItemKind(rng.Intn(6)), Text: gen(), ToolName: gen(), KeyArg: gen(), Args: gen(), Result: gen(), Expanded: rng.Intn(2) == 0})
		c.AppendDelta(gen())
		o.AppendOutput(gen())
		in.SetText(gen())
	}
	l.SetSessions([]SessionRow{{ID: gen(), Title: gen(), WorkDir: gen()}})
	l.SetFilter(gen())
	tl.SetModel(TimelineModel{Checkpoints: []CheckpointRow{{Label: gen()}}, Generations: []GenerationRow{{Gen: 1, Cause: gen(), Note: gen(), Archived: true}}})
	m.SetRequest(ApprovalRequest{Tool: gen(), Diff: gen(), Command: gen(), Arguments: gen()})
	for _, d := range ParseUnifiedDiff(gen()) {
		for _, r := range d.Text {
			if r == 0x1b || r == '\r' {
				t.Fatal("control rune in parsed diff")
			}
		}
	}
	for _, w := range []int{1, 5, 33, 80} {
		for _, p := range []tview.Primitive{c, o, l, tl, in, m} {
			s := draw(t, p, w, 24)
			assertNoControls(t, s)
		}
		for i := 0; i < 30; i++ {
			send(c, key(tcell.KeyPgUp, 0, 0), key(tcell.KeyRune, 'j', 0), key(tcell.KeyEnter, 0, 0))
		}
	}
}
