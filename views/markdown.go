package views

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/chroma/v2"
	"github.com/gdamore/tcell/v2"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/rewind-agent/rewind/themes"
	"github.com/rewind-agent/rewind/third_party/chroma/lexers"
	"github.com/rewind-agent/third_party/goldmark/extension"
)

var mdParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList)).Parser()

// mdRenderer turns markdown into wrapped, styled lines for one width.
type mdRenderer struct {
	hl    *hlCache
	src   []byte
	th    themes.Theme
	base  tcell.Style
	width int
	code  CodeLayout
	out   []Line
	// afterText: the lines before src (rendered separately, a streamed
	// reply's kept blocks) end in a non-blank line, which a blank before
	// src's first output needs to know.
	afterText bool
}

// CodeLayout says how code blocks fit the width: wrapped (the default), or
// cut and shifted sideways by Shift columns (horizontal scrolling), with
// "…" where a row goes on out of sight.
type CodeLayout struct {
	NoWrap bool
	Shift  int
}

// renderMarkdown renders sanitised markdown src into lines at most width
// columns wide: headings, lists, emphasis, code spans, links, block quotes,
// tables as text, and fenced code highlighted with the theme's chroma style
// (through the highlight cache hl, which may be nil) and laid out as code
// says.
func renderMarkdown(src string, width int, th themes.Theme, base tcell.Style, hl *hlCache, code CodeLayout) []Line {
	return trimMarkdown(renderMarkdownBlocks(src, width, th, base, hl, code, false))
}

// renderMarkdownBlocks renders src's blocks, keeping the blank line after
// the last: the lines of text rendered in parts (a streamed reply, block by
// block) are the parts' lines one after the other. afterText says the
// lines before src end in a non-blank line.
func renderMarkdownBlocks(src string, width int, th themes.Theme, base tcell.Style, hl *hlCache, code CodeLayout, afterText bool) []Line {
	out, _ := renderMarkdownKinds(src, width, th, base, hl, code, afterText)
	return out
}

// renderMarkdownKinds is renderMarkdownBlocks that also returns the kinds
// of src's top-level blocks.
func renderMarkdownKinds(src string, width int, th themes.Theme, base tcell.Style, hl *hlCache, code CodeLayout, afterText bool) ([]Line, []ast.NodeKind) {
	if width < 4 {
		width = 4
	}
	r := &mdRenderer{src: []byte(src), th: th, base: base, width: width, hl: hl, code: code, afterText: afterText}
	doc := mdParser.Parse(text.NewReader(r.src))
	r.blocks(doc, nil, nil, width)
	var kinds []ast.NodeKind
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		kinds = append(kinds, n.Kind())
	}
	return r.out, kinds
}

// trimMarkdown drops the blank lines after the last block; no lines is one
// empty line.
func trimMarkdown(out []Line) []Line {
	for len(out) > 0 && len(out[len(out)-1]) == 0 {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		out = append(out, Line{})
	}
	return out
}

// blocks renders the block children of n. first/rest are the prefixes of
// the first and later rows (list bullets, quote bars).
func (r *mdRenderer) blocks(n ast.Node, first, rest Line, width int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		p := first
		if c != n.FirstChild() {
			p = rest
		}
		r.block(c, p, rest, width)
		first = rest
	}
}

func (r *mdRenderer) blank(prefix Line) {
	if len(r.out) > 0 && len(r.out[len(r.out)-1]) != 0 || len(r.out) == 0 && r.afterText {
		trimmed := make(Line, 0, len(prefix))
		for _, s := range prefix {
			if t := strings.TrimRight(s.Text, " "); t != "" {
				trimmed = append(trimmed, Span{t, s.Style})
			}
		}
		r.out = append(r.out, trimmed)
	}
}

