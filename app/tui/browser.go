package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// The sessions feature: the Sessions pane and the full-screen browser
// (/sessions or Ctrl-O), with their actions (rename, delete with undo, fork,
// export). Typing filters fuzzily (views.SessionList); a "/" prefix
// searches message text as you type (searchRunner); the preview of the
// highlighted session loads on a worker; Enter resumes it in the workspace,
// and on a search hit opens it at the hit (onUIOpenHit).
// The pane is re-listed every sessionsPoll and the open browser every
// browserPoll when the sessions changed.

// browserPoll is how often the open browser looks for changed sessions.
const browserPoll = 2 * time.Second

// browserPage names the full-screen browser on the page stack.
const browserPage = "browser"

// browser is the sessions feature controller. Its fields are UI state
// unless said otherwise.
type browser struct {
	c       browserDeps
	pane    *views.SessionList // the workspace's Sessions pane
	list    *views.SessionList // the full-screen browser's list
	page    *tview.Flex        // the list above the status bar (messages stay visible)
	stop    context.CancelFunc // the open browser's poller
	deleted []views.SessionRow // soft-deleted from this workspace, newest last (undo)

	// paneSig is the signature of the list the pane shows, set on the UI
	// goroutine when a list is applied (not when it is posted: a post made
	// before the UI runs is dropped, and must not suppress the next one).
	sigMu   sync.Mutex
	paneSig string

	// thisDir: the lists show the sessions of the dir the agent works in
	// only (Ctrl-T; Controller.workDir); read by workers.
	thisDir atomic.Bool
	// shownDir is the dir the lists' header names (UI state): when the
	// agent moves, a search limited to it runs again.
	shownDir string
	// paneAll: the pane lists every session, not the newest sessionLimit,
	// while its filter is typed (so the filter searches them all); read by
	// workers.
	paneAll atomic.Bool
	// paneLimit is how many sessions the pane lists when not filtering
	// (sessionLimit; tests lower it).
	paneLimit int
	// holdPane (tests) runs in a list of the pane between its read and its
	// post: it holds the post back.
	holdPane func()
}

// browserDeps is what the session lists reach: the database, the prompt
// and the pages of their dialogs, the conversation (the work-dir banner),
// the dir rewind started in, the open session and the switches to another,
// the poll counters, workers and notices.
type browserDeps struct {
	featureCommon
	browserHost
	demoElsewhere func(sess store.Session) bool // Options.demoElsewhere
	prompt        *views.PromptDialog
	conv          *views.Conversation
	pollStats     *pollStats
	startDir      string // Options.WorkDir
	// export is Options.Export: the one export of the CLI and /export (nil
	// where there is none).
	export func(ctx context.Context, sessionID, path string) (int, error)
	// previews is time travel: a hit opened ends its preview first.
	previews interface{ onUIEndPreview() }
}

type browserHost interface {
	SessionID() string
	workDir() string
	onUIFork(id string)
	onUIOpenSessionAt(id string, at *hitAt)
}

