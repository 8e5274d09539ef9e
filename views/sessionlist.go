package views

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/sahilm/fuzzy"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/themes"
)

// SessionRow is one session of the session lists: the workspace's
// (SessionList), `rewind sessions` and its --json, whose columns
// (SessionColumns) show its fields.
type SessionRow struct {
	ID          string
	Title       string // the title the lists show (a fork's says what it was cut from)
	Name        string // the session's own title (--json's title)
	WorkDir     string
	Created     time.Time
	Updated     time.Time
	CurrentGen  int
	Messages    int
	Checkpoints int
	Tokens      int
	Generations int
	Live        bool   // another process is writing it (a live lease)
	Current     bool   // the session open in this workspace
	Imported    bool   // imported from another agent
	Origin      string // the agent it was imported from (kimi, codex, claude)
	// ForkOf is the session a fork was cut from ("" for none), ForkOfTitle
	// its title, ForkCheckpoint the checkpoint (-1: a whole view).
	ForkOf         string
	ForkOfTitle    string
	ForkCheckpoint int
	Unanswered     bool // has a prompt but never got an answer (a failed run)
	// A sub-agent's run (the Agent tool): the session whose call started
	// it and its type; SubagentArchived: a revert of the parent went back
	// before the call, archiving it with the parent's generation
	// SubagentArchivedWith (the CLI reads it for --json).
	SubagentOf           string
	SubagentType         string
	SubagentArchived     bool
	SubagentArchivedWith int
	// Subagents counts a parent's sub-agent rows, listed right after it
	// and folded under it until unfolded (→).
	Subagents int
}

// SearchHit is one full-text search result. Title is the session's list
// title; Fork marks a session forked from another, Archived a record its
// current view no longer shows (store.SearchHit).
type SearchHit struct {
	SessionID string
	Title     string
	WorkDir   string
	Gen       int
	Seq       int64
	Fork      bool
	Archived  bool
	Role      string
	Snippet   string
	Time      time.Time
	AlsoIn    int // other sessions that show this record (shown once: store.SearchHit)
	// RecordSession wrote the record (Seq is its seq there): a hit listed
	// under a fork may be its source's record.
	RecordSession string
}

// PreviewKey names what the preview shows: a session (its newest
// messages) or, with Hit, the record a full-text hit found (Gen, Seq).
type PreviewKey struct {
	SessionID     string
	Hit           bool
	Gen           int
	Seq           int64
	RecordSession string // the session that wrote the hit's record
}

// Preview is what the preview pane shows: conversation items, drawn the way
// the conversation pane draws them (markdown rendered). Focus >= 0 is the
// item shown first and marked (the record of a search hit); otherwise the
// preview shows the newest items.
type Preview struct {
	Items []Item
	Focus int
}

// SessionList lists sessions with a fuzzy filter on title and work dir
// (matched characters highlighted). Typing edits the filter; a leading
// "/" switches to full-text search, answered asynchronously: the list
// calls the SearchFunc with the query and the app calls SetHits with the
// results. The highlighted session's preview is fetched the same way
// (PreviewFunc → SetPreview): for a session its newest messages, for a
// search hit the messages from the hit on.
type SessionList struct {
	pane
	sessions  []SessionRow
	targets   []string // title + "  " + work dir, for fuzzy matching
	lowTitles []string // titles in lower case: an exact or prefix match ranks first
	more      bool     // sessions holds the newest only: there are more
	onFilter  func(filtering bool)
	filter    lineEditor

	// fuzzy mode: visible = indices into sessions, best first
	visible []int
	matched [][]int // byte offsets into targets[visible[i]]
	lastQ   string

	// full-text mode
	hits      []SearchHit
	hitsQuery string
	hitsMore  bool   // there are more hits than the list holds
	hitsNote  string // why hitsQuery is not searched (SetSearchNote)

	selected int
	top      int
	height   int // rows of sessions or hits shown
	listRows int // rows of the list area (height plus the headers)
	now      func() time.Time

	unfolded map[string]bool // parents whose sub-agent rows are shown

	previewKey PreviewKey
	previewSet bool          // the preview of previewKey arrived
	previewCV  *Conversation // lays out and draws the preview's items

	search       func(query string)
	preview      func(PreviewKey)
	onResume     func(sessionID string)
	onOpenHit    func(PreviewKey)
	onRename     func(SessionRow)
	onDelete     func(SessionRow)
	onFork       func(SessionRow)
	onExport     func(SessionRow)
	onUndoDelete func()
	onClose      func()
	onScope      func()
	onHelp       func()
	scope        string // "" (no toggle), else what is listed: "this dir" or "all"
	scopeDir     string // the dir "this dir" means
	keys         Keymap
	lastAsked    string
}

