package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// screenWords is the set of whole words on screen (split at spaces and
// box-drawing borders).
func screenWords(s tcell.SimulationScreen) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(screenText(s), func(r rune) bool {
		return r == ' ' || r == '\n' || (r >= 0x2500 && r <= 0x259f) || r == '▶' || r == '◉'
	}) {
		words[w] = true
	}
	return words
}

// wantWholeWords fails unless every word of phrase is on screen whole.
func wantWholeWords(t *testing.T, s tcell.SimulationScreen, phrase string) {
	t.Helper()
	words := screenWords(s)
	for _, w := range strings.Fields(phrase) {
		if !words[w] {
			t.Errorf("%q of %q is not on screen whole:\n%s", w, phrase, screenText(s))
			return
		}
	}
}

var hintSizes = []struct{ w, h int }{{80, 24}, {120, 40}}

func TestPreviewBannerKeysAreNeverCut(t *testing.T) {
	banner := "PREVIEW · before checkpoint 3 · 12 later messages not shown · Enter revert · Esc back"
	// the conversation pane's width in the workspace at 80 and 120 columns
	for _, w := range []int{48, 72} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			c := NewConversation()
			c.SetTheme(dark)
			c.SetItems(sampleItems())
			c.SetPreview(banner)
			s := draw(t, c, w, 20)
			wantWholeWords(t, s, strings.ReplaceAll(banner, "·", ""))
			mustFind(t, s, "Enter revert")
			mustFind(t, s, "Esc back")
		})
	}
}

func TestHelpRowsWrapInsteadOfCutting(t *testing.T) {
	desc := "walks backwards through every earlier prompt of this directory, across restarts"
	for _, sz := range hintSizes {
		t.Run(fmt.Sprint(sz.w), func(t *testing.T) {
			o := NewHelpOverlay()
			o.SetTheme(dark)
			o.SetContent([]HelpSection{{Title: "Input", Bindings: []KeyBinding{
				bind(desc, nil, K(tcell.KeyUp)),
				bind("new line", nil, K(tcell.KeyEnter, tcell.ModAlt), K(tcell.KeyEnter, tcell.ModShift), K(tcell.KeyCtrlJ)),
			}}}, nil)
			s := draw(t, o, sz.w, sz.h)
			wantWholeWords(t, s, desc)
			mustFind(t, s, "Alt+Enter/Shift+Enter/Ctrl-J")
		})
	}
}

func TestApprovalButtonsAreWhole(t *testing.T) {
	for _, sz := range hintSizes {
		t.Run(fmt.Sprint(sz.w), func(t *testing.T) {
			m := NewApprovalModal()
			m.SetTheme(dark)
			m.SetRequest(ApprovalRequest{Tool: "Shell", Action: "run shell command", Command: "go test ./..."})
			s := draw(t, m, sz.w, sz.h)
			for _, b := range []string{"[y] approve", "[a] approve for session", "[n] reject", "[f] reject with feedback"} {
				mustFind(t, s, b)
			}
		})
	}
}

func TestPaneTitleLosesWholeParts(t *testing.T) {
	title := "Sessions · type to filter · / full-text search · Enter resume · Ctrl-R rename · Ctrl-D delete · Esc close"
	for _, sz := range hintSizes {
		t.Run(fmt.Sprint(sz.w), func(t *testing.T) {
			l := NewSessionList()
			l.SetTheme(dark)
			l.SetPaneTitle(title)
			s := draw(t, l, sz.w, sz.h)
			top := row(s, 0)
			if !strings.Contains(top, "Sessions · type to filter") {
				t.Fatalf("title row %q", top)
			}
			for _, part := range strings.Split(title, " · ") {
				if i := strings.Index(top, strings.Fields(part)[0]); i >= 0 && !strings.Contains(top, part) && !strings.Contains(top, "…") {
					t.Errorf("part %q cut in %q", part, top)
				}
			}
			if !strings.Contains(top, "…") && !strings.Contains(top, "Esc close") {
				t.Errorf("title cut without a mark: %q", top)
			}
		})
	}
}

func TestStatusBarKeepsTheTokenCount(t *testing.T) {
	for _, w := range []int{60, 80, 120} {
		b := NewStatusBar()
		b.SetTheme(dark)
		b.SetStatus(Status{Model: "rewind-demo", SessionTitle: "a long session title that goes on", Step: 1, Tokens: 814,
			MaxContext: 128000, ContextPercent: 3, Demo: true})
		b.SetMessage("interrupted · press Ctrl-C again to quit", false)
		s := draw(t, b, w, 1)
		mustFind(t, s, "814 tok")
		wantWholeWords(t, s, "interrupted")
	}
}

func TestFitWords(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"press Ctrl-C again to quit", 40, "press Ctrl-C again to quit"},
		{"press Ctrl-C again to quit", 15, "press Ctrl-C…"},
		{"supercalifragilistic", 6, "super…"},
	} {
		if got := fitWords(c.s, c.w); got != c.want {
			t.Errorf("fitWords(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
	if got := wrapParts("a · bb · ccc", 6); strings.Join(got, "|") != "a · bb|ccc" {
		t.Errorf("wrapParts = %q", got)
	}
}

func TestHelpKeepsWrappedRowsInOneColumn(t *testing.T) {
	rows := []helpRow{{key: "a", desc: "one"}, {key: "b", desc: "two"}, {desc: "two, continued"}, {key: "c", desc: "three"}}
	got := keepTogether(rows, 2)
	if len(got) != 5 || got[2].key != "b" || got[1].key != "" || got[1].desc != "" {
		t.Fatalf("rows %+v: b and its continuation should start the second column", got)
	}
}