// initBrowser wires the session list pane and the browser (New).
func (c *Controller) initBrowser() {
	deps := browserDeps{featureCommon: c.common(), browserHost: c, demoElsewhere: c.opts.demoElsewhere, prompt: c.prompt, conv: c.conv,
		pollStats: &c.pollStats, startDir: c.opts.WorkDir, export: c.opts.Export, previews: c.tt}
	b := c.br // allocated by initFeatures: features built before it name it
	*b = browser{c: deps, pane: c.sessions, list: views.NewSessionList(), paneLimit: sessionLimit}
	// Most wanted first: a narrow title loses parts from the end, and
	// "F1 help" lists every key.
	b.list.SetPaneTitle("Sessions · F1 help · Enter resume · / search messages · Ctrl-T this dir/all · Ctrl-R rename · Ctrl-D delete · Ctrl-Y undelete · Ctrl-F fork · Ctrl-E export · Esc close")
	for _, l := range []*views.SessionList{b.pane, b.list} {
		l.SetOnRename(b.onUIRename)
		l.SetOnDelete(b.onUIDelete)
		l.SetOnFork(b.onUIFork)
		l.SetOnExport(b.onUIExport)
		loader := &previewLoader{wait: previewDebounce, run: c.onWorker}
		l.SetPreviewFunc(func(k views.PreviewKey) { loader.request(func() { b.onWorkerPreview(l, k) }) })
		l.SetSearchFunc(newSearchRunner(c, l).request)
		l.SetOnScope(b.onUIToggleScope)
		l.SetOnUndoDelete(b.onUIUndoDelete)
		l.SetOnHelp(c.help.onUIShow)
	}
	b.applyScope()
	b.pane.SetOnResume(c.onUIOpenSession)
	b.pane.SetOnOpenHit(b.onUIOpenHit)
	b.pane.SetOnFilter(b.onUIPaneFilter)
	bl := b.list
	b.page = tview.NewFlex().SetDirection(tview.FlexRow).AddItem(bl, 0, 1, true).AddItem(c.status, 1, 0, false)
	bl.SetOnResume(func(id string) {
		c.pages.pop(browserPage)
		c.onUIOpenSession(id)
	})
	bl.SetOnOpenHit(func(k views.PreviewKey) {
		c.pages.pop(browserPage)
		b.onUIOpenHit(k)
	})
	bl.SetOnClose(func() { c.pages.pop(browserPage) })
	c.keys = append(c.keys,
		globalBinding{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyCtrlO)}, Description: "session browser (all sessions, full screen)", Handler: b.onUIOpen, Visible: true}},
	)
	c.AddCommand(Command{Name: "/sessions", Description: "browse every session full screen (type to filter, / for full-text search, Enter resumes)", Run: func(string) { b.onUIOpen() }})
	c.AddCommand(Command{Name: "/undelete", Description: "bring back the session deleted last", Run: func(string) { b.onUIUndoDelete() }})
}

// onUIOpen shows the full-screen browser and starts its poller.
func (b *browser) onUIOpen() {
	c := b.c
	if c.pages.has(browserPage) {
		return
	}
	b.list.SetTheme(c.currentTheme())
	b.list.SetFilter("") // each open starts afresh, not on the last filter
	b.page.SetBackgroundColor(c.currentTheme().Background)
	ctx, cancel := context.WithCancel(c.ctx)
	c.pages.push(Page{Name: browserPage, Primitive: b.page, Opaque: true,
		Start: func() {
			b.stop = cancel
			c.onWorker(func() { b.onWorkerPoll(ctx) })
		},
		Stop: func() {
			cancel()
			b.stop = nil
		},
	})
}

// onUIPaneFilter runs when the pane's filter starts or is cleared: while
// it is typed the pane lists every session, not the newest sessionLimit,
// so the filter finds any of them (the count says "n/500+" until they are
// in); cleared, the pane goes back to the newest.
func (b *browser) onUIPaneFilter(filtering bool) {
	b.paneAll.Store(filtering)
	b.c.onWorker(func() {
		b.storePaneSig("")
		b.onWorkerListPane()
	})
}

// onWorkerListPane posts the pane's list when it differs from the one the
// pane shows.
func (b *browser) onWorkerListPane() {
	c := b.c
	limit := b.paneLimit
	all := b.paneAll.Load()
	if all {
		limit = 0
	}
	opts := b.listOptions(limit)
	rows, more, sig, err := listNewestRows(c.ctx, c.db, opts)
	sig += "|open:" + c.SessionID()
	if err != nil || sig == b.loadPaneSig() {
		return
	}
	if b.holdPane != nil {
		b.holdPane()
	}
	c.onUIThreadAsync(func() {
		if all != b.paneAll.Load() || !b.inScope(opts) {
			return // listed before the filter or the scope changed: their own list follows
		}
		b.pane.SetMore(more)
		b.onUISetRows(b.pane, rows)
		b.storePaneSig(sig)
	})
}

// listNewestRows is listSessionRows of at most o.Limit sessions (0: all);
// more reports that there are more than that.
func listNewestRows(ctx context.Context, db *store.DB, o store.ListOptions) (rows []views.SessionRow, more bool, sig string, err error) {
	limit := o.Limit
	if limit > 0 {
		o.Limit++
	}
	rows, sig, err = listSessionRows(ctx, db, o)
	if limit > 0 && len(rows) > limit {
		rows, more = rows[:limit], true
		sig += "|more"
	}
	return rows, more, sig, err
}

