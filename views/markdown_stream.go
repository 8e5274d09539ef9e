package views

import (
	"slices"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/themes"
)

// mdStream renders a markdown text that only grows (a reply being
// streamed) a block at a time: the top-level blocks that no later text can
// change are rendered and wrapped once and kept; each render parses and
// lays out only the text after them, the block still open. The lines are
// those renderMarkdown gives for the whole text.
//
// A kept block is one that a later top-level block has closed: a line
// after a blank line, at the left margin, that is not a list item (which
// could continue a list) and not inside a fenced code block or a raw HTML
// block (which run across blank lines). Before keeping, the split render
// is checked against rendering the open text whole, so a block the scan
// misjudged (a fence closed at the wrong indentation) stays open. A link
// reference definition can change links anywhere before it: from one on,
// the text is rendered whole each time.
type mdStream struct {
	width int
	code  CodeLayout

	done  int    // bytes of the text rendered and kept
	kept  []Line // the lines of text[:done], final
	whole bool   // a link reference definition: no blocks are kept

	// the boundary scan over complete lines
	scanned   int    // bytes of text scanned
	prevBlank bool   // the last scanned line was blank
	fence     string // the open fence ("```", "~~~~"), "" outside one
	rawEnd    string // the end marker of an open raw HTML block, "" outside one
	boundary  int    // the latest block start found after done, 0 none

	gen int // counts resets: kept lines laid out from an older gen are stale

	// bytes rendered to be kept, and as the open rest (tests: a kept block
	// is rendered once, then reused)
	keptRendered, openRendered int
}

// reset forgets everything kept (the text was replaced, or the theme or
// code layout changed).
func (m *mdStream) reset() {
	*m = mdStream{gen: m.gen + 1, keptRendered: m.keptRendered, openRendered: m.openRendered}
}

// render returns the final lines of text's kept blocks (which only grow
// while text only grows) and the lines of the rest; kept followed by open,
// trimmed by trimMarkdown, is renderMarkdown(text).
func (m *mdStream) render(text string, width int, th themes.Theme, base tcell.Style, hl *hlCache, code CodeLayout) (kept, open []Line) {
	if width != m.width || code != m.code || len(text) < m.done {
		m.reset()
		m.width, m.code = width, code
	}
	// Tabs are spaces drawn; expanding part by part is expanding the
	// whole (a tab is always tabWidth spaces).
	if m.whole {
		return nil, renderMarkdownBlocks(expandTabs(text), width, th, base, hl, code, false)
	}
	m.scan(text)
	if m.partialStartsBlock(text) {
		m.boundary = m.scanned
	}
	if m.whole || m.partialRefDef(text) {
		m.whole = true
		m.kept, m.done = nil, 0
		return nil, renderMarkdownBlocks(expandTabs(text), width, th, base, hl, code, false)
	}
	m.openRendered += len(text) - m.done
	if b := m.boundary; b > m.done {
		m.boundary = 0
		open, kinds := renderMarkdownKinds(expandTabs(text[m.done:]), width, th, base, hl, code, m.afterText())
		head, headKinds := renderMarkdownKinds(expandTabs(text[m.done:b]), width, th, base, hl, code, m.afterText())
		afterHead := len(head) > 0 && len(head[len(head)-1]) != 0 || len(head) == 0 && m.afterText()
		tail, tailKinds := renderMarkdownKinds(expandTabs(text[b:]), width, th, base, hl, code, afterHead)
		// the same blocks, drawn the same: b starts a block of the whole
		if slices.Equal(append(headKinds, tailKinds...), kinds) && len(head)+len(tail) == len(open) &&
			sameLines(head, open[:len(head)]) && sameLines(tail, open[len(head):]) {
			m.keptRendered += b - m.done
			m.kept = append(m.kept, head...)
			m.done = b
			return m.kept, tail
		}
		return m.kept, open
	}
	return m.kept, renderMarkdownBlocks(expandTabs(text[m.done:]), width, th, base, hl, code, m.afterText())
}

