package views

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/themes"
)

// ItemKind is the kind of a conversation entry.
type ItemKind int

const (
	ItemUser      ItemKind = iota // the user's message
	ItemAssistant                 // assistant text (markdown)
	ItemReasoning                 // model reasoning, folded by default
	ItemTool                      // one tool call, a one-liner that expands
	ItemBanner                    // backtrack, compaction, interrupt, info, preview
	ItemError                     // an error shown in the error colour
)

// ToolStatus is the state of a tool call.
type ToolStatus int

const (
	ToolRunning ToolStatus = iota
	ToolOK
	ToolFailed
)

// BannerKind selects a banner's colour and icon.
type BannerKind int

const (
	BannerInfo BannerKind = iota
	BannerBacktrack
	BannerCompact
	BannerInterrupt
	BannerPreview
)

// Item is the view model of one conversation entry. All text is untrusted
// and sanitised by the view.
type Item struct {
	Kind ItemKind
	ID   string // optional; tool call id, used by UpdateItem
	Text string // message / reasoning / banner / error text (markdown for assistant)
	// Full is a user message's whole text when Text shows long pastes
	// folded ("[pasted 214 lines]"); Enter unfolds it.
	Full string

	// Tool calls.
	ToolName string
	KeyArg   string // the argument shown on the one-liner (path, command…)
	Args     string // full arguments, shown when expanded
	Result   string // result excerpt, shown when expanded
	Status   ToolStatus
	Duration time.Duration

	Banner BannerKind // for ItemBanner
	// Hang indents the continuation rows of each wrapped line of a banner
	// by this many cells: a table of labels and values (/status) wraps
	// under its values, not under the labels.
	Hang int
	// Sections follow a banner's text, each a dim label over an indented
	// body: a D-Mail's banner shows the prompt it returned to and its note.
	Sections []Section

	// Expanded unfolds reasoning and tool calls (Enter toggles).
	Expanded bool

	// Interrupted marks an assistant answer cut short by an interrupt:
	// drawn dimmed, with "interrupted" after it.
	Interrupted bool

	// Images are the labels of the images a prompt attached or a tool
	// result carries ("[image pic.png · 640×480 PNG · 41 KB]"), one line
	// each: what the conversation shows of them.
	Images []string
}

// Section is a labelled part of a banner; a Markdown body is rendered as
// an assistant's text is.
type Section struct {
	Label    string
	Text     string
	Markdown bool
}

// maxExpandedLines bounds the args/result excerpt of an expanded tool call.
const maxExpandedLines = 12

type convItem struct {
	Item
	stream streamSanitizer // for AppendDelta
	buf    strings.Builder // streamed text; Text aliases its contents
	width  int             // width of the cached layout; 0 = stale
	first  bool            // laid out as the first item (no leading gap)
	lines  []Line

	// A streamed answer is laid out block by block: md keeps its finished
	// blocks' lines, keptLines those lines laid out (the gap, the "● "
	// gutter), keptN how many of md's lines keptLines holds.
	md        *mdStream
	keptLines []Line
	keptN     int
	keptGen   int // md's gen keptLines come from
}

// resetStream drops a streamed answer's kept blocks (its text was
// replaced, or the theme or code layout changed).
func (ci *convItem) resetStream() {
	if ci.md != nil {
		ci.md.reset()
	}
	ci.keptLines, ci.keptN = nil, 0
}

// Conversation is a virtual list of conversation items: it lays out items
// lazily per width, caches the layouts and draws only the visible rows.
type Conversation struct {
	pane
	items    []*convItem
	ids      map[string]int
	selected int

	// scroll anchor: the first visible row is line topLine of item topItem;
	// with follow the view is anchored at the bottom instead.
	topItem, topLine int
	follow           bool

	preview     string
	workDir     string  // shown in the header, cut in the middle to fit
	welcome     Welcome // shown while there are no items
	previewRows int     // rows the wrapped preview banner took at the last draw
	height      int     // rows of the item area at the last draw
	width       int     // layout width at the last draw
	rowItems    []int

	// welcomeLines are welcome laid out at welcomeWidth (nil: to lay out
	// again, after SetWelcome or SetTheme).
	welcomeLines []Line
	welcomeWidth int

	onSelect func(index int, it Item)
	onOpen   func(it Item) bool // Enter's first taker (SetOnOpen)
	// earlier is the marker above the first item when the items are the
	// tail of a longer conversation ("↑ 1,204 earlier messages…");
	// reaching the top calls onTop, which loads them.
	earlier string
	onTop   func()
	// later is the marker below the last item when the items stop short of
	// the conversation's end (opened at a search hit: "↓ 1,204 later
	// messages…"); reaching the bottom calls onBottom, which loads them, and
	// G/End calls onEnd, which jumps to the end.
	later    string
	onBottom func()
	onEnd    func()
	// marked is the item marked as the one looked for (a search hit), -1
	// for none: its rows carry a bar (┃) in the match colour.
	marked int
	keys   Keymap
	hl     hlCache
	code   CodeLayout // code blocks wrap, or scroll sideways (w toggles)

	// still: while an answer streams in, the view following the end stays
	// where it is and moves a page when the end reaches the bottom, as a
	// terminal does: a frame then sends the terminal the new words, not the
	// whole pane shifted by a row.
	still stillView

	// embedded: drawn inside another view (the session list's preview),
	// without a border, keys or the "more below" hint; the selected item
	// (a search hit) is marked in the accent colour.
	embedded bool
}

