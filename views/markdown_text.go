package views

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/rewind-agent/rewind/themes"
)

// mdTextSource bounds how much of a message MarkdownText parses: a label
// shows its first words only.
const mdTextSource = 2000

// MarkdownText returns the start of markdown src as plain text on one line,
// without its syntax (no "##", "**" or fences): for one-line labels such as
// the timeline's. The result is at most n runes, ending in "…" when cut.
func MarkdownText(src string, n int) string {
	s := strings.Join(strings.Fields(strings.Join(markdownBlocks(src, 4*n), " ")), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:max(0, n-1)]) + "…"
	}
	return s
}

// MarkdownPlain is the start of markdown src as plain text, one line per
// block (heading, paragraph, code line), without its syntax: for texts
// drawn plain, such as the generation diff's.
func MarkdownPlain(src string) string {
	var lines []string
	for _, b := range markdownBlocks(src, mdTextSource) {
		for _, l := range strings.Split(strings.TrimRight(b, "\n"), "\n") {
			lines = append(lines, strings.TrimRight(l, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// markdownBlocks is the text of the blocks of markdown src (its first
// mdTextSource bytes), until about limit bytes are taken.
func markdownBlocks(src string, limit int) []string {
	if len(src) > mdTextSource {
		src = src[:mdTextSource]
	}
	r := &mdRenderer{src: []byte(Sanitize(src)), th: themes.Default(), base: tcell.StyleDefault}
	doc := mdParser.Parse(text.NewReader(r.src))
	var out []string
	size := 0
	_ = ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || size > limit {
			return ast.WalkSkipChildren, nil
		}
		var t string
		switch node.(type) {
		case *ast.Paragraph, *ast.Heading, *ast.TextBlock, *east.TableCell:
			t = Line(r.inlines(node, r.base)).String()
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			t = codeText(node, r.src)
		default:
			return ast.WalkContinue, nil
		}
		out = append(out, t)
		size += len(t) + 1
		return ast.WalkSkipChildren, nil
	})
	return out
}

// CodeBlocks returns the text of the code blocks of markdown src, in order.
func CodeBlocks(src string) []string {
	b := []byte(sanitizeKeepTabs(src))
	doc := mdParser.Parse(text.NewReader(b))
	var out []string
	_ = ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		switch node.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if entering {
				out = append(out, codeText(node, b))
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}