// NewSessionList returns an empty list.
func NewSessionList() *SessionList {
	l := &SessionList{pane: newPane("Sessions"), height: 10, now: time.Now, previewCV: newPreviewConversation()}
	l.keys = Keymap{
		bind("next", func() { l.Select(l.selected + 1) }, K(tcell.KeyDown), K(tcell.KeyCtrlN)),
		bind("previous", func() { l.Select(l.selected - 1) }, K(tcell.KeyUp), K(tcell.KeyCtrlP)),
		{Keys: []Key{K(tcell.KeyPgDn)}, Description: "page down", Handler: func() { l.Select(l.selected + l.height - 1) }, Visible: true},
		{Keys: []Key{K(tcell.KeyPgUp)}, Description: "page up", Handler: func() { l.Select(l.selected - l.height + 1) }, Visible: true},
		bind("resume the session (a search hit: open it at the hit)", l.resume, K(tcell.KeyEnter)),
		bind("unfold / fold the session's sub-agents (↳)", func() { l.fold(true) }, K(tcell.KeyRight)),
		{Keys: []Key{K(tcell.KeyLeft)}, Description: "fold the sub-agents", Handler: func() { l.fold(false) }},
		bind("rename", func() { l.act(l.onRename) }, K(tcell.KeyCtrlR), K(tcell.KeyF2)),
		{Keys: []Key{K(tcell.KeyCtrlD)}, Description: "delete (asks first; can be undone)", Handler: func() { l.act(l.onDelete) }, Visible: true, Dangerous: true},
		bind("fork into a new session", func() { l.act(l.onFork) }, K(tcell.KeyCtrlF)),
		bind("export as kimi-cli context.jsonl", func() { l.act(l.onExport) }, K(tcell.KeyCtrlE)),
		bind("bring back the session deleted last (/undelete)", func() {
			if l.onUndoDelete != nil {
				l.onUndoDelete()
			}
		}, K(tcell.KeyCtrlY)),
		bind("clear the filter / close", l.escape, K(tcell.KeyEsc)),
		bind("only the sessions of the dir the agent works in / all", func() {
			if l.onScope != nil {
				l.onScope()
			}
		}, K(tcell.KeyCtrlT)),
		{Keys: []Key{R('/')}, Description: "as first character: full-text search of messages", Visible: true},
		{Keys: []Key{K(tcell.KeyF1), R('?')}, Description: "help: every key (? while the filter is empty)", Handler: l.help, Visible: true},
	}
	return l
}

// SetTheme applies a theme.
func (l *SessionList) SetTheme(t themes.Theme) {
	l.setTheme(t)
	l.previewCV.SetTheme(t)
}

// Bindings lists the list's keys (typing edits the filter).
func (l *SessionList) Bindings() []KeyBinding { return l.keys }

// SetSearchFunc sets the full-text search request callback. It is called
// on the UI thread with each new query; run the search elsewhere and call
// SetHits (through QueueUpdateDraw) with the results.
func (l *SessionList) SetSearchFunc(f func(query string)) { l.search = f }

// SetPreviewFunc sets the preview request callback, called with what the
// highlighted row shows (a session, or a hit's record); answer with
// SetPreview.
func (l *SessionList) SetPreviewFunc(f func(PreviewKey)) { l.preview = f }

// SetOnResume is called on Enter with the session's ID.
func (l *SessionList) SetOnResume(f func(sessionID string)) { l.onResume = f }

// SetOnOpenHit sets what Enter (or a double click) on a full-text hit does:
// open its session at the hit. Without it a hit resumes its session.
func (l *SessionList) SetOnOpenHit(f func(PreviewKey)) { l.onOpenHit = f }

// SetOnRename, SetOnDelete, SetOnFork and SetOnExport are called with the
// highlighted session.
func (l *SessionList) SetOnRename(f func(SessionRow)) { l.onRename = f }

// SetOnDelete: see SetOnRename.
func (l *SessionList) SetOnDelete(f func(SessionRow)) { l.onDelete = f }

// SetOnFork: see SetOnRename.
func (l *SessionList) SetOnFork(f func(SessionRow)) { l.onFork = f }

// SetOnExport: see SetOnRename.
func (l *SessionList) SetOnExport(f func(SessionRow)) { l.onExport = f }

// SetOnUndoDelete is called on Ctrl-Y (bring back the session deleted
// last): Ctrl-D kills, Ctrl-Y yanks back, as in Emacs; Ctrl-Z stays
// the terminal's suspend everywhere.
func (l *SessionList) SetOnUndoDelete(f func()) { l.onUndoDelete = f }

// SetOnScope is called on Ctrl-T (toggle "this dir" / "all"); SetScope
// says which one is listed.
func (l *SessionList) SetOnScope(f func()) { l.onScope = f }

// SetScope names what the list holds ("this dir" or "all") and the dir
// "this dir" is, shown in its header.
func (l *SessionList) SetScope(scope, dir string) { l.scope, l.scopeDir = scope, SanitizeLine(dir) }

// thisDir reports whether the list holds one dir's sessions.
func (l *SessionList) thisDir() bool { return l.scope == "this dir" }

// SearchAgain runs the full-text query again (what it searches changed:
// Ctrl-T); its hits stay until the new ones come.
func (l *SessionList) SearchAgain() {
	if !l.FullText() || l.lastAsked == "" {
		return
	}
	l.lastAsked = ""
	l.refilter()
	l.askPreview()
}

// SetOnHelp is called on F1, and on ? while the filter is empty.
func (l *SessionList) SetOnHelp(f func()) { l.onHelp = f }

func (l *SessionList) help() {
	if l.onHelp != nil {
		l.onHelp()
	}
}

// SetOnClose is called on Esc with an empty filter.
func (l *SessionList) SetOnClose(f func()) { l.onClose = f }