// NewConversation returns an empty conversation that follows the bottom.
func NewConversation() *Conversation {
	c := &Conversation{pane: newPane("Conversation"), ids: map[string]int{}, follow: true, height: 20, width: 60, marked: -1}
	c.keys = Keymap{
		bind("next item", func() { c.Select(c.selected + 1) }, R('j'), K(tcell.KeyDown)),
		bind("previous item", func() { c.Select(c.selected - 1) }, R('k'), K(tcell.KeyUp)),
		bind("page down", func() { c.Scroll(c.page()) }, K(tcell.KeyPgDn), K(tcell.KeyCtrlF)),
		bind("page up", func() { c.Scroll(-c.page()) }, K(tcell.KeyPgUp), K(tcell.KeyCtrlB)),
		bind("first item", func() { c.Select(0) }, R('g'), K(tcell.KeyHome)),
		bind("last item, follow output (from a search hit: the newest messages)", c.end, R('G'), K(tcell.KeyEnd)),
		bind("fold / unfold reasoning, a tool call or a long paste; an Agent call: open its sub-agent's session", c.enter, K(tcell.KeyEnter)),
		bind("fold / unfold the selected item (an Agent call's arguments too)", func() { c.Toggle(c.selected) }, R(' ')),
		bind("code blocks: wrap / scroll sideways with ←/→", c.ToggleCodeWrap, R('w')),
		{Keys: []Key{K(tcell.KeyLeft)}, Description: "scroll code left", Handler: func() { c.ShiftCode(-codeShiftStep) }},
		{Keys: []Key{K(tcell.KeyRight)}, Description: "scroll code right", Handler: func() { c.ShiftCode(codeShiftStep) }},
	}
	return c
}

// newPreviewConversation returns a borderless conversation for showing
// items inside another view (showAt places them).
func newPreviewConversation() *Conversation {
	c := NewConversation()
	c.ShowBorder(false)
	c.embedded = true
	return c
}

// showAt shows item i at the top and marks it; i < 0 shows the newest
// items with nothing marked.
func (c *Conversation) showAt(i int) {
	if i < 0 || i >= len(c.items) {
		c.selected, c.follow = -1, true
		return
	}
	c.selected, c.topItem, c.topLine, c.follow = i, i, 0, false
}

// SetTheme applies a theme and drops cached layouts.
func (c *Conversation) SetTheme(t themes.Theme) {
	c.setTheme(t)
	c.invalidateAll()
	c.welcomeLines = nil
}

// Bindings lists the conversation's keys.
func (c *Conversation) Bindings() []KeyBinding { return c.keys }

// SetOnSelect sets a callback for selection changes (e.g. to show the
// selected tool call's output).
func (c *Conversation) SetOnSelect(f func(index int, it Item)) { c.onSelect = f }

// SetOnOpen sets what Enter does first with the selected item: when f
// takes it (true) the item is not folded (the workspace opens an Agent
// call's sub-agent session, as Enter in the tool output pane does).
func (c *Conversation) SetOnOpen(f func(it Item) bool) { c.onOpen = f }

// enter opens the selected item when the workspace takes it, else folds
// or unfolds it.
func (c *Conversation) enter() {
	if it, ok := c.Item(c.selected); ok && c.onOpen != nil && c.onOpen(it) {
		return
	}
	c.Toggle(c.selected)
}

func sanitizeItem(it Item) Item {
	it.Text = sanitizeKeepTabs(it.Text)
	it.Full = sanitizeKeepTabs(it.Full)
	it.ID = SanitizeLine(it.ID)
	it.ToolName = SanitizeLine(it.ToolName)
	it.KeyArg = SanitizeLine(it.KeyArg)
	it.Args = sanitizeKeepTabs(it.Args)
	it.Result = sanitizeKeepTabs(it.Result)
	if it.Sections != nil {
		secs := make([]Section, len(it.Sections)) // the caller's slice stays as it was
		for i, sec := range it.Sections {
			secs[i] = Section{Label: SanitizeLine(sec.Label), Text: sanitizeKeepTabs(sec.Text), Markdown: sec.Markdown}
		}
		it.Sections = secs
	}
	if it.Images != nil {
		imgs := make([]string, len(it.Images))
		for i, l := range it.Images {
			imgs[i] = SanitizeLine(l)
		}
		it.Images = imgs
	}
	return it
}

// SetEarlier sets the marker shown above the first item when the items are
// only the newest part of the conversation; "" removes it.
func (c *Conversation) SetEarlier(text string) { c.earlier = SanitizeLine(text) }