func (b *browser) loadPaneSig() string {
	b.sigMu.Lock()
	defer b.sigMu.Unlock()
	return b.paneSig
}

func (b *browser) storePaneSig(s string) {
	b.sigMu.Lock()
	b.paneSig = s
	b.sigMu.Unlock()
}

// onWorkerPreview loads what a session list (the pane or the browser)
// previews and hands it back: a session's newest messages, or the
// messages from a search hit's record on.
func (b *browser) onWorkerPreview(list *views.SessionList, k views.PreviewKey) {
	c := b.c
	var v store.View
	var err error
	if k.Hit {
		// a few records before the hit's and previewRecords after it, not
		// the whole view (a hit in a 240,000-message session read all of it)
		v, err = c.db.ViewAround(c.ctx, k.SessionID, k.Gen, store.ViewPos{SessionID: k.RecordSession, Seq: k.Seq}, previewBefore, previewRecords)
	} else {
		v, err = c.db.ViewBefore(c.ctx, k.SessionID, -1, store.ViewPos{}, previewRecords) // its newest records only
	}
	if err != nil {
		return
	}
	p := previewOf(v, k)
	c.onUIThreadAsync(func() { list.SetPreview(k, p) })
	c.pollStats.previews.Add(1)
}

// previewDebounce is how long a preview waits for the selection to move
// on: scrolling through a list reads only the previews it stops at, and a
// query's hits are drawn before their preview is read.
const previewDebounce = 40 * time.Millisecond

// previewLoader debounces the preview loads of one session list.
type previewLoader struct {
	wait time.Duration
	run  func(func()) // starts a load on a worker (Controller.onWorker)

	mu    sync.Mutex
	timer *time.Timer
}

// request starts load after wait unless another request comes first (which
// drops this one).
func (p *previewLoader) request(load func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
	}
	p.timer = time.AfterFunc(p.wait, func() { p.run(load) })
}

// previewItems bounds the items a preview holds (it shows a screenful),
// and previewRecords the records decoded for it: a session of thousands of
// records is not decoded whole to show a dozen items.
const (
	previewItems   = 16
	previewRecords = 48
	previewBefore  = 8 // records before a hit's, for the items just above it
)

// previewOf is the preview of a view: its newest items, or for a search
// hit the items from the one showing the hit's record (k.Seq) on, with a
// few before it for context.
func previewOf(v store.View, k views.PreviewKey) views.Preview {
	recs := v.Records
	if k.Hit {
		if i := slices.IndexFunc(recs, func(r store.Record) bool { return r.Seq == k.Seq }); i >= 0 {
			start := max(0, i-previewBefore)
			win := recs[start:min(len(recs), i+previewRecords)]
			i -= start
			items := viewItems(store.View{Records: win})
			if at := hitItem(win, i, items); at >= 0 {
				from := max(0, at-3)
				return views.Preview{Items: items[from:min(len(items), at+previewItems)], Focus: at - from}
			}
		}
	}
	items := viewItems(store.View{Records: recs[max(0, len(recs)-previewRecords):]})
	return views.Preview{Items: items[max(0, len(items)-previewItems):], Focus: -1}
}

// hitItem is the index in items (viewItems of recs) of the item showing
// recs[i] (a search hit's record), which it unfolds so that the text that
// matched shows (a tool call's result, a long paste): the record's first
// item (reasoning is skipped: it is folded), or for a tool result the item
// of its call; -1 when there is no such item.
func hitItem(recs []store.Record, i int, items []views.Item) int {
	at := hitItemAt(recs, i, items)
	if at >= 0 {
		items[at].Expanded = true
	}
	return at
}

func hitItemAt(recs []store.Record, i int, items []views.Item) int {
	before := viewItems(store.View{Records: recs[:i]})
	if m, err := recs[i].Message(); err == nil && m.Role == "tool" {
		for j, it := range before {
			if it.Kind == views.ItemTool && it.ID == m.ToolCallID {
				return j
			}
		}
		return -1
	}
	at := len(before)
	if at+1 < len(items) && items[at].Kind == views.ItemReasoning {
		at++
	}
	if at >= len(items) {
		return -1
	}
	return at
}