// SetSessions replaces the sessions (newest first) and re-applies the filter.
func (l *SessionList) SetSessions(rows []SessionRow) {
	var keep string
	if r, ok := l.SelectedSession(); ok {
		keep = r.ID
	}
	l.sessions = make([]SessionRow, len(rows))
	l.targets = make([]string, len(rows))
	l.lowTitles = make([]string, len(rows))
	for i, r := range rows {
		r.ID = SanitizeLine(r.ID)
		r.Title = SanitizeLine(r.Title)
		r.WorkDir = SanitizeLine(r.WorkDir)
		l.sessions[i] = r
		l.targets[i] = r.Title + "  " + r.WorkDir
		l.lowTitles[i] = strings.ToLower(r.Title)
	}
	l.lastQ = "\x00" // force a full refilter
	l.refilter()
	if keep != "" {
		for i, idx := range l.visible {
			if l.sessions[idx].ID == keep {
				l.selected = i
			}
		}
	}
	l.askPreview()
}

// SetMore says the rows given to SetSessions are the newest sessions
// only: the count says so ("3/500+") until the rest arrive.
func (l *SessionList) SetMore(more bool) { l.more = more }

// SetOnFilter is called when the fuzzy filter starts (filtering true) or
// is cleared: a list that holds the newest sessions only loads the rest,
// so the filter searches every session.
func (l *SessionList) SetOnFilter(f func(filtering bool)) { l.onFilter = f }

// Filtering reports whether a fuzzy filter is typed.
func (l *SessionList) Filtering() bool {
	return !l.FullText() && strings.TrimSpace(l.filter.String()) != ""
}

// SetFilter replaces the filter text (as if typed).
func (l *SessionList) SetFilter(q string) {
	was := l.Filtering()
	l.filter.set(q)
	l.refilter()
	l.askPreview()
	l.filterChanged(was)
}

// filterChanged tells onFilter when the fuzzy filter started or ended.
func (l *SessionList) filterChanged(was bool) {
	if now := l.Filtering(); now != was && l.onFilter != nil {
		l.onFilter(now)
	}
}

// Filter returns the filter text.
func (l *SessionList) Filter() string { return l.filter.String() }

// FullText reports whether the filter is a full-text query ("/…").
func (l *SessionList) FullText() bool { return strings.HasPrefix(l.filter.String(), "/") }

// SetHits delivers full-text results for query; results for a query that
// is no longer the filter are ignored. Hits may arrive in several calls for
// one query (a first page, then all): the selection is kept between them.
// more says there are more hits than these (the count shows "200+").
func (l *SessionList) SetHits(query string, hits []SearchHit, more bool) {
	if !l.FullText() || query != strings.TrimSpace(l.filter.String()[1:]) {
		return
	}
	l.hits = make([]SearchHit, len(hits))
	for i, h := range hits {
		h.SessionID = SanitizeLine(h.SessionID)
		h.Title = SanitizeLine(h.Title)
		h.WorkDir = SanitizeLine(h.WorkDir)
		h.Role = SanitizeLine(h.Role)
		h.Snippet = SanitizeLine(h.Snippet)
		l.hits[i] = h
	}
	if l.hitsQuery != query {
		l.selected, l.top = 0, 0
	}
	l.hitsQuery = query
	l.hitsMore = more
	l.hitsNote = ""
	l.selected = min(l.selected, max(0, len(l.hits)-1))
	l.askPreview()
}

// SetSearchNote answers query with a note instead of hits: the app does
// not search it (yet), and says why ("Type one more letter…").
func (l *SessionList) SetSearchNote(query, note string) {
	if !l.FullText() || query != strings.TrimSpace(l.filter.String()[1:]) {
		return
	}
	l.hits, l.hitsQuery, l.hitsMore, l.hitsNote = nil, query, false, note
	l.selected, l.top = 0, 0
}

// SetPreview delivers the preview of k (ignored unless k is the one last
// asked for). It is kept even when nothing is highlighted right now (a
// full-text query typed before the answer came, its hits not in yet).
func (l *SessionList) SetPreview(k PreviewKey, p Preview) {
	if k != l.previewKey {
		return
	}
	l.previewKey, l.previewSet = k, true
	l.previewCV.SetItems(p.Items)
	l.previewCV.showAt(p.Focus)
}

// Visible returns the sessions shown in fuzzy mode, best match first.
func (l *SessionList) Visible() []SessionRow {
	out := make([]SessionRow, len(l.visible))
	for i, idx := range l.visible {
		out[i] = l.sessions[idx]
	}
	return out
}

// Hits returns the full-text hits shown.
func (l *SessionList) Hits() []SearchHit { return l.hits }