// SetOnTop sets what runs when the view reaches the top while an earlier
// marker is shown (the controller loads the earlier items).
func (c *Conversation) SetOnTop(f func()) { c.onTop = f }

// atTop calls onTop when the first row is on screen under an earlier marker.
func (c *Conversation) atTop() {
	if c.earlier == "" || c.onTop == nil || len(c.items) == 0 {
		return
	}
	ti, tl := c.topItem, c.topLine
	if c.follow {
		ti, tl = c.followTop()
	}
	if ti == 0 && tl == 0 {
		c.onTop()
	}
}

// SetLater sets the marker shown below the last item when the items stop
// short of the conversation's end; "" removes it.
func (c *Conversation) SetLater(text string) { c.later = SanitizeLine(text) }

// SetOnBottom sets what runs when the view reaches the bottom while a later
// marker is shown (the controller loads the later items).
func (c *Conversation) SetOnBottom(f func()) { c.onBottom = f }

// SetOnEnd sets what G/End does while a later marker is shown (the
// controller jumps to the conversation's end).
func (c *Conversation) SetOnEnd(f func()) { c.onEnd = f }

// end is G/End: the last item, or under a later marker the end.
func (c *Conversation) end() {
	if c.later != "" && c.onEnd != nil {
		c.onEnd()
		return
	}
	c.ScrollToEnd()
}

// atBottom calls onBottom when the last row is on screen above a later
// marker.
func (c *Conversation) atBottom() {
	if c.later != "" && c.onBottom != nil && c.follow && len(c.items) > 0 {
		c.onBottom()
	}
}

// itemRows is the rows the items take: a later marker takes the last.
func (c *Conversation) itemRows() int {
	if c.later != "" && !c.embedded {
		return max(1, c.height-1)
	}
	return c.height
}

// Mark marks item i as the one looked for (a search hit), selects it and
// scrolls it into view with the rows before it above; -1 removes the mark.
// Replacing the items removes it too.
func (c *Conversation) Mark(i int) {
	if i < 0 || i >= len(c.items) {
		c.marked = -1
		return
	}
	c.marked, c.selected = i, i
	c.follow, c.topItem, c.topLine = false, i, 0
	c.scrollBy(-c.height / 3) // what led to it, above it
	c.notify()
}

// Marked is the marked item (-1: none).
func (c *Conversation) Marked() int { return c.marked }

// AppendPage adds a later page of items after the last one, keeping the
// rows on screen and the selection where they are, and sets the later
// marker ("" when the items now reach the conversation's end).
func (c *Conversation) AppendPage(items []Item, later string) {
	if c.follow && len(c.items) > 0 {
		c.topItem, c.topLine = c.followTop()
		c.follow = false
	}
	for _, it := range items {
		c.push(it)
	}
	c.later = SanitizeLine(later)
	if len(c.items) > 0 {
		c.scrollBy(0) // follows when everything below fits
	}
}

// Prepend inserts items before the first one, keeping the rows on screen
// and the selection where they are, and sets the earlier marker.
func (c *Conversation) Prepend(items []Item, earlier string) {
	n := len(items)
	old := c.items
	c.still = stillView{}
	c.items = make([]*convItem, 0, n+len(old))
	for _, it := range items {
		c.items = append(c.items, &convItem{Item: sanitizeItem(it)})
	}
	c.items = append(c.items, old...)
	for id, i := range c.ids {
		c.ids[id] = i + n
	}
	for i, it := range c.items[:n] {
		if it.ID != "" {
			c.ids[it.ID] = i
		}
	}
	if len(old) > 0 {
		c.selected += n
		c.topItem += n
		if c.marked >= 0 {
			c.marked += n
		}
	}
	c.earlier = SanitizeLine(earlier)
}

// SetItems replaces all items and follows the bottom.
func (c *Conversation) SetItems(items []Item) {
	c.items = make([]*convItem, 0, len(items))
	c.ids = make(map[string]int, len(items))
	for _, it := range items {
		c.push(it)
	}
	c.selected = max(0, len(c.items)-1)
	c.topItem, c.topLine, c.follow = 0, 0, true
	c.marked = -1
	c.still = stillView{}
}

func (c *Conversation) push(it Item) {
	ci := &convItem{Item: sanitizeItem(it)}
	if ci.ID != "" {
		c.ids[ci.ID] = len(c.items)
	}
	c.items = append(c.items, ci)
}

// Append adds items at the end. A view following the bottom keeps
// following it, and the selection moves with it.
func (c *Conversation) Append(items ...Item) {
	atEnd := c.selected >= len(c.items)-1
	for _, it := range items {
		c.push(it)
	}
	if atEnd && c.follow {
		c.selected = len(c.items) - 1
	}
}

// Truncate drops the items from index n on (a watcher drops the streamed
// items of a step the database now holds, then appends the committed ones).
// The selection and scroll anchor stay within what is left.
func (c *Conversation) Truncate(n int) {
	if n < 0 || n >= len(c.items) {
		return
	}
	for _, it := range c.items[n:] {
		if i, ok := c.ids[it.ID]; ok && i >= n {
			delete(c.ids, it.ID)
		}
	}
	clear(c.items[n:])
	c.items = c.items[:n]
	c.still = stillView{}
	if c.marked >= n {
		c.marked = -1
	}
	if c.selected >= n {
		c.selected, c.follow = max(0, n-1), true
	}
	if c.topItem >= n {
		c.topItem, c.topLine, c.follow = max(0, n-1), 0, true
	}
}