// partialStartsBlock reports whether text's last, unfinished line starts a
// paragraph after a blank line: its first letter can begin nothing that
// continues the block before (a list item, a quote, a fence, a table row).
func (m *mdStream) partialStartsBlock(text string) bool {
	if m.fence != "" || m.rawEnd != "" || !m.prevBlank || m.scanned <= m.done || m.scanned >= len(text) {
		return false
	}
	c := text[m.scanned]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// partialRefDef reports whether text's last, unfinished line (outside a
// fence or raw HTML) is already a link reference definition.
func (m *mdStream) partialRefDef(text string) bool {
	return m.fence == "" && m.rawEnd == "" && m.scanned < len(text) && isLinkRefDef(text[m.scanned:])
}

// afterText says the kept lines end in a non-blank line.
func (m *mdStream) afterText() bool {
	return len(m.kept) > 0 && len(m.kept[len(m.kept)-1]) != 0
}

// scan walks the complete lines of text not scanned yet, noting the last
// line that starts a top-level block no later text can join to the one
// before it.
func (m *mdStream) scan(text string) {
	for m.scanned < len(text) {
		nl := strings.IndexByte(text[m.scanned:], '\n')
		if nl < 0 {
			return
		}
		start := m.scanned
		line := text[start : start+nl]
		m.scanned = start + nl + 1
		blank := strings.TrimSpace(line) == ""
		switch {
		case m.fence != "":
			if closesFence(line, m.fence) {
				m.fence = ""
			}
		case m.rawEnd != "":
			if strings.Contains(strings.ToLower(line), m.rawEnd) {
				m.rawEnd = ""
			}
		default:
			if !blank && m.prevBlank && start > m.done && line[0] != ' ' && line[0] != '\t' && !isListItemLine(line) {
				m.boundary = start
			}
			if isLinkRefDef(line) {
				m.whole = true
				return
			}
			if f := openingFence(line); f != "" {
				m.fence = f
			} else if end := rawHTMLEnd(line); end != "" {
				m.rawEnd = end
			}
		}
		m.prevBlank = blank
	}
}

// openingFence is the fence a line opens ("```", "~~~~"), or "".
func openingFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes the fenced block opened by fence.
func closesFence(line, fence string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}

// isListItemLine reports whether line starts like a list item ("- ", "*",
// "+ x", "12. ", "3)").
func isListItemLine(line string) bool {
	switch line[0] {
	case '-', '*', '+':
		return len(line) == 1 || line[1] == ' ' || line[1] == '\t'
	}
	n := 0
	for n < len(line) && n < 10 && line[n] >= '0' && line[n] <= '9' {
		n++
	}
	if n == 0 || n == len(line) || line[n] != '.' && line[n] != ')' {
		return false
	}
	return n+1 == len(line) || line[n+1] == ' ' || line[n+1] == '\t'
}

// isLinkRefDef reports whether line looks like a link reference definition
// ("[label]: url"), which changes links before it too.
func isLinkRefDef(line string) bool {
	// one may stand in a quote or a list item too
	t := line
	for {
		u := strings.TrimLeft(t, " \t>")
		if u != "" && isListItemLine(u) {
			u = strings.TrimLeft(u, "-*+0123456789.)")
		}
		if u == t {
			break
		}
		t = u
	}
	return strings.HasPrefix(t, "[") && strings.Index(t, "]:") > 1
}

// rawHTMLEnd is, for a line that opens a raw HTML block running across
// blank lines (CommonMark's kinds 1 to 5: <pre>, <script>, <style>,
// <textarea>, comments, processing instructions, declarations, CDATA),
// the lower-case marker that ends it, unless the line holds it already.
func rawHTMLEnd(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || !strings.HasPrefix(t, "<") {
		return ""
	}
	lower := strings.ToLower(t)
	end := ""
	switch {
	case strings.HasPrefix(lower, "<!--"):
		end = "-->"
		lower = lower[4:]
	case strings.HasPrefix(lower, "<?"):
		end = "?>"
		lower = lower[2:]
	case strings.HasPrefix(lower, "<![cdata["):
		end = "]]>"
		lower = lower[9:]
	case len(lower) > 2 && lower[1] == '!' && lower[2] >= 'a' && lower[2] <= 'z':
		end = ">"
		lower = lower[2:]
	default:
		for _, tag := range []string{"pre", "script", "style", "textarea"} {
			if strings.HasPrefix(lower[1:], tag) {
				rest := lower[1+len(tag):]
				if rest == "" || rest[0] == ' ' || rest[0] == '>' || rest[0] == '\t' {
					end = "</" + tag + ">"
				}
			}
		}
	}
	if end == "" || strings.Contains(lower, end) {
		return ""
	}
	return end
}

// sameLines reports whether a and b are the same lines, span by span.
func sameLines(a, b []Line) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}
