package views

import (
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/themes"
)

// streamDocs are answers whose blocks span deltas in the ways that matter:
// fences with blank lines inside, lists that go on after blank lines (and
// lists that end), quotes, tables, raw HTML across blank lines, a fence
// closed at the wrong indentation inside a list, a link defined after its
// use, tabs.
var streamDocs = []string{
	"# Title\n\nFirst paragraph with `code` and **bold**.\n\nSecond paragraph\nwrapped over two lines.\n\n- one\n- two\n\n- three (the list goes on, now loose)\n\nAfter the list.\n",
	"Intro:\n\n```go\nfunc main() {\n\n\tfmt.Println(\"hi\")\n\n}\n```\n\nAfter the code.\n\n```\nno language\n\n\n```\n\nEnd.",
	"1. first\n2. second\n\n3. third\n\n   indented continuation\n\nplain\n\n10) ten\n11) eleven\n",
	"> a quote\n> over lines\n\n> another quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\ntext after the table\n\n---\n\n***\n\nend",
	"<!-- a comment\n\nstill the comment\n-->\n\nafter the comment\n\n<pre>\nkept\n\nas is\n</pre>\n\ndone",
	"1. Do this:\n   ```bash\n   make\n\n```\n\nThis is in the fence the list's end opened.\n\n```\n\nout again\n",
	"See [the docs][d] and [more].\n\nA paragraph.\n\n[d]: https://example.com\n[more]: https://example.org\n\nlast",
	"\tTabbed\tline\n\nword\tword\n\n- \titem\n\n```\n\tcode\n```\n",
	"Setext heading\n===\n\ntext\n---\n\npara *emph\n\nacross* blank\n\n## h2 ##\n\n    indented code\n\n    more\n\nend",
	"- a\n\n  - nested\n\n    deep para\n\n- b\n\nnot a list\n* star list\n\n+ plus\n\ndone\n",
}

// randomDoc makes a markdown answer of n blocks from a seeded generator.
func randomDoc(rng *rand.Rand, n int) string {
	wordsOf := func(k int) string {
		ws := []string{"alpha", "beta", "`gamma`", "**delta**", "*eps*", "zeta", "eta_theta", "[link](http://x.y)", "a-very-long-word-that-will-not-fit-anywhere-near-a-narrow-width", "日本語", "x"}
		var b strings.Builder
		for i := 0; i < k; i++ {
			if i > 0 {
				if rng.Intn(9) == 0 {
					b.WriteString("\n")
				} else {
					b.WriteString(" ")
				}
			}
			b.WriteString(ws[rng.Intn(len(ws))])
		}
		return b.String()
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch rng.Intn(9) {
		case 0:
			fmt.Fprintf(&b, "%s %s\n", strings.Repeat("#", 1+rng.Intn(3)), wordsOf(3))
		case 1:
			fence := []string{"```", "~~~", "````"}[rng.Intn(3)]
			fmt.Fprintf(&b, "%s%s\n", fence, []string{"", "go", "python"}[rng.Intn(3)])
			for j := rng.Intn(6); j > 0; j-- {
				if rng.Intn(3) == 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "x := %d // %s\n", j, wordsOf(2))
			}
			b.WriteString(fence + "\n")
		case 2, 3:
			marker := []string{"- ", "* ", "1. ", "2) "}[rng.Intn(4)]
			for j := 1 + rng.Intn(4); j > 0; j-- {
				fmt.Fprintf(&b, "%s%s\n", marker, wordsOf(4))
				if rng.Intn(3) == 0 {
					b.WriteString("\n")
				}
				if rng.Intn(4) == 0 {
					fmt.Fprintf(&b, "   %s\n", wordsOf(3))
				}
			}
		case 4:
			fmt.Fprintf(&b, "> %s\n> %s\n", wordsOf(3), wordsOf(3))
		case 5:
			b.WriteString("| a | b |\n|---|:-:|\n")
			for j := rng.Intn(3); j >= 0; j-- {
				fmt.Fprintf(&b, "| %s | %s |\n", wordsOf(1), wordsOf(2))
			}
		case 6:
			b.WriteString([]string{"---\n", "<!--\n\nc\n-->\n", "    indented\n", "<div>\nx\n</div>\n"}[rng.Intn(4)])
		default:
			b.WriteString(wordsOf(5+rng.Intn(20)) + "\n")
		}
		b.WriteString([]string{"\n", "\n", "\n\n", ""}[rng.Intn(4)])
	}
	return b.String()
}