// Len is the number of items.
func (c *Conversation) Len() int { return len(c.items) }

// Item returns item i (sanitised).
func (c *Conversation) Item(i int) (Item, bool) {
	if i < 0 || i >= len(c.items) {
		return Item{}, false
	}
	return c.items[i].Item, true
}

// Selected returns the selected index (-1 when empty).
func (c *Conversation) Selected() int {
	if len(c.items) == 0 {
		return -1
	}
	return c.selected
}

// AppendDelta appends streamed text to the last assistant item (creating
// one if the last item is something else). Only that item is laid out
// again, at the next draw.
func (c *Conversation) AppendDelta(text string) { c.appendDelta(ItemAssistant, text) }

// AppendReasoningDelta is AppendDelta for streamed reasoning.
func (c *Conversation) AppendReasoningDelta(text string) { c.appendDelta(ItemReasoning, text) }

func (c *Conversation) appendDelta(kind ItemKind, text string) {
	if n := len(c.items); n == 0 || c.items[n-1].Kind != kind {
		c.Append(Item{Kind: kind})
	}
	last := c.items[len(c.items)-1]
	if c.follow && !c.still.on {
		c.still = stillView{on: true}
	}
	if kind == ItemAssistant && last.md == nil {
		last.md = &mdStream{}
	}
	if clean := last.stream.Write(text); clean != "" {
		if last.buf.Len() == 0 {
			last.buf.WriteString(last.Text)
		}
		// amortised O(len(clean)): no copy of the whole reply per token
		last.buf.WriteString(clean)
		last.Text = last.buf.String()
		last.width = 0
	}
}

// UpdateItem changes the item with the given ID (e.g. a tool call's
// status, result and duration) and reports whether it exists.
func (c *Conversation) UpdateItem(id string, update func(*Item)) bool {
	i, ok := c.ids[id]
	if !ok || i >= len(c.items) {
		return false
	}
	it := c.items[i].Item
	update(&it)
	it.ID = id
	ci := c.items[i]
	if it.Text != ci.Text {
		ci.buf.Reset() // text replaced: later deltas start from the new text
		ci.resetStream()
	}
	ci.Item = sanitizeItem(it)
	ci.width = 0
	return true
}

// SetWorkDir names the directory the agent works in, for the header ("~/src/app"):
// it changes when a session of another dir is resumed.
func (c *Conversation) SetWorkDir(dir string) { c.workDir = SanitizeLine(dir) }

// SetPreview pins a preview banner (e.g. "Preview of checkpoint 3 —
// read-only") above the items; "" removes it.
func (c *Conversation) SetPreview(text string) { c.preview = SanitizeLine(text) }

// Preview returns the pinned preview text.
func (c *Conversation) Preview() string { return c.preview }

// Following reports whether the view follows the bottom.
func (c *Conversation) Following() bool { return c.follow }

// ScrollToEnd selects the last item and follows the bottom.
func (c *Conversation) ScrollToEnd() {
	c.follow, c.still = true, stillView{}
	if len(c.items) > 0 {
		c.selected = len(c.items) - 1
		c.notify()
	}
}

// Toggle folds or unfolds item i if it is reasoning or a tool call.
func (c *Conversation) Toggle(i int) {
	if i < 0 || i >= len(c.items) {
		return
	}
	it := c.items[i]
	if it.Kind == ItemReasoning || it.Kind == ItemTool || it.Kind == ItemUser && it.Full != "" {
		it.Expanded = !it.Expanded
		it.width = 0
	}
}

func (c *Conversation) invalidateAll() {
	for _, it := range c.items {
		it.width = 0
		it.resetStream()
	}
}

func (c *Conversation) notify() {
	if c.onSelect != nil && c.selected >= 0 && c.selected < len(c.items) {
		c.onSelect(c.selected, c.items[c.selected].Item)
	}
}

func (c *Conversation) page() int { return max(1, c.height-1) }

// lines returns the cached layout of item i for the current width.
func (c *Conversation) lines(i int) []Line {
	it := c.items[i]
	if it.width != c.width || it.first != (i == 0) {
		it.lines = c.layout(it, i == 0)
		it.width = c.width
		it.first = i == 0
	}
	return it.lines
}