// refilter recomputes the visible sessions. A query that extends the
// previous one only searches the previous matches.
func (l *SessionList) refilter() {
	q := l.filter.String()
	if strings.HasPrefix(q, "/") {
		ft := strings.TrimSpace(q[1:])
		if ft == "" {
			l.clearHits()
		}
		l.visible, l.matched = l.visible[:0], nil // the hits are listed, not the sessions
		if ft != l.lastAsked {
			// The hits of the last query stay until this one's replace
			// them (the count says "searching…"): blanking the list on
			// every key made it flicker.
			l.lastAsked = ft
			if ft != "" && l.search != nil {
				l.search(ft)
			}
		}
		l.lastQ = q
		l.selected, l.top = 0, 0
		return
	}
	l.lastAsked = ""
	l.clearHits()
	q = strings.TrimSpace(q)
	if q == "" {
		l.visible = l.visible[:0]
		for i, r := range l.sessions {
			// A sub-agent's row shows under its parent once unfolded.
			if r.SubagentOf != "" && !l.unfolded[r.SubagentOf] {
				continue
			}
			l.visible = append(l.visible, i)
		}
		l.matched = nil
		l.lastQ = q
		l.selected, l.top = 0, 0
		return
	}
	var src fuzzySubset
	src.targets = l.targets
	if l.lastQ != "\x00" && l.lastQ != "" && strings.HasPrefix(q, l.lastQ) && !strings.HasPrefix(l.lastQ, "/") {
		// in list order (newest first), not the last query's ranking: the
		// sort is stable, so equal scores stay newest first
		src.idx = slices.Sorted(slices.Values(l.visible))
	} else {
		src.idx = nil
	}
	ms := fuzzy.FindFrom(q, src)
	// A title the query equals, starts or contains as typed ranks first:
	// fuzzy scores count unmatched letters, so a longer work dir put
	// "SCALE-50" after SCALE-508 for "scale-50". Within a tier the fuzzy
	// order (ties newest first) stays.
	lq := strings.ToLower(q)
	var tiers [4][]fuzzy.Match
	for _, m := range ms {
		title := l.lowTitles[src.index(m.Index)]
		t := 3
		switch {
		case title == lq:
			t = 0
		case strings.HasPrefix(title, lq):
			t = 1
		case strings.Contains(title, lq):
			t = 2
		}
		tiers[t] = append(tiers[t], m)
	}
	if len(tiers[3]) < len(ms) {
		ms = slices.Concat(tiers[0], tiers[1], tiers[2], tiers[3])
	}
	l.visible = make([]int, len(ms))
	l.matched = make([][]int, len(ms))
	for i, m := range ms {
		l.visible[i] = src.index(m.Index)
		l.matched[i] = m.MatchedIndexes
	}
	l.lastQ = q
	l.selected, l.top = 0, 0
}

// clearHits forgets the full-text hits (the query was cleared).
func (l *SessionList) clearHits() {
	l.hits, l.hitsQuery, l.hitsMore, l.hitsNote = nil, "", false, ""
}

// fuzzySubset is a fuzzy.Source over all targets or a subset of them.
type fuzzySubset struct {
	targets []string
	idx     []int // nil = all
}

func (s fuzzySubset) index(i int) int {
	if s.idx == nil {
		return i
	}
	return s.idx[i]
}

func (s fuzzySubset) String(i int) string { return s.targets[s.index(i)] }

func (s fuzzySubset) Len() int {
	if s.idx == nil {
		return len(s.targets)
	}
	return len(s.idx)
}

func (l *SessionList) count() int {
	if l.FullText() {
		return len(l.hits)
	}
	return len(l.visible)
}

// SelectedSession returns the highlighted session (fuzzy mode) or the
// session of the highlighted hit (full-text mode, fields from the hit).
func (l *SessionList) SelectedSession() (SessionRow, bool) {
	if l.selected < 0 || l.selected >= l.count() {
		return SessionRow{}, false
	}
	if l.FullText() {
		h := l.hits[l.selected]
		for _, s := range l.sessions {
			if s.ID == h.SessionID {
				return s, true
			}
		}
		return SessionRow{ID: h.SessionID, Title: h.Title, WorkDir: h.WorkDir}, true
	}
	return l.sessions[l.visible[l.selected]], true
}

func (l *SessionList) selectedID() (string, bool) {
	r, ok := l.SelectedSession()
	return r.ID, ok
}

// Select highlights row i (clamped).
func (l *SessionList) Select(i int) {
	n := l.count()
	if n == 0 {
		return
	}
	l.selected = max(0, min(i, n-1))
	l.askPreview()
}

// selectedPreviewKey is what the highlighted row's preview shows.
func (l *SessionList) selectedPreviewKey() (PreviewKey, bool) {
	if l.FullText() {
		if l.selected < 0 || l.selected >= len(l.hits) {
			return PreviewKey{}, false
		}
		h := l.hits[l.selected]
		return PreviewKey{SessionID: h.SessionID, Hit: true, Gen: h.Gen, Seq: h.Seq, RecordSession: h.RecordSession}, true
	}
	id, ok := l.selectedID()
	return PreviewKey{SessionID: id}, ok
}

func (l *SessionList) askPreview() {
	k, ok := l.selectedPreviewKey()
	if !ok || k == l.previewKey {
		return
	}
	l.previewKey, l.previewSet = k, false
	if l.preview != nil {
		l.preview(k)
	}
}

func (l *SessionList) resume() {
	if k, ok := l.selectedPreviewKey(); ok && k.Hit && l.onOpenHit != nil {
		l.onOpenHit(k)
		return
	}
	if id, ok := l.selectedID(); ok && l.onResume != nil {
		l.onResume(id)
	}
}