func (r *mdRenderer) block(n ast.Node, first, rest Line, width int) {
	switch n := n.(type) {
	case *ast.Heading:
		st := r.base.Foreground(r.th.Heading).Bold(true)
		if n.Level == 1 {
			st = st.Underline(true)
		}
		// the level shows in the style, not as "##" (markdown syntax never leaks)
		r.out = append(r.out, wrapSpans(r.inlines(n, st), width, first, rest)...)
		r.blank(rest)
	case *ast.Paragraph:
		r.out = append(r.out, wrapSpans(r.inlines(n, r.base), width, first, rest)...)
		if !isTightItem(n) {
			r.blank(rest)
		}
	case *ast.TextBlock:
		r.out = append(r.out, wrapSpans(r.inlines(n, r.base), width, first, rest)...)
	case *ast.ThematicBreak:
		w := width - rest.Width()
		r.out = append(r.out, append(append(Line{}, first...), Span{strings.Repeat("─", max(1, w)), r.base.Foreground(r.th.Dim)}))
		r.blank(rest)
	case *ast.Blockquote:
		bar := Span{"│ ", r.base.Foreground(r.th.Quote)}
		f := append(append(Line{}, first...), bar)
		rs := append(append(Line{}, rest...), bar)
		saved := r.base
		r.base = r.base.Foreground(r.th.Quote).Italic(true)
		r.blocks(n, f, rs, width)
		r.base = saved
		// the blank inside the quote already ends it
	case *ast.List:
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			var marker string
			if n.IsOrdered() {
				marker = strconv.Itoa(num) + ". "
				num++
			} else {
				marker = "• "
			}
			mk := Span{marker, r.base.Foreground(r.th.Accent)}
			pad := Span{strings.Repeat(" ", strWidth(marker)), r.base}
			f := append(append(Line{}, first...), mk)
			rs := append(append(Line{}, rest...), pad)
			r.blocks(item, f, rs, width)
			first = rest
		}
		if n.Parent() != nil && n.Parent().Kind() == ast.KindDocument {
			r.blank(rest)
		}
	case *ast.FencedCodeBlock:
		lang := string(n.Language(r.src))
		open := n.NextSibling() == nil && n.Parent() != nil && n.Parent().Kind() == ast.KindDocument && !endsWithFence(r.src)
		// an open block is the last: the text ends in its last line
		unfinished := open && len(r.src) > 0 && r.src[len(r.src)-1] != '\n'
		r.codeBlock(codeText(n, r.src), lang, open, unfinished, first, rest, width)
		r.blank(rest)
	case *ast.CodeBlock:
		r.codeBlock(codeText(n, r.src), "", false, false, first, rest, width)
		r.blank(rest)
	case *ast.HTMLBlock:
		st := r.base.Foreground(r.th.Dim)
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			s := strings.TrimRight(string(seg.Value(r.src)), "\n")
			r.out = append(r.out, wrapSpans([]Span{{s, st}}, width, first, rest)...)
			first = rest
		}
		r.blank(rest)
	case *east.Table:
		r.table(n, first, rest, width)
		r.blank(rest)
	default:
		if n.Type() == ast.TypeBlock && n.HasChildren() {
			r.blocks(n, first, rest, width)
		}
	}
}

func isTightItem(n ast.Node) bool {
	p := n.Parent()
	if p == nil || p.Kind() != ast.KindListItem {
		return false
	}
	if l, ok := p.Parent().(*ast.List); ok {
		return l.IsTight
	}
	return false
}

func codeText(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return strings.TrimRight(b.String(), "\n")
}

// endsWithFence reports whether the last non-blank line of src is a code
// fence, i.e. the last fenced block is closed.
func endsWithFence(src []byte) bool {
	s := strings.TrimRight(string(src), " \t\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~")
}

// hlCache keeps highlighted code so that a reply being streamed does not
// run chroma over its finished code blocks on every frame. The block that
// is still open (being streamed) is highlighted line by line, each
// finished line once and cached, its unfinished last line drawn plain;
// once closed, the block is highlighted whole, once. (Chroma costs about
// 4 µs a byte: lexing the growing last line on every frame was a tenth of
// the agent's CPU while a fast model streamed code.)
type hlCache struct {
	m map[string][]Line

	lexed int // bytes given to chroma (tests)
}

const hlCacheMax = 2048

func (c *hlCache) highlight(src, lang string, th themes.Theme, base tcell.Style) []Line {
	if c == nil {
		return HighlightCode(src, lang, th, base)
	}
	k := th.ChromaStyle + "\x00" + lang + "\x00" + src
	if v, ok := c.m[k]; ok {
		return v
	}
	c.lexed += len(src)
	v := HighlightCode(src, lang, th, base)
	if c.m == nil || len(c.m) >= hlCacheMax {
		c.m = make(map[string][]Line)
	}
	c.m[k] = v
	return v
}