func (c *Conversation) layout(ci *convItem, first bool) []Line {
	if ci.Kind == ItemAssistant && ci.md != nil && !ci.Interrupted {
		return c.streamedLines(ci, first)
	}
	// Items keep their tabs (copying takes them as written); drawn, a tab
	// is spaces.
	it := ci.Item
	it.Text, it.Full, it.Args, it.Result = expandTabs(it.Text), expandTabs(it.Full), expandTabs(it.Args), expandTabs(it.Result)
	th := c.theme
	base := c.base()
	w := c.width
	var out []Line
	gap := func() {
		if !first {
			out = append(out, Line{})
		}
	}
	switch it.Kind {
	case ItemUser:
		gap()
		bar := Span{"▌ ", base.Foreground(th.User)}
		text := it.Text
		if it.Expanded && it.Full != "" {
			text = it.Full
		}
		out = append(out, wrapSpans([]Span{{text, base.Foreground(th.User).Bold(true)}}, w, Line{bar}, Line{bar})...)
		for _, l := range it.Images {
			out = append(out, wrapSpans([]Span{{l, base.Foreground(th.Dim)}}, w, Line{bar}, Line{bar})...)
		}
		if it.Full != "" && !it.Expanded {
			out = append(out, Line{bar, {"(Enter shows the pasted text)", base.Foreground(th.Dim)}})
		}
	case ItemAssistant:
		gap()
		body := renderMarkdown(it.Text, w-2, th, base.Foreground(th.Assistant), &c.hl, c.code)
		for j, l := range body {
			p := Span{"  ", base}
			if j == 0 {
				p = Span{"● ", base.Foreground(th.Accent)}
			}
			if it.Interrupted {
				p.Style = base.Foreground(th.Dim)
				for k := range l {
					l[k].Style = l[k].Style.Foreground(th.Dim)
				}
			}
			out = append(out, append(Line{p}, l...))
		}
		if it.Interrupted {
			out = append(out, Line{{"  ", base}, {"⏸ interrupted", base.Foreground(th.Dim).Italic(true)}})
		}
	case ItemReasoning:
		st := base.Foreground(th.Reasoning).Italic(true)
		n := strings.Count(strings.TrimRight(it.Text, "\n"), "\n") + 1
		if !it.Expanded {
			out = append(out, Line{{"▸ ", base.Foreground(th.Reasoning)}, {fmt.Sprintf("Thinking (%d %s, Enter to unfold)", n, words.Plural(n, "line", "lines")), st}})
			break
		}
		out = append(out, Line{{"▾ ", base.Foreground(th.Reasoning)}, {"Thinking", st}})
		out = append(out, wrapSpans([]Span{{it.Text, st}}, w, Line{{"  ", base}}, Line{{"  ", base}})...)
	case ItemTool:
		out = append(out, c.toolLines(it, w)...)
	case ItemBanner:
		gap()
		col, icon := c.bannerStyle(it.Banner)
		st := base.Foreground(col).Bold(true)
		out = append(out, bannerTextLines(it, w, st, icon)...)
		out = append(out, c.sectionLines(it.Sections, w)...)
	case ItemError:
		gap()
		st := base.Foreground(th.Error)
		out = append(out, wrapSpans([]Span{{it.Text, st}}, w, Line{{"✗ ", st.Bold(true)}}, Line{{"  ", st}})...)
	}
	if len(out) == 0 {
		out = append(out, Line{})
	}
	return out
}

// streamedLines lays out a streamed answer as layout does, from its kept
// blocks' lines (laid out once) and its open block's (laid out again).
func (c *Conversation) streamedLines(ci *convItem, first bool) []Line {
	th, base := c.theme, c.base()
	kept, open := ci.md.render(ci.Text, c.width-2, th, base.Foreground(th.Assistant), &c.hl, c.code)
	gap := 0
	if !first {
		gap = 1
	}
	if ci.keptGen != ci.md.gen || len(kept) < ci.keptN || len(ci.keptLines) != gap+ci.keptN {
		ci.keptLines, ci.keptN, ci.keptGen = nil, 0, ci.md.gen
	}
	if ci.keptLines == nil && gap == 1 {
		ci.keptLines = append(ci.keptLines, Line{})
	}
	for ; ci.keptN < len(kept); ci.keptN++ {
		ci.keptLines = append(ci.keptLines, answerLine(ci.keptN, kept[ci.keptN], base, th))
	}
	// the body is kept+open less its trailing blank lines (trimMarkdown)
	n := len(kept) + len(open)
	for n > len(kept) && len(open[n-len(kept)-1]) == 0 {
		n--
	}
	if n == len(kept) {
		for n > 0 && len(kept[n-1]) == 0 {
			n--
		}
	}
	if n == 0 {
		return append(ci.keptLines[:gap:gap], answerLine(0, Line{}, base, th))
	}
	if n <= len(kept) {
		return ci.keptLines[: gap+n : gap+n]
	}
	out := ci.keptLines
	for j, l := range open[:n-len(kept)] {
		out = append(out, answerLine(len(kept)+j, l, base, th))
	}
	return out
}

// answerLine is body line j of an answer behind its gutter ("● " on the
// first).
func answerLine(j int, l Line, base tcell.Style, th themes.Theme) Line {
	p := Span{"  ", base}
	if j == 0 {
		p = Span{"● ", base.Foreground(th.Accent)}
	}
	return append(Line{p}, l...)
}