// fold shows (open) or hides the sub-agent rows under the highlighted
// session; on a sub-agent's row, folding goes back to its parent.
func (l *SessionList) fold(open bool) {
	r, ok := l.SelectedSession()
	if !ok || l.FullText() || strings.TrimSpace(l.filter.String()) != "" {
		return
	}
	parent := r.ID
	if r.SubagentOf != "" {
		if open {
			return
		}
		parent = r.SubagentOf
	} else if r.Subagents == 0 {
		return
	}
	if l.unfolded == nil {
		l.unfolded = map[string]bool{}
	}
	if l.unfolded[parent] == open {
		if !open {
			l.selectID(parent)
		}
		return
	}
	l.unfolded[parent] = open
	l.lastQ = "\x00"
	l.refilter()
	l.selectID(parent)
}

// selectID highlights the visible row of session id, if any.
func (l *SessionList) selectID(id string) {
	for i, idx := range l.visible {
		if l.sessions[idx].ID == id {
			l.Select(i)
			return
		}
	}
}

func (l *SessionList) act(f func(SessionRow)) {
	if r, ok := l.SelectedSession(); ok && f != nil {
		f(r)
	}
}

func (l *SessionList) escape() {
	if l.filter.String() != "" {
		l.SetFilter("")
		return
	}
	if l.onClose != nil {
		l.onClose()
	}
}

// FormatAge renders how long ago t was in at most 5 cells (the AGE
// column): 45s, 12m, 3h, 5d, 4mo, 2y.
func FormatAge(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d < 365*24*time.Hour:
		return fmt.Sprintf("%dmo", int(d.Hours()/24/30))
	}
	return fmt.Sprintf("%dy", int(d.Hours()/24/365))
}

// Draw draws the filter line, the visible rows and the preview.
func (l *SessionList) Draw(screen tcell.Screen) {
	x, y, w, h := l.frame(screen, l)
	if w <= 0 || h <= 0 {
		return
	}
	th := l.theme
	base := l.base()
	// filter line
	prompt := "filter: "
	switch {
	case l.FullText() && l.thisDir() && w >= 60:
		prompt = "search (this dir): "
	case l.FullText():
		prompt = "search: "
	}
	n := drawText(screen, x, y, w, prompt, base.Foreground(th.Accent).Bold(true))
	if l.filter.String() == "" {
		drawText(screen, x+n, y, w-n, fitParts("type to filter · / searches messages", w-n), base.Foreground(th.Dim))
		if l.HasFocus() {
			screen.ShowCursor(x+n, y)
		}
	} else {
		count := ""
		if !l.FullText() {
			more := ""
			if l.more {
				more = "+"
			}
			count = fmt.Sprintf(" %d/%d%s", len(l.visible), len(l.sessions), more)
		} else if q := strings.TrimSpace(l.filter.String()[1:]); l.hitsQuery != "" && l.hitsQuery != q {
			count = " searching…" // the hits shown are the last query's
		} else if l.hitsQuery != "" && l.hitsNote == "" {
			more := ""
			if l.hitsMore {
				more = "+"
			}
			count = fmt.Sprintf(" %d%s %s", len(l.hits), more, words.Plural(len(l.hits), "hit", "hits"))
		}
		cw := strWidth(count)
		if w-n-cw < 8 {
			cw, count = 0, ""
		}
		l.filter.draw(screen, x+n, y, w-n-cw, base, l.HasFocus())
		drawText(screen, x+w-cw, y, cw, count, base.Foreground(th.Dim))
	}
	y++
	h--
	if h <= 0 {
		return
	}
	// preview: right half when wide, bottom third when tall
	listW, listH := w, h
	px, py, pw, ph := 0, 0, 0, 0
	switch {
	case w >= 110:
		listW = w * 3 / 5
		px, py, pw, ph = x+listW+1, y, w-listW-1, h
	case h >= 14:
		listH = h * 2 / 3
		px, py, pw, ph = x, y+listH+1, w, h-listH-1
	}
	l.height = max(1, listH)
	l.listRows = l.height
	if l.FullText() {
		l.drawHits(screen, x, y, listW, listH)
	} else {
		l.drawSessions(screen, x, y, listW, listH)
	}
	if pw > 0 && ph > 0 {
		if w >= 110 && !l.FullText() && l.height < l.listRows {
			// Side by side: the preview starts level with the first row,
			// under the column headers.
			screen.SetContent(px-1, py, '│', nil, l.base().Foreground(l.theme.Border))
			py, ph = py+1, ph-1
		}
		l.drawPreview(screen, px, py, pw, ph, w >= 110)
	}
}

func (l *SessionList) scrollTo(n, h int) {
	if l.selected < l.top {
		l.top = l.selected
	}
	if l.selected >= l.top+h {
		l.top = l.selected - h + 1
	}
	l.top = max(0, min(l.top, n-h))
}