// chunks cuts s into deltas of 1 to max bytes (whole runes).
func chunks(rng *rand.Rand, s string, most int) []string {
	var out []string
	for s != "" {
		n := 1 + rng.Intn(most)
		if n > len(s) {
			n = len(s)
		}
		for n < len(s) && (s[n]&0xC0) == 0x80 {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// streamed renders text through m, as the conversation does.
// streamed and whole take the highlighter cache of the caller's
// goroutine: an hlCache is not safe for concurrent use.
func streamed(m *mdStream, text string, width int, hl *hlCache) []Line {
	th := themes.Default()
	kept, open := m.render(text, width, th, tcell.StyleDefault, hl, CodeLayout{})
	return trimMarkdown(append(append([]Line(nil), kept...), open...))
}

func whole(text string, width int, hl *hlCache) []Line {
	return renderMarkdown(expandTabs(text), width, themes.Default(), tcell.StyleDefault, hl, CodeLayout{})
}

func linesDiff(a, b []Line) string {
	var as, bs []string
	for _, l := range a {
		as = append(as, fmt.Sprintf("%q", l.String()))
	}
	for _, l := range b {
		bs = append(bs, fmt.Sprintf("%q", l.String()))
	}
	return "streamed:\n" + strings.Join(as, "\n") + "\nwhole:\n" + strings.Join(bs, "\n")
}

// TestStreamedAnswerRendersAsTheWholeAnswer: at every delta, the lines of
// the answer rendered block by block (finished blocks kept) are the lines
// of the text so far rendered whole, styles included.
func TestStreamedAnswerRendersAsTheWholeAnswer(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(24))
	docs := append([]string(nil), streamDocs...)
	for i := 0; i < 40; i++ {
		docs = append(docs, randomDoc(rng, 3+rng.Intn(8)))
	}
	// The documents run in parallel, each split at random points of its
	// own (seeded by its index) and with a highlighter cache of its own.
	var keptSome atomic.Int64
	t.Run("docs", func(t *testing.T) {
		for di, doc := range docs {
			t.Run(fmt.Sprint(di), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewSource(int64(1000 + di)))
				var hl hlCache
				for _, width := range []int{12, 70} {
					var m mdStream
					text := ""
					for _, d := range chunks(rng, doc, 16) {
						text += d
						got, want := streamed(&m, text, width, &hl), whole(text, width, &hl)
						if !sameLines(got, want) {
							t.Fatalf("doc %d at width %d, after %d bytes:\n%s\n\n%s", di, width, len(text), text, linesDiff(got, want))
						}
					}
					if m.done > 0 {
						keptSome.Add(1)
					}
				}
			})
		}
	})
	if n := int(keptSome.Load()); n < len(docs) {
		t.Fatalf("only %d of %d streams kept any block", n, 2*len(docs))
	}
}

// TestStreamedAnswerKeepsFinishedBlocks: a 60-paragraph answer streamed
// token by token into a conversation, drawn after each token, renders each
// finished block once; each frame renders only the open paragraph. (Both
// are counts, not times: a frame that rendered the whole answer would
// average 30 paragraphs here; 300 paragraphs drew 6,000 frames, a quarter
// of the package's CPU. The screen is 8 rows: a frame's cost was filling
// and drawing its cells, and the counts do not depend on the height.)
func TestStreamedAnswerKeepsFinishedBlocks(t *testing.T) {
	t.Parallel()
	c, s := newTestConversation(t, 100, 8)
	c.Append(Item{Kind: ItemUser, Text: "go"})
	para := "The quick brown fox `jumps` over the **lazy** dog, again and again, until the line wraps twice over.\n\n"
	var full strings.Builder
	frames := 0
	for i := 0; i < 60; i++ {
		for _, tok := range strings.SplitAfter(para, " ") {
			c.AppendDelta(tok)
			full.WriteString(tok)
			c.Draw(s)
			frames++
		}
	}
	md := c.items[1].md
	if md.done == 0 || md.keptRendered != md.done {
		t.Fatalf("kept %d bytes, rendered %d bytes to keep them: a kept block was rendered again", md.done, md.keptRendered)
	}
	if per := md.openRendered / frames; per > 2*len(para) {
		t.Fatalf("each frame rendered %d bytes of open text on average; the open block is at most %d", per, len(para))
	}
	want := NewConversation()
	want.SetRect(0, 0, 100, 8)
	want.SetItems([]Item{{Kind: ItemUser, Text: "go"}, {Kind: ItemAssistant, Text: full.String()}})
	want.Draw(s)
	if got, exp := c.lines(1), want.lines(1); !sameLines(got, exp) {
		t.Fatalf("the streamed answer is laid out unlike the finished one:\n%s", linesDiff(got, exp))
	}
}