// bannerTextLines lays out a banner's text: a Hang indents the wrapped
// rows of each of its lines under their values.
func bannerTextLines(it Item, w int, st tcell.Style, icon string) []Line {
	lines := strings.Split(it.Text, "\n")
	if it.Hang <= 0 && !slices.ContainsFunc(lines, func(l string) bool { return listMarkerWidth(l) > 0 }) {
		return wrapSpans([]Span{{it.Text, st}}, w, Line{{icon + " ", st}}, Line{{"  ", st}})
	}
	var out []Line
	first := Line{{icon + " ", st}}
	for _, l := range lines {
		hang := it.Hang
		if hang <= 0 { // a list item's rows hang under its text (the demo's welcome)
			hang = listMarkerWidth(l)
		}
		out = append(out, wrapSpans([]Span{{l, st}}, w, first, Line{{"  " + strings.Repeat(" ", min(hang, w/2)), st}})...)
		first = Line{{"  ", st}}
	}
	return out
}

// listMarkerWidth is the width of the list marker l starts with ("1. ",
// "- "), or 0.
func listMarkerWidth(l string) int {
	if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "• ") {
		return 2
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i <= 3 && strings.HasPrefix(l[i:], ". ") {
		return i + 2
	}
	return 0
}

// sectionLines lays out a banner's sections: the label dim and indented
// by two, the body by four.
func (c *Conversation) sectionLines(secs []Section, w int) []Line {
	th, base := c.theme, c.base()
	label, indent := base.Foreground(th.Dim), Line{{"    ", base}}
	var out []Line
	for _, s := range secs {
		out = append(out, wrapSpans([]Span{{s.Label, label}}, w, Line{{"  ", base}}, Line{{"  ", base}})...)
		if !s.Markdown {
			out = append(out, wrapSpans([]Span{{s.Text, base.Foreground(th.User)}}, w, indent, indent)...)
			continue
		}
		for _, l := range renderMarkdown(s.Text, max(w-4, 1), th, base.Foreground(th.Assistant), &c.hl, c.code) {
			out = append(out, append(Line{{"    ", base}}, l...))
		}
	}
	return out
}

func (c *Conversation) bannerStyle(k BannerKind) (tcell.Color, string) {
	th := c.theme
	switch k {
	case BannerBacktrack:
		return th.BannerBacktrack, "⟲"
	case BannerCompact:
		return th.BannerCompact, "⇊"
	case BannerInterrupt:
		return th.BannerInterrupt, "■"
	case BannerPreview:
		return th.BannerPreview, "◉"
	}
	return th.BannerInfo, "ℹ"
}

// ToolStatusGlyph returns the glyph and theme colour of a tool status.
func ToolStatusGlyph(s ToolStatus, th themes.Theme) (string, tcell.Color) {
	switch s {
	case ToolOK:
		return "✓", th.ToolOK
	case ToolFailed:
		return "✗", th.ToolError
	}
	return "…", th.ToolRunning
}

// formatDuration renders a duration compactly: 850ms, 1.2s, 3m04s.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func (c *Conversation) toolLines(it Item, w int) []Line {
	th := c.theme
	base := c.base()
	glyph, col := ToolStatusGlyph(it.Status, th)
	fold := "▸"
	if it.Expanded {
		fold = "▾"
	}
	head := Line{
		{fold + " ", base.Foreground(th.Dim)},
		{glyph + " ", base.Foreground(col).Bold(true)},
		{it.ToolName, base.Foreground(th.Tool).Bold(true)},
	}
	tail := ""
	if d := formatDuration(it.Duration); d != "" {
		tail = "  " + d
	}
	if it.KeyArg != "" {
		avail := w - head.Width() - 1 - len([]rune(tail))
		head = append(head, Span{" " + truncate(it.KeyArg, max(1, avail)), base.Foreground(th.Text)})
	}
	if tail != "" {
		head = append(head, Span{tail, base.Foreground(th.Dim)})
	}
	out := []Line{clipLine(head, w)}
	dim := base.Foreground(th.Dim)
	for _, l := range it.Images {
		out = append(out, wrapPlain("    "+l, w, dim)...)
	}
	if !it.Expanded {
		return out
	}
	section := func(label, body string, st tcell.Style) {
		if body == "" {
			return
		}
		out = append(out, Line{{"    " + label, dim.Bold(true)}})
		rows := strings.Split(strings.TrimRight(body, "\n"), "\n")
		more := 0
		if len(rows) > maxExpandedLines {
			more = len(rows) - maxExpandedLines
			rows = rows[:maxExpandedLines]
		}
		for _, r := range rows {
			out = append(out, wrapPlain("    "+r, w, st)...)
		}
		if more > 0 {
			out = append(out, Line{{fmt.Sprintf("    … %d more lines (see tool output)", more), dim}})
		}
	}
	section("arguments", it.Args, dim)
	rs := base.Foreground(th.Text)
	if it.Status == ToolFailed {
		rs = base.Foreground(th.ToolError)
	}
	section("result", it.Result, rs)
	return out
}