func (l *SessionList) drawSessions(screen tcell.Screen, x, y, w, h int) {
	th := l.theme
	base := l.base()
	// columns: marker | title | work dir | the numbers (SessionColumns)
	statsW := 0
	if w >= statsMinWidth {
		statsW = statsWidth()
	}
	rest := w - statsW - 1
	titleW := rest
	dirW := 0
	if rest >= 40 && len(listShares) > 1 {
		titleW = rest * listShares[0].Share / (listShares[0].Share + listShares[1].Share)
		dirW = rest - titleW - 1
	}
	if h >= 3 {
		head := base.Foreground(th.Dim).Bold(true)
		if l.thisDir() {
			// the header names the dir, over the work dir column too
			hw := titleW - 1
			if dirW > 0 {
				hw += 1 + dirW
			}
			drawText(screen, x+1, y, hw, thisDirHeader(l.scopeDir, hw), head)
		} else {
			title := listShares[0].Header
			if l.scope != "" {
				title += " · " + l.scope + " (Ctrl-T)"
			}
			drawText(screen, x+1, y, titleW-1, title, head)
			if dirW > 0 {
				drawText(screen, x+titleW+1, y, dirW, listShares[1].Header, head)
			}
		}
		if statsW > 0 {
			drawText(screen, x+w-statsW, y, statsW, padLeft(statsText(func(c SessionColumn) string { return c.Header }), statsW), head)
		}
		y++
		h--
		l.height = max(1, h)
	}
	if len(l.visible) == 0 {
		msg := "No sessions."
		switch {
		case l.filter.String() != "" && l.more:
			msg = fmt.Sprintf("No match in the newest %d sessions · searching them all…", len(l.sessions))
		case l.filter.String() != "":
			msg = "No session matches."
		case l.thisDir():
			msg = "No sessions in " + ElidePath(l.scopeDir, w) + " (Ctrl-T shows all)."
		}
		drawWrapped(screen, x, y, w, h, msg, base.Foreground(th.Dim))
		return
	}
	l.scrollTo(len(l.visible), h)
	now := l.now()
	for r := 0; r < h && l.top+r < len(l.visible); r++ {
		i := l.top + r
		s := l.sessions[l.visible[i]]
		st, dim, hl := l.rowStyles(screen, x, y+r, w, i == l.selected)
		var m []int
		if l.matched != nil {
			m = l.matched[i]
		}
		title := listShares[0].List(s, now)
		off := 0 // where title starts in the fuzzy target
		if s.SubagentOf != "" {
			// "↳ coder · count the failing tests", indented under its parent.
			prefix := "↳ " + s.SubagentType + " · "
			if l.filter.String() == "" {
				prefix = "  " + prefix
			}
			title, off = prefix+title, -len(prefix)
		}
		mark, markSt := " ", st
		switch {
		case s.Current:
			mark, markSt = "▶", st.Foreground(th.Accent).Bold(true)
		case s.Live:
			mark, markSt = "●", st.Foreground(th.ToolOK)
		}
		drawText(screen, x, y+r, 1, mark, markSt)
		var tags string
		switch {
		case s.SubagentOf != "":
			// its type is in the title; the mark says when it is archived
			if s.SubagentArchived {
				tags = " archived"
			}
		default:
			if listMark.List != nil {
				if t := listMark.List(s, now); t != "" {
					tags = " " + t
				}
			}
			// beside its own mark ("⇣ claude ▸ 1 ↳"): the children's fold
			// took the place of where the session came from
			switch {
			case s.Subagents > 0 && l.unfolded[s.ID]:
				tags += fmt.Sprintf(" ▾ %d ↳", s.Subagents)
			case s.Subagents > 0:
				tags += fmt.Sprintf(" ▸ %d ↳", s.Subagents)
			}
		}
		tw := titleW - 1
		if tags != "" && tw > strWidth(tags)+8 {
			tw -= strWidth(tags)
			tagSt := dim
			if s.Unanswered && !s.Current {
				tagSt = dim.Foreground(th.Error)
			}
			// at the end of the title column, so the marks line up
			drawText(screen, x+1+tw, y+r, strWidth(tags), tags, tagSt)
		}
		drawHighlighted(screen, x+1, y+r, tw, title, off, m, st, hl)
		if dirW > 0 {
			wd := listShares[1].List(s, now)
			dir := ElidePath(wd, dirW)
			if dir == wd {
				drawHighlighted(screen, x+titleW+1, y+r, dirW, dir, len(s.Title)+2, m, dim, hl)
			} else {
				drawText(screen, x+titleW+1, y+r, dirW, dir, dim)
			}
		}
		if statsW > 0 {
			stats := statsText(func(c SessionColumn) string { return c.List(s, now) })
			drawText(screen, x+w-statsW, y+r, statsW, padLeft(stats, statsW), dim)
		}
	}
}

// thisDirHeader is the list's header when it holds one dir's sessions,
// fitted to w: the dir elided in the middle, then fewer words around it.
func thisDirHeader(dir string, w int) string {
	for _, f := range []struct{ pre, post string }{
		{"TITLE · in ", " (Ctrl-T: all)"},
		{"in ", " (Ctrl-T: all)"},
		{"in ", " (Ctrl-T)"},
		{"in ", ""},
	} {
		room := w - strWidth(f.pre) - strWidth(f.post)
		if room >= min(strWidth(dir), 16) {
			return f.pre + ElidePath(dir, room) + f.post
		}
	}
	return ElidePath(dir, w)
}