// onWorkerBrowserPoll lists every session now and again whenever they
// change, until ctx ends (the browser closes).
func (b *browser) onWorkerPoll(ctx context.Context) {
	c := b.c
	tick := time.NewTicker(browserPoll)
	defer tick.Stop()
	var sig string
	for {
		opts := b.listOptions(0)
		rows, s, err := listSessionRows(ctx, c.db, opts)
		if err == nil && s != sig {
			sig = s
			c.onUIThreadAsync(func() {
				if ctx.Err() == nil && b.inScope(opts) {
					b.onUISetRows(b.list, rows)
				}
			})
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// listSessionRows lists the newest sessions (o.Limit 0: all) as
// session-list rows, with a signature that changes when anything shown
// changes (every column's value: views.SessionRow.Signature).
func listSessionRows(ctx context.Context, db *store.DB, o store.ListOptions) ([]views.SessionRow, string, error) {
	list, err := db.ListSessions(ctx, o)
	if err != nil {
		return nil, "", err
	}
	kids, err := subagentRows(ctx, db, list)
	if err != nil {
		return nil, "", err
	}
	rows := make([]views.SessionRow, 0, len(list))
	var sig strings.Builder
	for _, s := range list {
		row := SessionRow(s)
		row.Subagents = len(kids[s.ID])
		rows = append(rows, row)
		sig.WriteString(row.Signature())
		sig.WriteByte(';')
		for _, k := range kids[s.ID] {
			rows = append(rows, k)
			sig.WriteString(k.Signature())
			sig.WriteByte(';')
		}
	}
	return rows, sig.String(), nil
}

// SessionRow converts a session for the session lists: the workspace's,
// `rewind sessions` and its --json. A fork's title says what it was cut
// from (store.Session.ListTitle).
func SessionRow(s store.Session) views.SessionRow {
	return views.SessionRow{ID: s.ID, Title: s.ListTitle(), Name: s.Title, WorkDir: s.WorkDir,
		Created: s.CreatedAt, Updated: s.UpdatedAt, CurrentGen: s.CurrentGen,
		Messages: s.Messages, Checkpoints: s.Checkpoints, Tokens: s.Tokens, Generations: s.Generations,
		Imported: s.Imported, Origin: s.Origin, Unanswered: s.Unanswered,
		ForkOf: s.ForkOf, ForkOfTitle: s.ForkOfTitle, ForkCheckpoint: s.ForkCheckpoint,
		SubagentOf: s.SubagentOf, SubagentType: s.SubagentType}
}

// listOptions is what the lists show: every session, or (Ctrl-T) those of
// the dir the agent works in.
func (b *browser) listOptions(limit int) store.ListOptions {
	return store.ListOptions{Limit: limit, WorkDir: b.scopeDir()}
}

// inScope reports whether a list read with o is of the lists' scope now
// (UI): one read before a Ctrl-T, applied after the toggle's own list,
// showed every session under a header that says this dir's, until the
// next change to the list (up to idleListRefresh).
func (b *browser) inScope(o store.ListOptions) bool { return o.WorkDir == b.scopeDir() }

// scopeDir is the work dir the lists and their searches are limited to:
// "" for all, else the dir the agent works in (any goroutine).
func (b *browser) scopeDir() string {
	if b.thisDir.Load() {
		return b.c.workDir()
	}
	return ""
}

// onUIOpened runs when the workspace shows a session (at start, and after
// switching): the lists mark it, and the status bar says when the agent now
// works in another dir. withBanner also puts workDirBanner in the
// conversation (a switch carries it on its reload instead).
func (b *browser) onUIOpened(withBanner bool) {
	c := b.c
	b.onUIRefresh()
	o := c.cur()
	if o == nil || o.soul == nil {
		return // read-only (watching, no model): the agent works nowhere
	}
	banner := b.workDirBanner(o.sess)
	if banner == nil {
		return
	}
	if withBanner {
		c.conv.Append(*banner)
	}
	// A warning from opening it (file rewinds off) stays in view.
	// Short: the conversation header names the dir too, in full when it fits.
	c.setInfoUnlessError("working in " + views.ElidePath(homeShort(o.sess.WorkDir), 32))
}

// workDirBanner says plainly that the agent will work in sess's work dir
// when that is not the workspace's; nil when it is the same.
func (b *browser) workDirBanner(sess store.Session) *views.Item {
	here := b.c.startDir
	if sess.WorkDir == "" || here == "" || filepath.Clean(sess.WorkDir) == filepath.Clean(here) {
		return nil
	}
	if b.c.demoElsewhere(sess) {
		return &views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo,
			Text: demoReadOnly + " (" + here + "): this session's " + sess.WorkDir + " is not touched. Run rewind there to continue it."}
	}
	text := fmt.Sprintf("This session belongs to %s: the agent works there now (its tools read, write and run commands in %s, not in %s).",
		sess.WorkDir, sess.WorkDir, here)
	// A history from another machine or an import may name a dir that is
	// not here; the tools' failures there would not say why.
	if _, err := os.Stat(sess.WorkDir); errors.Is(err, fs.ErrNotExist) {
		text = fmt.Sprintf("This session belongs to %s, which is not on this machine: it is open read-only, and can be forked into %s to continue there.", sess.WorkDir, here)
	}
	return &views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: text}
}

// onUIToggleScope switches both lists, and their searches, between the
// dir the agent works in and all.
func (b *browser) onUIToggleScope() {
	b.thisDir.Store(!b.thisDir.Load())
	b.onUIRefresh()
	b.pane.SearchAgain()
	b.list.SearchAgain()
}

// applyScope names what the lists hold in their headers; a full-text
// query runs again when what it searches changed.
func (b *browser) applyScope() {
	scope, dir := "all", b.c.workDir()
	if b.thisDir.Load() {
		scope = "this dir"
	}
	for _, l := range []*views.SessionList{b.pane, b.list} {
		l.SetScope(scope, dir)
	}
	if b.thisDir.Load() && dir != b.shownDir {
		b.pane.SearchAgain()
		b.list.SearchAgain()
	}
	b.shownDir = dir
}

// onUISetRows shows rows on a list, marking the session open here.
func (b *browser) onUISetRows(l *views.SessionList, rows []views.SessionRow) {
	cur := b.c.SessionID()
	for i := range rows {
		rows[i].Current = rows[i].ID == cur
	}
	l.SetSessions(rows)
}

// onUIRefresh re-lists the pane and (when open) the browser after this
// workspace changed a session.
func (b *browser) onUIRefresh() {
	c := b.c
	b.applyScope()               // the agent may work in another dir now
	browserOpen := b.stop != nil // UI state: read it here, not on the worker
	c.onWorker(func() {
		b.storePaneSig("") // force the pane's next list through
		b.onWorkerListPane()
		if !browserOpen {
			return
		}
		opts := b.listOptions(0)
		if rows, _, err := listSessionRows(c.ctx, c.db, opts); err == nil {
			c.onUIThreadAsync(func() {
				if b.inScope(opts) {
					b.onUISetRows(b.list, rows)
				}
			})
		}
	})
}

// onUIRename prompts for a new title.
func (b *browser) onUIRename(r views.SessionRow) {
	c := b.c
	initial := r.Title
	if initial == "(untitled)" {
		initial = ""
	}
	c.prompt.SetTheme(c.currentTheme())
	c.prompt.Show("Rename session", "Title:", initial, func(text string, ok bool) {
		c.pages.pop("prompt")
		text = strings.TrimSpace(text)
		if !ok || text == "" || text == r.Title {
			return
		}
		c.onWorker(func() {
			if err := c.db.RenameSession(c.ctx, r.ID, text); err != nil {
				c.post(evNote{text: "rename: " + err.Error(), isErr: true})
				return
			}
			c.post(evNote{text: fmt.Sprintf("renamed to “%s”", oneLine(text, 60))})
			c.onUIThreadAsync(func() {
				if o := c.cur(); o != nil && o.sess.ID == r.ID {
					c.statusModel().SessionTitle = text
					c.refreshStatus()
				}
				b.onUIRefresh()
			})
		})
	})
	c.pages.push(Page{Name: "prompt", Primitive: c.prompt})
}

// onUIDelete asks, then soft-deletes a session (Ctrl-Y or /undelete undoes).
func (b *browser) onUIDelete(r views.SessionRow) {
	c := b.c
	if o := c.cur(); o != nil && o.sess.ID == r.ID {
		c.setMessage("this session is open in the workspace: switch to another one before deleting it", true)
		return
	}
	msg := fmt.Sprintf("Delete session “%s” (%d %s)?\n\nIt is hidden from the lists, not erased: Ctrl-Y in the session list or /undelete brings it back.",
		oneLine(r.Title, 80), r.Messages, words.Plural(r.Messages, "message", "messages"))
	c.showConfirm("Delete session", msg, []views.Choice{
		{Label: "Delete", Key: 'd', Dangerous: true},
		{Label: "Cancel", Key: 'n'},
	}, 1, func(i int) {
		if i != 0 {
			return
		}
		c.onWorker(func() {
			if err := c.db.DeleteSession(c.ctx, r.ID); err != nil {
				c.post(evNote{text: "delete: " + err.Error(), isErr: true})
				return
			}
			c.onUIThreadAsync(func() {
				b.deleted = append(b.deleted, r)
				c.setMessage(fmt.Sprintf("deleted “%s” · Ctrl-Y or /undelete undoes", oneLine(r.Title, 50)), false)
				b.onUIRefresh()
			})
		})
	})
}

// onUIUndoDelete brings back the session deleted last.
func (b *browser) onUIUndoDelete() {
	c := b.c
	n := len(b.deleted)
	if n == 0 {
		c.setMessage("nothing to undo: no session was deleted here", false)
		return
	}
	r := b.deleted[n-1]
	b.deleted = b.deleted[:n-1]
	c.onWorker(func() {
		if err := c.db.UndeleteSession(c.ctx, r.ID); err != nil {
			c.post(evNote{text: "undo delete: " + err.Error(), isErr: true})
			return
		}
		c.post(evNote{text: fmt.Sprintf("restored session “%s”", oneLine(r.Title, 50))})
		c.onUIThreadAsync(b.onUIRefresh)
	})
}

// onUIFork forks a session's current generation into a new session
// and opens it.
func (b *browser) onUIFork(r views.SessionRow) {
	c := b.c
	if c.refuse("forking", ruleRunActive) {
		return
	}
	c.pages.pop(browserPage)
	c.onUIFork(r.ID)
	b.onUIRefresh()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// exportName suggests a file name for an export.
func exportName(r views.SessionRow) string {
	base := strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(r.Title), "-"), "-")
	if len(base) > 40 {
		base = strings.Trim(base[:40], "-")
	}
	if base == "" || base == "untitled" {
		base = "session"
	}
	return base + "-" + shortID(r.ID) + ".jsonl"
}