// Select selects item i (clamped) and scrolls it into view. Selecting the
// last item follows the bottom.
func (c *Conversation) Select(i int) {
	if len(c.items) == 0 {
		return
	}
	i = max(0, min(i, len(c.items)-1))
	c.selected = i
	c.still = stillView{}
	if i == len(c.items)-1 {
		c.follow = true
	} else {
		c.ensureVisible(i)
	}
	c.notify()
	c.atTop()
	c.atBottom()
}

// ensureVisible moves the anchor so item i is on screen.
func (c *Conversation) ensureVisible(i int) {
	if c.follow {
		c.topItem, c.topLine = c.followTop()
		c.follow = false
	}
	if i < c.topItem || (i == c.topItem && c.topLine > 0) {
		c.topItem, c.topLine = i, 0
		return
	}
	// rows from the anchor to the end of item i
	rows := len(c.lines(c.topItem)) - c.topLine
	for j := c.topItem + 1; j <= i && rows <= c.height; j++ {
		rows += len(c.lines(j))
	}
	if rows <= c.height {
		return
	}
	// put the end of item i at the bottom, or its top at the top if taller
	h := len(c.lines(i))
	if h >= c.height {
		c.topItem, c.topLine = i, 0
		return
	}
	c.topItem, c.topLine = i, 0
	c.scrollBy(-(c.height - h))
}

// Settle ends a still view: the view following the end shows the last
// rows at the bottom again (a run ended).
func (c *Conversation) Settle() { c.still = stillView{} }

// stillView is the first row of a still view following the end; on while
// an answer streams in.
type stillView struct {
	on, set    bool
	item, line int
	rows, w    int // the item rows and width it was set for
}

// stillKeep is the share of the rows a still view keeps on screen (the
// end of the text so far, at the top) when it moves by a page.
const stillKeep = 4 // a quarter

// followTop is the first row of the view following the end: the rows
// above the end, or in a still view its anchor until the end passes the
// bottom, then the last quarter of the rows.
func (c *Conversation) followTop() (int, int) {
	if !c.still.on || len(c.items) == 0 {
		return c.bottomAnchor()
	}
	h := c.itemRows()
	st := &c.still
	if !st.set || st.rows != h || st.w != c.width || st.item >= len(c.items) {
		st.item, st.line = c.bottomAnchor()
		st.set, st.rows, st.w = true, h, c.width
		return st.item, st.line
	}
	st.line = min(st.line, len(c.lines(st.item))-1)
	rows := len(c.lines(st.item)) - st.line
	for j := st.item + 1; j < len(c.items) && rows <= h; j++ {
		rows += len(c.lines(j))
	}
	if rows > h {
		st.item, st.line = c.anchorAbove(max(1, h/stillKeep))
	}
	return st.item, st.line
}

// anchorAbove is the anchor that shows the last n rows at the top.
func (c *Conversation) anchorAbove(n int) (int, int) {
	for i := len(c.items) - 1; i >= 0; i-- {
		l := len(c.lines(i))
		if l >= n {
			return i, l - n
		}
		n -= l
	}
	return 0, 0
}

// bottomAnchor is the anchor that shows the last rows.
func (c *Conversation) bottomAnchor() (int, int) {
	need := c.itemRows()
	for i := len(c.items) - 1; i >= 0; i-- {
		n := len(c.lines(i))
		if n >= need {
			return i, n - need
		}
		need -= n
	}
	return 0, 0
}

// Scroll moves the view by n rows (negative = up) without changing the
// selection unless it leaves the screen.
func (c *Conversation) Scroll(n int) {
	if len(c.items) == 0 || n == 0 {
		return
	}
	if c.follow {
		if n > 0 {
			c.atBottom()
			return
		}
		c.topItem, c.topLine = c.followTop()
		c.follow = false
	}
	c.scrollBy(n)
	// keep the selection on screen
	if c.selected < c.topItem && !c.follow {
		c.selected = c.topItem
		c.notify()
	} else if last := c.lastVisible(); c.selected > last {
		c.selected = last
		c.notify()
	}
	c.atTop()
	c.atBottom()
}

func (c *Conversation) scrollBy(n int) {
	c.topLine += n
	for c.topLine < 0 && c.topItem > 0 {
		c.topItem--
		c.topLine += len(c.lines(c.topItem))
	}
	if c.topLine < 0 {
		c.topLine = 0
	}
	for c.topItem < len(c.items)-1 && c.topLine >= len(c.lines(c.topItem)) {
		c.topLine -= len(c.lines(c.topItem))
		c.topItem++
	}
	// at or past the bottom? then follow
	h := c.itemRows()
	rows := len(c.lines(c.topItem)) - c.topLine
	for j := c.topItem + 1; j < len(c.items) && rows <= h; j++ {
		rows += len(c.lines(j))
	}
	if rows <= h {
		c.follow = true
	}
}

func (c *Conversation) lastVisible() int {
	ti, tl := c.topItem, c.topLine
	if c.follow {
		ti, tl = c.followTop()
	}
	rows := -tl
	i := ti
	for ; i < len(c.items); i++ {
		rows += len(c.lines(i))
		if rows >= c.height {
			break
		}
	}
	return min(i, len(c.items)-1)
}