// codeBlock renders a code block; an open block (still streaming) is
// highlighted per finished line so that they are not lexed again, and
// its unfinished last line (unfinished) is drawn plain until its newline
// comes.
func (r *mdRenderer) codeBlock(src, lang string, open, unfinished bool, first, rest Line, width int) {
	bg := r.base.Background(r.th.CodeBg)
	var rows []Line
	switch {
	case open && r.hl != nil:
		lines := strings.Split(src, "\n")
		for i, l := range lines {
			row := Line{{l, bg.Foreground(r.th.Code)}}
			if i < len(lines)-1 || !unfinished {
				if hl := r.hl.highlight(l, lang, r.th, bg); len(hl) > 0 {
					row = hl[0]
				} else {
					row = Line{}
				}
			}
			rows = append(rows, row)
		}
	case lang != "" || src != "":
		rows = r.hl.highlight(src, lang, r.th, bg)
	}
	if lang != "" {
		r.out = append(r.out, append(append(Line{}, first...), Span{" " + SanitizeLine(lang) + " ", bg.Foreground(r.th.Dim)}))
		first = rest
	}
	for _, row := range rows {
		avail := max(1, width-rest.Width()-1)
		var parts []Line
		if r.code.NoWrap {
			parts = []Line{shiftLine(row, r.code.Shift, avail, bg.Foreground(r.th.Dim))}
		} else {
			parts = wrapCode(row, avail)
		}
		for _, p := range parts {
			l := make(Line, 0, len(first)+len(p)+2)
			l = append(append(append(l, first...), Span{" ", bg}), p...)
			if pad := width - l.Width(); pad > 0 {
				l = append(l, Span{blanks(pad), bg})
			}
			r.out = append(r.out, l)
			first = rest
		}
	}
}

// blankRun holds the padding of code rows: a row's padding is a slice of
// it, not a string of its own (a streamed block's rows are laid out again
// on every frame).
var blankRun = strings.Repeat(" ", 512)

// blanks is n spaces.
func blanks(n int) string {
	if n <= len(blankRun) {
		return blankRun[:n]
	}
	return strings.Repeat(" ", n)
}

// ChromaColour converts a chroma colour to tcell (ColorDefault when unset).
func ChromaColour(c chroma.Colour) tcell.Color {
	if !c.IsSet() {
		return tcell.ColorDefault
	}
	return tcell.NewRGBColor(int32(c.Red()), int32(c.Green()), int32(c.Blue()))
}

// lexerByName keeps lexers.Get's answer per fence language (nil: none).
// A name chroma does not know (a fence's info string still streaming in,
// "pyth") makes it try every lexer's file patterns, ~50 µs, at each frame
// of the open block; the names a process sees are few, and past
// lexerByNameMax new ones are looked up without being kept.
var (
	lexerByName  sync.Map // string → chroma.Lexer
	lexerByNameN atomic.Int32
)

const lexerByNameMax = 1024

func lexerNamed(lang string) chroma.Lexer {
	if v, ok := lexerByName.Load(lang); ok {
		l, _ := v.(chroma.Lexer)
		return l
	}
	l := lexers.Get(lang)
	if lexerByNameN.Add(1) <= lexerByNameMax {
		lexerByName.Store(lang, l)
	}
	return l
}

// HighlightCode tokenises src with chroma (lexer by language name, or
// guessed) and returns one line per source line, coloured with the
// theme's chroma style over base (whose background is kept).
func HighlightCode(src, lang string, th themes.Theme, base tcell.Style) []Line {
	var lexer chroma.Lexer
	if lang != "" {
		lexer = lexerNamed(lang)
	}
	if lexer == nil {
		lexer = lexers.Analyse(src)
	}
	plain := func() []Line {
		var out []Line
		for _, l := range strings.Split(src, "\n") {
			out = append(out, Line{{l, base.Foreground(th.Code)}})
		}
		return out
	}
	if lexer == nil {
		return plain()
	}
	lexer = chroma.Coalesce(lexer)
	it, err := lexer.Tokenise(nil, src)
	if err != nil {
		return plain()
	}
	style := themes.ChromaStyle(th.ChromaStyle)
	out := []Line{{}}
	for tok := it(); tok != chroma.EOF; tok = it() {
		e := style.Get(tok.Type)
		st := base
		if fg := ChromaColour(e.Colour); fg != tcell.ColorDefault {
			st = st.Foreground(fg)
		} else {
			st = st.Foreground(th.Code)
		}
		if e.Bold == chroma.Yes {
			st = st.Bold(true)
		}
		if e.Italic == chroma.Yes {
			st = st.Italic(true)
		}
		if e.Underline == chroma.Yes {
			st = st.Underline(true)
		}
		parts := strings.Split(tok.Value, "\n")
		for i, p := range parts {
			if i > 0 {
				out = append(out, Line{})
			}
			if p != "" {
				out[len(out)-1] = append(out[len(out)-1], Span{p, st})
			}
		}
	}
	if len(out) > 1 && len(out[len(out)-1]) == 0 {
		out = out[:len(out)-1]
	}
	return out
}