// TestResizeRewrapsStreamedAnswer: a resize lays the kept blocks out again
// once at the new width; the next frames reuse them. (8 rows: the counts
// do not depend on the height, a frame's cost does.)
func TestResizeRewrapsStreamedAnswer(t *testing.T) {
	t.Parallel()
	c, s := newTestConversation(t, 100, 8)
	text := strings.Repeat("Some words that wrap at a narrow width but not at a wide one, more words.\n\n", 40)
	for _, d := range strings.SplitAfter(text, " ") {
		c.AppendDelta(d)
		c.Draw(s)
	}
	md := c.items[0].md
	before := md.keptRendered
	c.SetRect(0, 0, 40, 8)
	s.SetSize(40, 8)
	c.Draw(s)
	if got := md.keptRendered - before; got != md.done {
		t.Fatalf("the resize rendered %d bytes of the %d kept", got, md.done)
	}
	after, done := md.keptRendered, md.done
	c.AppendDelta("More.")
	c.Draw(s)
	if got := md.keptRendered - after; got != md.done-done {
		t.Fatalf("a frame after the resize rendered %d bytes to keep, %d newly kept: kept blocks were rendered again", got, md.done-done)
	}
	want := NewConversation()
	want.SetRect(0, 0, 40, 8)
	want.SetItems([]Item{{Kind: ItemAssistant, Text: text + "More."}})
	want.Draw(s)
	if !sameLines(c.lines(0), want.lines(0)) {
		t.Fatalf("after the resize:\n%s", linesDiff(c.lines(0), want.lines(0)))
	}
	for _, l := range c.lines(0) {
		if l.Width() > c.width {
			t.Fatalf("line %q is wider than %d", l.String(), c.width)
		}
	}
}

// newTestConversation is an empty conversation on a w×h simulation screen.
func newTestConversation(t *testing.T, w, h int) (*Conversation, tcell.SimulationScreen) {
	t.Helper()
	c := NewConversation()
	return c, draw(t, c, w, h)
}

// TestStreamedCodeIsLexedOnce: a Go block streamed token by token, a frame
// after each token, gives chroma each finished line once while the block
// is open (its unfinished last line is drawn plain) and the block once
// when it closes; the frames after that lex nothing. (Lexing the growing
// last line every frame gave chroma ~5 times the block's bytes here.)
func TestStreamedCodeIsLexedOnce(t *testing.T) {
	t.Parallel()
	c, s := newTestConversation(t, 100, 30)
	c.Append(Item{Kind: ItemUser, Text: "go"})
	var code strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&code, "func f%d(x int) int { return x * %d }\n", i, i)
	}
	stream := func(text string) {
		for _, tok := range strings.SplitAfter(text, " ") {
			c.AppendDelta(tok)
			c.Draw(s)
		}
	}
	stream("Here it is:\n\n```go\n")
	stream(code.String())
	open := c.hl.lexed
	if open > code.Len() {
		t.Fatalf("chroma lexed %d bytes while the %d-byte block streamed: the unfinished line was lexed per frame", open, code.Len())
	}
	stream("```\n\nAnd a paragraph after the block, word by word, to the end.")
	whole := c.hl.lexed - open
	if whole > code.Len() {
		t.Fatalf("chroma lexed %d bytes once the %d-byte block closed: it was lexed more than once", whole, code.Len())
	}
	// the rows are those of the finished answer, the block highlighted whole
	want := NewConversation()
	want.SetRect(0, 0, 100, 30)
	want.SetItems([]Item{{Kind: ItemUser, Text: "go"}, {Kind: ItemAssistant, Text: c.items[1].Text}})
	want.Draw(s)
	if got, exp := c.lines(1), want.lines(1); !sameLines(got, exp) {
		t.Fatalf("the streamed answer is laid out unlike the finished one:\n%s", linesDiff(got, exp))
	}
}
