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
	if len(src) > mdTextSource {
		src = src[:mdTextSource]
	}
	r := &mdRenderer{src: []byte(Sanitize(src)), th: themes.Default(), base: tcell.StyleDefault}
	doc := mdParser.Parse(text.NewReader(r.src))
	var b strings.Builder
	_ = ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || b.Len() > 4*n {
			return ast.WalkSkipChildren, nil
		}
		switch node.(type) {
		case *ast.Paragraph, *ast.Heading, *ast.TextBlock, *east.TableCell:
			b.WriteString(Line(r.inlines(node, r.base)).String())
			b.WriteByte(' ')
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			b.WriteString(codeText(node, r.src))
			b.WriteByte(' ')
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	s := strings.Join(strings.Fields(b.String()), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:max(0, n-1)]) + "…"
	}
	return s
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