// table renders a GFM table as aligned text with │ separators.
func (r *mdRenderer) table(t *east.Table, first, rest Line, width int) {
	var rows [][]string
	header := -1
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		if row.Kind() == east.KindTableHeader && header < 0 {
			header = len(rows)
		}
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, Line(r.inlines(c, r.base)).String())
		}
		rows = append(rows, cells)
	}
	ncol := 0
	for _, row := range rows {
		ncol = max(ncol, len(row))
	}
	widths := make([]int, ncol)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], strWidth(c))
		}
	}
	sep := Span{" │ ", r.base.Foreground(r.th.Dim)}
	for ri, row := range rows {
		st := r.base
		if ri == header {
			st = st.Bold(true)
		}
		var spans []Span
		for i := 0; i < ncol; i++ {
			if i > 0 {
				spans = append(spans, sep)
			}
			c := ""
			if i < len(row) {
				c = row[i]
			}
			if i < ncol-1 {
				c = padRight(c, widths[i])
			}
			spans = append(spans, Span{c, st})
		}
		r.out = append(r.out, wrapSpans(spans, width, first, rest)...)
		first = rest
		if ri == header {
			var parts []string
			for _, w := range widths {
				parts = append(parts, strings.Repeat("─", w))
			}
			r.out = append(r.out, clipLine(append(append(Line{}, rest...), Span{strings.Join(parts, "─┼─"), r.base.Foreground(r.th.Dim)}), width))
		}
	}
}

// inlines flattens the inline children of n into styled spans.
func (r *mdRenderer) inlines(n ast.Node, st tcell.Style) []Span {
	var out []Span
	var walk func(n ast.Node, st tcell.Style)
	walk = func(n ast.Node, st tcell.Style) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				out = append(out, Span{string(c.Segment.Value(r.src)), st})
				if c.HardLineBreak() {
					out = append(out, Span{"\n", st})
				} else if c.SoftLineBreak() {
					out = append(out, Span{" ", st})
				}
			case *ast.String:
				out = append(out, Span{string(c.Value), st})
			case *ast.CodeSpan:
				cs := st.Foreground(r.th.Code).Background(r.th.CodeBg)
				var b strings.Builder
				for t := c.FirstChild(); t != nil; t = t.NextSibling() {
					if tx, ok := t.(*ast.Text); ok {
						b.Write(tx.Segment.Value(r.src))
					} else if s, ok := t.(*ast.String); ok {
						b.Write(s.Value)
					}
				}
				out = append(out, Span{b.String(), cs})
			case *ast.Emphasis:
				if c.Level >= 2 {
					walk(c, st.Bold(true))
				} else {
					walk(c, st.Italic(true))
				}
			case *east.Strikethrough:
				walk(c, st.StrikeThrough(true))
			case *ast.Link:
				before := len(out)
				walk(c, st.Foreground(r.th.Link).Underline(true))
				label := Line(out[before:]).String()
				if dest := string(c.Destination); dest != "" && dest != label {
					out = append(out, Span{" (" + dest + ")", st.Foreground(r.th.Dim)})
				}
			case *ast.AutoLink:
				out = append(out, Span{string(c.URL(r.src)), st.Foreground(r.th.Link).Underline(true)})
			case *ast.Image:
				before := len(out)
				walk(c, st.Foreground(r.th.Dim))
				if len(out) == before {
					out = append(out, Span{"image", st.Foreground(r.th.Dim)})
				}
				out = append(out[:before], append([]Span{{"[image: ", st.Foreground(r.th.Dim)}}, append(out[before:], Span{"]", st.Foreground(r.th.Dim)})...)...)
			case *ast.RawHTML:
				for i := 0; i < c.Segments.Len(); i++ {
					seg := c.Segments.At(i)
					out = append(out, Span{string(seg.Value(r.src)), st.Foreground(r.th.Dim)})
				}
			case *east.TaskCheckBox:
				box := "☐ "
				if c.IsChecked {
					box = "☑ "
				}
				out = append(out, Span{box, st.Foreground(r.th.Accent)})
			default:
				walk(c, st)
			}
		}
	}
	walk(n, st)
	return out
}
