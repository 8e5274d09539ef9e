package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// longCode is one code line far wider than any pane.
var longCode = "BEGIN" + strings.Repeat("_x", 90) + "END"

// Long lines wrap by default everywhere: code blocks, expanded tool
// results, the tool output pane and diffs; nothing is cut.
func TestLongLinesWrapEverywhere(t *testing.T) {
	for _, w := range []int{48, 72} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			c := NewConversation()
			c.SetTheme(dark)
			c.SetItems([]Item{
				{Kind: ItemAssistant, Text: "Here:\n\n```go\n" + longCode + "\n```\n"},
				{Kind: ItemTool, ID: "t", ToolName: "Shell", KeyArg: "make", Result: "RESULT" + strings.Repeat(" word", 40) + " TAIL", Status: ToolOK, Expanded: true},
			})
			s := draw(t, c, w, 30)
			mustFind(t, s, "BEGIN")
			mustFind(t, s, "END")
			mustFind(t, s, "RESULT")
			mustFind(t, s, "TAIL")

			o := NewToolOutput()
			o.SetTheme(dark)
			o.SetTool(ToolCallInfo{ID: "c", Name: "Shell"})
			o.AppendOutput("first\n" + longCode + "\nlast\n")
			s = draw(t, o, w, 12)
			for _, want := range []string{"first", "BEGIN", "END", "last"} {
				mustFind(t, s, want)
			}

			m := NewApprovalModal()
			m.SetTheme(dark)
			m.SetRequest(ApprovalRequest{Tool: "WriteFile", Action: "edit file", Diff: "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-old\n+" + longCode + "\n"})
			s = draw(t, m, w+32, 24)
			mustFind(t, s, "BEGIN")
			mustFind(t, s, "END")

			d := NewDiffView()
			d.SetTheme(dark)
			d.SetDiff("diff", []DiffLine{{DiffAdd, longCode}})
			s = draw(t, d, w, 12)
			mustFind(t, s, "BEGIN")
			mustFind(t, s, "END")
		})
	}
}

// w switches code blocks to horizontal scrolling: a row cut at the edge
// ends in "…", and → brings the rest into view.
func TestCodeBlocksScrollSideways(t *testing.T) {
	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems([]Item{{Kind: ItemAssistant, Text: "```\n" + longCode + "\n```\n"}})
	s := draw(t, c, 48, 10)
	mustFind(t, s, "END")
	send(c, key(tcell.KeyRune, 'w', 0))
	redraw(s, c)
	_, y := mustFind(t, s, "BEGIN")
	if r := strings.TrimRight(row(s, y), " │"); !strings.HasSuffix(r, "…") {
		t.Fatalf("an unwrapped code row cut without …: %q", r)
	}
	if _, _, ok := find(s, "END"); ok {
		t.Fatal("the code still wraps after w")
	}
	for i := 0; i < 19; i++ {
		send(c, key(tcell.KeyRight, 0, 0))
	}
	redraw(s, c)
	mustFind(t, s, "END")
	if _, _, ok := find(s, "BEGIN"); ok {
		t.Fatal("→ did not scroll the code")
	}
	send(c, key(tcell.KeyRune, 'w', 0))
	redraw(s, c)
	mustFind(t, s, "BEGIN")
	mustFind(t, s, "END")

	o := NewToolOutput()
	o.SetTheme(dark)
	o.SetTool(ToolCallInfo{ID: "c", Name: "Shell"})
	o.AppendOutput(longCode + "\n")
	s = draw(t, o, 48, 8)
	mustFind(t, s, "END")
	send(o, key(tcell.KeyRune, 'w', 0))
	redraw(s, o)
	if _, _, ok := find(s, "END"); ok {
		t.Fatal("tool output still wraps after w")
	}
	mustFind(t, s, "…")
}

func TestClipLineAlwaysMarksTheCut(t *testing.T) {
	l := Line{{"abcdefghij", tcell.StyleDefault}, {"k", tcell.StyleDefault}}
	if got := clipLine(l, 10).String(); got != "abcdefghi…" {
		t.Fatalf("clipLine = %q", got)
	}
}

// A diff row wraps between words, never inside one.
func TestDiffWrapsAtWords(t *testing.T) {
	t.Parallel()
	text := "the model read the README first and then planned the whole refactor"
	rows := wrapDiff([]DiffLine{{DiffAdd, text}}, 22)
	if len(rows) < 3 {
		t.Fatalf("%d rows, want the line wrapped", len(rows))
	}
	var got []string
	for _, r := range rows {
		if strWidth(r.Text) > 20 {
			t.Errorf("row %q wider than 20", r.Text)
		}
		got = append(got, strings.TrimSpace(r.Text))
	}
	if strings.Join(got, " ") != text {
		t.Errorf("rows %q do not break between words", got)
	}
}