// drawWrapped draws msg word-wrapped in at most h rows of w cells.
// Callers elide a path in msg to w (ElidePath), so no row breaks it.
func drawWrapped(screen tcell.Screen, x, y, w, h int, msg string, st tcell.Style) {
	for i, line := range wrapPlain(msg, w, st) {
		if i >= h {
			return
		}
		drawLine(screen, x, y+i, w, line)
	}
}

// ElidePath fits a path in w cells by cutting its middle: the last
// element is always kept whole when it fits ("/home/…/project2"), so two
// paths that differ only at the end never look the same.
func ElidePath(p string, w int) string {
	if strWidth(p) <= w || w <= 0 {
		return p
	}
	i := strings.LastIndexByte(strings.TrimRight(p, "/"), '/')
	if i < 0 {
		return truncate(p, w)
	}
	last := p[i:] // "/project2"
	if strWidth(last)+1 > w {
		return truncate("…"+last, w)
	}
	head := []rune(p[:i])
	for len(head) > 0 && strWidth(string(head))+1+strWidth(last) > w {
		head = head[:len(head)-1]
	}
	return string(head) + "…" + last
}

// rowStyles returns a row's text, dim and match-highlight styles; a
// selected row is filled with the selection background first.
func (l *SessionList) rowStyles(screen tcell.Screen, x, y, w int, selected bool) (st, dim, hl tcell.Style) {
	th, base := l.theme, l.base()
	st = base
	dim = base.Foreground(th.Dim)
	hl = base.Foreground(th.MatchHighlight).Bold(true)
	if selected {
		st = st.Background(th.SelectionBg).Foreground(th.SelectionFg)
		dim = dim.Background(th.SelectionBg)
		hl = hl.Background(th.SelectionBg)
		fill(screen, x, y, w, st)
	}
	return st, dim, hl
}

// drawHighlighted draws s (which starts at byte offset off of the matched
// target) with the bytes in matched drawn in hl.
func drawHighlighted(screen tcell.Screen, x, y, w int, s string, off int, matched []int, st, hl tcell.Style) {
	if w <= 0 {
		return
	}
	mi := 0
	cx := 0
	if strWidth(s) > w {
		s = truncate(s, w)
	}
	for bi, r := range s {
		rw := runeWidth(r)
		if rw == 0 {
			continue
		}
		if cx+rw > w {
			break
		}
		for mi < len(matched) && matched[mi] < off+bi {
			mi++
		}
		style := st
		if mi < len(matched) && matched[mi] == off+bi {
			style = hl
		}
		screen.SetContent(x+cx, y, r, nil, style)
		cx += rw
	}
}

func (l *SessionList) drawHits(screen tcell.Screen, x, y, w, h int) {
	th := l.theme
	base := l.base()
	q := strings.TrimSpace(strings.TrimPrefix(l.filter.String(), "/"))
	var msg string
	switch {
	case q == "" && l.thisDir():
		msg = "Type words to search the messages of " + ElidePath(l.scopeDir, w) + " (Ctrl-T: all)."
	case q == "":
		msg = "Type words to search all messages."
	case l.hitsQuery != q && len(l.hits) == 0:
		msg = "Searching…"
	case len(l.hits) == 0 && l.hitsNote != "":
		msg = l.hitsNote
	case len(l.hits) == 0 && l.thisDir():
		msg = "No message matches in " + ElidePath(l.scopeDir, w) + " (Ctrl-T searches all)."
	case len(l.hits) == 0:
		msg = "No message matches."
	}
	if msg != "" {
		drawWrapped(screen, x, y, w, h, msg, base.Foreground(th.Dim))
		return
	}
	l.scrollTo(len(l.hits), h)
	for r := 0; r < h && l.top+r < len(l.hits); r++ {
		i := l.top + r
		hit := l.hits[i]
		st, dim, hl := l.rowStyles(screen, x, y+r, w, i == l.selected)
		cx := x
		if hit.Fork {
			cx += drawText(screen, cx, y+r, w, "⑂ ", dim)
		}
		head := truncate(hit.Title, min(30, w/3))
		cx += drawText(screen, cx, y+r, x+w-cx, head, st.Bold(true))
		if hit.Archived {
			cx += drawText(screen, cx, y+r, x+w-cx, fmt.Sprintf(" g%d archived", hit.Gen), dim)
		}
		if hit.AlsoIn > 0 {
			cx += drawText(screen, cx, y+r, x+w-cx, " "+words.AlsoInSessions(hit.AlsoIn), dim)
		}
		cx += drawText(screen, cx, y+r, x+w-cx, " · "+hit.Role+": ", dim)
		text, marks := snippetWindow(hit.Snippet, x+w-cx)
		drawHighlighted(screen, cx, y+r, x+w-cx, text, 0, marks, st, hl)
	}
}