// onUIExport prompts for a path and writes the session's current
// generation as a kimi-cli context.jsonl there; an existing file is never
// overwritten.
func (b *browser) onUIExport(r views.SessionRow) {
	c := b.c
	dir := c.startDir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	c.prompt.SetTheme(c.currentTheme())
	c.prompt.Show("Export session (kimi-cli context.jsonl)", "Path:", filepath.Join(dir, exportName(r)), func(text string, ok bool) {
		c.pages.pop("prompt")
		path := strings.TrimSpace(text)
		if !ok || path == "" {
			return
		}
		if c.export == nil {
			c.setMessage("export is not available here: use rewind export ID -o FILE", true)
			return
		}
		c.onWorker(func() {
			n, err := c.export(context.WithoutCancel(c.ctx), r.ID, path)
			if err != nil {
				c.post(evNote{text: "export: " + flat(err.Error()), isErr: true})
				return
			}
			c.post(evNote{text: fmt.Sprintf("exported “%s” to %s (%d %s)", oneLine(r.Title, 40), path, n, words.Plural(n, "line", "lines"))})
		})
	})
	c.pages.push(Page{Name: "prompt", Primitive: c.prompt})
}

// onUIOpenHit opens the session of a full-text search hit at the hit
// (Enter on a hit): the conversation shows the records around
// it with the hit marked, or, when the hit is in an archived generation,
// the current conversation with that generation's preview over it
// (docs/DECISIONS.md).
func (b *browser) onUIOpenHit(k views.PreviewKey) {
	b.c.previews.onUIEndPreview()
	b.c.onUIOpenSessionAt(k.SessionID, &hitAt{gen: k.Gen, pos: store.ViewPos{SessionID: k.RecordSession, Seq: k.Seq}})
}