// Draw draws the visible rows only.
func (c *Conversation) Draw(screen tcell.Screen) {
	c.title = "Conversation"
	if c.workDir != "" {
		_, _, bw, _ := c.GetRect()
		// the border's title room (frame's bw-6), less "Conversation · "
		// and the focus mark
		if room := bw - 6 - strWidth(c.title) - 3 - 2; room >= 8 {
			c.title += " · " + ElidePath(c.workDir, room)
		}
	}
	x, y, w, h := c.frame(screen, c)
	if w <= 2 || h <= 0 {
		return
	}
	if !c.follow {
		c.still = stillView{}
	}
	c.previewRows = 0
	if c.preview != "" {
		// wrapped between its " · " parts: the keys at its end never get cut
		st := c.base().Background(c.theme.BannerPreview).Foreground(c.theme.Background).Bold(true)
		for _, r := range wrapParts("◉ "+c.preview, w-2) {
			if h <= 1 {
				break
			}
			fill(screen, x, y, w, st)
			drawText(screen, x+1, y, w-1, r, st)
			y++
			h--
			c.previewRows++
		}
	}
	c.width = w - 1 // column 0 is the selection gutter
	c.height = h
	if cap(c.rowItems) < h {
		c.rowItems = make([]int, h)
	}
	c.rowItems = c.rowItems[:h]
	for r := range c.rowItems {
		c.rowItems[r] = -1
	}
	if len(c.items) == 0 {
		c.drawWelcome(screen, x+1, y, w-1, h)
		return
	}
	ti, tl := c.topItem, c.topLine
	if c.follow {
		ti, tl = c.followTop()
	}
	ti = min(ti, len(c.items)-1)
	if c.embedded && !c.follow && ti == c.selected && ti > 0 {
		// the item before the marked one too (the question of an answer),
		// when both fit
		if n := len(c.lines(ti-1)) - 1; n <= h/3 && n+len(c.lines(ti)) <= h {
			ti, tl = ti-1, 0
		}
	}
	if c.embedded && !c.follow && tl == 0 && ti > 0 {
		if ls := c.lines(ti); len(ls) > 1 && len(ls[0]) == 0 {
			tl = 1 // the marked item starts the preview, without its gap
		}
	}
	gutter := c.base().Foreground(c.theme.Accent)
	if !c.HasFocus() && !c.embedded {
		gutter = c.base().Foreground(c.theme.Dim)
	}
	row := 0
	if c.earlier != "" && ti == 0 && tl == 0 && !c.embedded {
		drawText(screen, x+1, y, w-1, c.earlier, c.base().Foreground(c.theme.Dim).Italic(true))
		row++
	}
	for i := ti; i < len(c.items) && row < h; i++ {
		ls := c.lines(i)
		start := 0
		if i == ti {
			start = min(tl, len(ls))
		}
		for _, l := range ls[start:] {
			if row >= h {
				break
			}
			c.rowItems[row] = i
			switch {
			case i == c.marked:
				if len(l) > 0 {
					screen.SetContent(x, y+row, '┃', nil, c.base().Foreground(c.theme.MatchHighlight))
				}
			case i == c.selected && (len(l) > 0 || !c.embedded):
				screen.SetContent(x, y+row, '▎', nil, gutter)
			}
			drawLine(screen, x+1, y+row, w-1, l)
			row++
		}
	}
	if c.later != "" && c.follow && !c.embedded && row < h {
		drawText(screen, x+1, y+row, w-1, c.later, c.base().Foreground(c.theme.Dim).Italic(true))
	}
	if !c.follow && !c.embedded {
		// a hint that more output is below
		st := c.base().Foreground(c.theme.Background).Background(c.theme.Accent)
		msg := " ↓ more below (G) "
		if w > len(msg)+2 {
			drawText(screen, x+w-len([]rune(msg))-1, y+h-1, len(msg), msg, st)
		}
	}
}

// InputHandler handles navigation keys.
func (c *Conversation) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return c.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		c.keys.Handle(ev)
	})
}

// MouseHandler scrolls on the wheel and selects/toggles on click.
func (c *Conversation) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return c.WrapMouseHandler(func(action tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		mx, my := ev.Position()
		if !c.InRect(mx, my) {
			return false, nil
		}
		switch action {
		case tview.MouseScrollUp:
			c.Scroll(-3)
			return true, nil
		case tview.MouseScrollDown:
			c.Scroll(3)
			return true, nil
		case tview.MouseLeftClick:
			setFocus(c)
			_, iy, _, _ := c.GetInnerRect()
			iy += c.previewRows
			r := my - iy
			if r >= 0 && r < len(c.rowItems) && c.rowItems[r] >= 0 {
				i := c.rowItems[r]
				if i == c.selected {
					c.Toggle(i)
				} else {
					c.selected = i
					if i != len(c.items)-1 {
						c.ensureVisible(i)
					}
					c.notify()
				}
			}
			return true, nil
		}
		return false, nil
	})
}
