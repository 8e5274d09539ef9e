package views

import (
	"fmt"
	"strings"
	"testing"
)

// Markdown syntax never reaches the screen: headings show without "##",
// emphasis without "**", and the folded thinking line counts correctly.
func TestMarkdownSyntaxNeverLeaks(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprint(sz.w, "x", sz.h), func(t *testing.T) {
			c := NewConversation()
			c.SetTheme(dark)
			c.SetItems([]Item{
				{Kind: ItemReasoning, Text: "one thought"},
				{Kind: ItemAssistant, Text: "## Setup\n\n### Details\n\nRun **this** now.\n"},
			})
			s := draw(t, c, sz.w, sz.h)
			txt := screenText(s)
			for _, leak := range []string{"##", "**"} {
				if strings.Contains(txt, leak) {
					t.Errorf("%q on screen:\n%s", leak, txt)
				}
			}
			wantFg(t, s, "Setup", dark.Heading)
			wantFg(t, s, "Details", dark.Heading)
			mustFind(t, s, "Thinking (1 line,")
		})
	}
}

func TestMarkdownText(t *testing.T) {
	for src, want := range map[string]string{
		"**Done**: the `flaky` test passes.\n\n## Next\n\n- ship it": "Done: the flaky test passes. Next ship it",
		"```go\nx := 1\n```": "x := 1",
		"plain":              "plain",
	} {
		if got := MarkdownText(src, 120); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", src, got, want)
		}
	}
	if got := MarkdownText("**"+strings.Repeat("word ", 50)+"end**", 20); len([]rune(got)) != 20 || !strings.HasSuffix(got, "…") || strings.Contains(got, "*") {
		t.Errorf("cut label %q", got)
	}
}