// snippetWindow strips the « » match markers of a store snippet and, when
// the first match would not fit in w cells, cuts the text before it (to
// "…" and some words of context), so the matched words are always shown.
// It returns the text and the byte offsets of the matched bytes in it.
func snippetWindow(snippet string, w int) (string, []int) {
	var b strings.Builder
	var marks []int
	in := false
	for _, r := range snippet {
		switch r {
		case '«':
			in = true
			continue
		case '»':
			in = false
			continue
		}
		if in {
			for k := range utf8.RuneLen(r) {
				marks = append(marks, b.Len()+k)
			}
		}
		b.WriteRune(r)
	}
	text := b.String()
	if len(marks) == 0 || w <= 0 {
		return text, marks
	}
	// the end of the first matched word, in cells
	first := marks[0]
	end := first
	for _, m := range marks {
		if m > end+1 {
			break
		}
		end = m
	}
	if strWidth(text[:end+1]) <= w-1 {
		return text, marks
	}
	// keep words before the match, leaving a third of the width for the
	// match and what follows it
	keep := max(w/4, w-w/3-strWidth(text[first:end+1]))
	start := first
	for start > 0 {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		if strWidth(text[start-size:first]) > keep {
			break
		}
		start -= size
	}
	if start > 0 && text[start-1] != ' ' { // mid-word: start at the next word
		if i := strings.IndexByte(text[start:first], ' '); i >= 0 {
			start += i + 1
		}
	}
	const ell = "…"
	out := ell + text[start:]
	shifted := make([]int, 0, len(marks))
	for _, m := range marks {
		if m >= start {
			shifted = append(shifted, m-start+len(ell))
		}
	}
	return out, shifted
}

func (l *SessionList) drawPreview(screen tcell.Screen, x, y, w, h int, side bool) {
	th := l.theme
	base := l.base()
	line := base.Foreground(th.Border)
	if side {
		for j := 0; j < h; j++ {
			screen.SetContent(x-1, y+j, '│', nil, line)
		}
	} else {
		for i := 0; i < w; i++ {
			screen.SetContent(x+i, y-1, '─', nil, line)
		}
	}
	r, ok := l.SelectedSession()
	if !ok {
		return
	}
	drawText(screen, x, y, w, truncate(r.Title, w), base.Foreground(th.Heading).Bold(true))
	if h < 2 {
		return
	}
	drawText(screen, x, y+1, w, truncate(r.WorkDir, w), base.Foreground(th.Dim))
	if h < 3 {
		return
	}
	k, _ := l.selectedPreviewKey()
	switch {
	case !l.previewSet || l.previewKey != k:
		drawText(screen, x, y+2, w, "…", base.Foreground(th.Dim))
	case l.previewCV.Len() == 0:
		drawText(screen, x, y+2, w, "(no messages)", base.Foreground(th.Dim))
	default:
		l.previewCV.SetRect(x, y+2, w, h-2)
		l.previewCV.Draw(screen)
	}
}

// InputHandler: bound keys first, then typing edits the filter.
func (l *SessionList) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return l.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		if ev.Key() != tcell.KeyRune && l.keys.Handle(ev) {
			return
		}
		if ev.Key() == tcell.KeyRune && ev.Rune() == '?' && l.filter.String() == "" && l.onHelp != nil {
			l.onHelp()
			return
		}
		before, was := l.filter.String(), l.Filtering()
		handled := false
		if ev.Key() == tcell.KeyCtrlU && l.FullText() && l.filter.pos > 1 {
			// clear the words, keep the "/": still a full-text search
			f := &l.filter
			f.text, f.pos, handled = append([]rune{'/'}, f.text[f.pos:]...), 1, true
		}
		if (handled || l.filter.handle(ev)) && l.filter.String() != before {
			l.refilter()
			l.askPreview()
			l.filterChanged(was)
		}
	})
}

// PasteHandler pastes into the filter.
func (l *SessionList) PasteHandler() func(string, func(tview.Primitive)) {
	return l.WrapPasteHandler(func(s string, _ func(tview.Primitive)) {
		was := l.Filtering()
		l.filter.paste(s)
		l.refilter()
		l.askPreview()
		l.filterChanged(was)
	})
}

// MouseHandler selects on click, resumes on double click, scrolls.
func (l *SessionList) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return listMouse(l, l.Box, func() int { return l.selected }, l.Select, func(y int) int {
		_, iy, _, _ := l.GetInnerRect()
		r := y - iy - 1
		if !l.FullText() && l.height < l.listRows {
			r-- // below the column headers
		}
		if r < 0 || r >= l.height || l.top+r >= l.count() {
			return -1
		}
		return l.top + r
	}, l.resume)
}

// listMouse is a list's mouse handling: the wheel moves the selection by
// three rows, a click selects the row under it (row maps a screen line to
// an index, -1 for none) and a double click also opens it.
func listMouse(p tview.Primitive, box *tview.Box, selected func() int, sel func(int), row func(y int) int, open func()) func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return box.WrapMouseHandler(func(a tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		mx, my := ev.Position()
		if !box.InRect(mx, my) {
			return false, nil
		}
		switch a {
		case tview.MouseScrollUp:
			sel(selected() - 3)
		case tview.MouseScrollDown:
			sel(selected() + 3)
		case tview.MouseLeftClick, tview.MouseLeftDoubleClick:
			setFocus(p)
			if i := row(my); i >= 0 {
				sel(i)
				if a == tview.MouseLeftDoubleClick {
					open()
				}
			}
		default:
			return false, nil
		}
		return true, nil
	})
}

// ImportMark is the mark of a session imported from the agent origin
// ("⇣ codex"), the same in the browser and `rewind sessions`.
func ImportMark(origin string) string {
	if origin == "" {
		origin = "kimi"
	}
	return "⇣ " + origin
}
