package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
	"github.com/rewind-agent/rewind/themes"
)

// harness runs a Controller on a simulation screen against a real store and
// the llmtest fake model.
type harness struct {
	t      *testing.T
	ctx    context.Context
	dir    string
	work   string
	db     *store.DB
	srv    *llmtest.Server
	screen tcell.SimulationScreen
	c      *Controller
	done   chan error
	w, h   int
	clock  *fakeClock
	// keys is the typing guard's clock: the keys of one typeText are
	// stamped with one time (a burst, as a typist's), each typeText and
	// key a deliberate pause after the last.
	keys   *fakeClock
	stamps sync.Map // *tcell.EventKey → time.Time
	drawn  drawSignal
}

// drawSignal is the harness's idle signal, as lazygit's GuiDriver waits
// until the GUI is idle: the UI goroutine changes what is shown only in a
// draw (after a key, an update, a resize), so a wait checks again after
// each frame instead of polling. After every draw the waits are woken.
// A frame's text is made only when a wait reads it: at the draw while
// waits are in progress, else when the next wait starts (most frames,
// a typed key's, are read by no wait: making each one's text was a
// twentieth of the package's CPU).
type drawSignal struct {
	mu     sync.Mutex
	frame  string        // the text of the last frame drawn, unless stale
	stale  bool          // a frame was drawn since frame was made
	screen tcell.Screen  // the screen drawn on (its cells hold the last frame until the next draw)
	count  uint64        // frames drawn
	next   chan struct{} // closed at the next draw
	// waits are the screen waits in progress: each frame is checked
	// against them as it is drawn, so a wait sees a frame however soon
	// the next one replaces it (a status message that lives 6 s, under
	// a loaded race run).
	waits map[*screenWait]struct{}
}

// screenWait is a wait for a frame whose text ok accepts; the frame is
// sent on found.
type screenWait struct {
	ok    func(string) bool
	found chan string // buffered(1)
}

// idlePoll is how often waitUntil checks its condition without a draw: a
// condition on something outside the UI (a request the fake model got, a
// file) changes without one. Waits are woken by draws, not by this.
const idlePoll = 100 * time.Millisecond

// onUIDrawn keeps the frame and wakes the waits (UI, after each draw,
// with the application locked: it must not call the application).
func (h *harness) onUIDrawn(s tcell.Screen) {
	d := &h.drawn
	d.mu.Lock()
	defer d.mu.Unlock()
	d.count++
	close(d.next)
	d.next = make(chan struct{})
	d.screen, d.stale = s, true
	if len(d.waits) == 0 {
		return
	}
	txt := d.text()
	for w := range d.waits {
		if w.ok(txt) {
			w.found <- txt
			delete(d.waits, w)
		}
	}
}

// text is the last frame's text ("" before the first), made now if it is
// stale (d.mu held; on the UI goroutine, or once the UI stopped: the
// screen's cells are the UI's).
func (d *drawSignal) text() string {
	if d.stale {
		d.frame, d.stale = frameText(d.screen), false
	}
	return d.frame
}

// lastFrame is the number of frames drawn and a channel closed at the
// next draw.
func (h *harness) lastFrame() (uint64, <-chan struct{}) {
	h.drawn.mu.Lock()
	defer h.drawn.mu.Unlock()
	return h.drawn.count, h.drawn.next
}

// frameText is the frame being drawn, as rows() reads a shown one: tview
// calls the after-draw hook before it shows the frame, so the simulation's
// shown contents are still the frame before; this reads the cells drawn.
func frameText(s tcell.Screen) string {
	w, hh := s.Size()
	var b strings.Builder
	b.Grow((w + 1) * hh)
	for y := 0; y < hh; y++ {
		if y > 0 {
			b.WriteByte('\n')
		}
		for x := 0; x < w; x++ {
			str, _, width := s.Get(x, y)
			if str == "" || str == "\x00" || x+width > w {
				str = " "
			}
			b.WriteString(str)
			for ; width > 1 && x+1 < w; width-- { // as the simulation shows a wide rune: its second cell blank
				b.WriteByte(' ')
				x++
			}
		}
	}
	return b.String()
}

// lazyScreen is a simulation screen that copies a frame into the
// simulated terminal's cells (its Show) only when a test reads them: the
// copy visits every cell of the screen, and most frames are never read
// that way (waits read the frame as it is drawn, frameText). Its methods
// run on the UI goroutine (Show in a draw, GetContents in h.read).
type lazyScreen struct {
	tcell.SimulationScreen
	unshown bool // a frame was drawn since the cells were last copied
	w, h    int  // the size Init gives the screen
}

// Init starts the simulated terminal at the harness's size: the first
// frame is drawn at it, not at the simulation's 80x25 and then again
// whole at the harness's.
func (s *lazyScreen) Init() error {
	err := s.SimulationScreen.Init()
	if err == nil {
		s.SimulationScreen.SetSize(s.w, s.h)
	}
	return err
}

func (s *lazyScreen) Show() { s.unshown = true }

func (s *lazyScreen) GetContents() ([]tcell.SimCell, int, int) {
	if s.unshown {
		s.SimulationScreen.Show()
		s.unshown = false
	}
	return s.SimulationScreen.GetContents()
}

// fakeClock stands still until the test advances it, so a test steps past
// a grace period instead of sleeping through it, however loaded the machine.
type fakeClock struct{ offset atomic.Int64 }

var clockBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (f *fakeClock) now() time.Time { return clockBase.Add(time.Duration(f.offset.Load())) }

func (f *fakeClock) advance(d time.Duration) { f.offset.Add(int64(d)) }

type hopts struct {
	w, h   int
	mutate func(*Options)
	before func(h *harness) // runs after the store is open, before New
	// beforeRun runs after New, before Run (h.c is set, the UI not running).
	beforeRun func(h *harness)
	store     store.Options // how the store is opened (short busy timeouts)
	// messageTTL, when set, replaces how long a status message stays
	// (shortMessages).
	messageTTL time.Duration
	// fixture, when set, is the database the harness starts from (a copy):
	// a long session built once per test binary, whose work dir becomes
	// the harness's (h.fixtureID).
	fixture *sessionFixture
	// window, when set, replaces the window's reads (shortWindow).
	window *windowSizes
}

func newHarness(t *testing.T, o hopts, replies ...llmtest.Reply) *harness {
	t.Helper()
	if o.w == 0 {
		o.w, o.h = 120, 40
	}
	ctx := context.Background()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, "rewind.db")
	if o.fixture != nil {
		o.fixture.f.CopyTo(t, dbPath)
	}
	if o.store.LeaseStale == 0 {
		o.store.LeaseStale = leaseStale
	}
	db := storetest.OpenAt(t, dbPath, o.store)
	if o.fixture != nil {
		if err := db.SetWorkDir(ctx, o.fixture.id(), work); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(replies...)
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "fake-model", Stream: true,
		MaxRetries: 2, InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, ctx: ctx, dir: dir, work: work, db: db, srv: srv, w: o.w, h: o.h, done: make(chan error, 1)}
	if o.before != nil {
		o.before(h)
	}
	h.screen = &lazyScreen{SimulationScreen: tcell.NewSimulationScreen("UTF-8"), w: o.w, h: o.h}
	polls := testPolls
	if o.messageTTL > 0 {
		polls.message = o.messageTTL
	}
	opts := Options{DB: db, Mode: ModeNew, WorkDir: work, Client: client, Screen: h.screen, Home: dir, polls: &polls, window: o.window}
	if o.mutate != nil {
		o.mutate(&opts)
	}
	c, err := New(ctx, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.c = c
	h.clock = &fakeClock{}
	c.ap.now = h.clock.now
	h.keys = &fakeClock{}
	c.tg.now = h.keys.now
	c.tg.when = func(ev *tcell.EventKey) time.Time {
		if t, ok := h.stamps.Load(ev); ok {
			return t.(time.Time)
		}
		return h.keys.now()
	}
	h.drawn.next = make(chan struct{})
	h.onDraw(h.onUIDrawn)
	if o.beforeRun != nil {
		o.beforeRun(h)
	}
	go func() { h.done <- c.Run(ctx) }()
	select {
	case <-c.ui.started:
	case err := <-h.done:
		t.Fatalf("Run returned before the UI started: %v", err)
	case <-time.After(waitLimit):
		t.Fatal("the UI did not start")
	}
	h.waitDrawn(1) // at o.w x o.h (lazyScreen.Init)
	t.Cleanup(h.stop)
	return h
}

// testPolls are the harness's poll periods: a watcher checks the writer,
// and the session list is polled, ten times as often as by default (a
// test that waits for a writer to come or go, or for the list to show
// what another process did, waits for a poll: 2 s for the list).
var testPolls = func() pollPeriods {
	p := defaultPolls
	p.writer = writerPoll / 10
	p.sessions = sessionsPoll / 10
	return p
}()

// leaseStale is how old a heartbeat the harness's store still takes for a
// live writer: longer than any wait. A test that holds a session's lease
// in this process (a writer the workspace must see as alive) renews it
// every 2 s; under a loaded -race run a renewal came over 10 s late (the
// default), the writer check took the test's writer for gone and acted on
// it mid-test (TestSessionInUseFromTheBrowserGoesBack).
const leaseStale = 2 * waitLimit

// shortMessages is hopts.messageTTL for a test that waits for what a
// status message covers (the status bar's parts): 1 s, not 6. Waits see
// every frame (waitScreen), so a message that lives 1 s is still seen.
const shortMessages = time.Second

// waitLimit bounds every wait for the screen or the controller. Waits end
// at the frame that shows what they wait for, so a passing test never waits
// this long; it is generous because the race detector on a loaded 2-core
// machine can take seconds over a typed line.
const waitLimit = 30 * time.Second

// onDraw adds f to what runs after each draw (UI), after the hooks the
// controller installed (the clipboard, notifications). Call it before Run.
func (h *harness) onDraw(f func(tcell.Screen)) {
	prev := h.c.app.GetAfterDrawFunc()
	h.c.app.SetAfterDrawFunc(func(s tcell.Screen) {
		if prev != nil {
			prev(s)
		}
		f(s)
	})
}

// resize changes the simulated terminal and redraws.
func (h *harness) resize(w, hh int) {
	h.w, h.h = w, hh
	h.c.onUIThread(func() { h.screen.SetSize(w, hh) })
	var seen uint64
	h.c.onUIThread(func() { seen, _ = h.lastFrame() }) // a second draw at the new size
	h.waitDrawn(seen + 1)
}

// waitDrawn waits until n frames were drawn.
func (h *harness) waitDrawn(n uint64) {
	h.t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		count, next := h.lastFrame()
		if count >= n {
			return
		}
		select {
		case <-next:
		case <-h.c.ui.stopped:
			return
		case <-deadline.C:
			h.t.Fatalf("frame %d was never drawn", n)
		}
	}
}

// stop quits the app (if still running) and waits for Run to return.
func (h *harness) stop() {
	h.c.onUIThread(h.c.onUIQuit)
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Run: %v", err)
		}
		h.done <- nil
	case <-time.After(waitLimit):
		h.t.Error("Run did not return after quit")
	}
}

// read runs f on the UI goroutine without a draw of its own: f only reads
// (the UI state, the screen). It reports whether f ran.
func (h *harness) read(f func()) bool { return h.c.ui.posts.run(&h.c.ui, f, true) }

// rows returns the screen as text lines, read on the UI goroutine (the
// last frame shown: reading draws nothing).
func (h *harness) rows() []string {
	var out []string
	ok := h.read(func() {
		cells, w, hh := h.screen.GetContents()
		out = make([]string, hh)
		for y := 0; y < hh; y++ {
			var b strings.Builder
			for x := 0; x < w; x++ {
				c := cells[y*w+x]
				if len(c.Runes) == 0 {
					b.WriteByte(' ')
					continue
				}
				b.WriteString(string(c.Runes))
			}
			out[y] = b.String()
		}
	})
	if !ok {
		return nil
	}
	return out
}

func (h *harness) text() string { return strings.Join(h.rows(), "\n") }

// cell returns the simulated cell at x, y.
func (h *harness) cell(x, y int) tcell.SimCell {
	var c tcell.SimCell
	h.read(func() {
		cells, w, _ := h.screen.GetContents()
		c = cells[y*w+x]
	})
	return c
}

// waitFor waits until the screen contains all of subs.
func (h *harness) waitFor(subs ...string) string {
	h.t.Helper()
	txt, ok := h.waitScreen(func(txt string) bool {
		for _, s := range subs {
			if !strings.Contains(txt, s) {
				return false
			}
		}
		return true
	})
	if !ok {
		h.t.Fatalf("screen never showed %q; last screen:\n%s", subs, txt)
	}
	return txt
}

// waitGone waits until the screen no longer contains sub.
func (h *harness) waitGone(sub string) {
	h.t.Helper()
	if txt, ok := h.waitScreen(func(txt string) bool { return !strings.Contains(txt, sub) }); !ok {
		h.t.Fatalf("screen still shows %q:\n%s", sub, txt)
	}
}

// waitScreen checks the last frame and then each frame as it is drawn
// until ok holds for its text, reporting that text, or the last one and
// false after waitLimit. The screen changes only in a draw, so it never
// reads the screen itself.
func (h *harness) waitScreen(ok func(string) bool) (string, bool) {
	d := &h.drawn
	w := &screenWait{ok: ok, found: make(chan string, 1)}
	var txt string
	var shows bool
	// On the UI goroutine, between draws: the last frame is checked and
	// the wait registered before the next frame is drawn.
	start := func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		txt = d.text()
		if shows = ok(txt); shows {
			return
		}
		if d.waits == nil {
			d.waits = map[*screenWait]struct{}{}
		}
		d.waits[w] = struct{}{}
	}
	if !h.read(start) { // the UI is stopping: once it stopped, no draw can come
		if !h.uiStopped() {
			return "", false
		}
		start()
		d.mu.Lock()
		delete(d.waits, w)
		d.mu.Unlock()
		return txt, shows
	}
	if shows {
		return txt, true
	}
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	select {
	case txt := <-w.found:
		return txt, true
	case <-deadline.C:
		d.mu.Lock()
		delete(d.waits, w)
		select {
		case txt := <-w.found: // found as the deadline passed
			d.mu.Unlock()
			return txt, true
		default:
		}
		d.mu.Unlock()
		last := func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			txt = d.text()
		}
		if !h.read(last) && h.uiStopped() {
			last()
		}
		return txt, false
	}
}

// uiStopped waits until the UI goroutine has stopped (its screen is
// then the test's to read), reporting false if it did not within waitLimit.
func (h *harness) uiStopped() bool {
	select {
	case <-h.c.ui.stopped:
		return true
	case <-time.After(waitLimit):
		return false
	}
}

// waitUntil waits until cond holds. cond runs on the UI goroutine (through
// onUIThreadRead: a check draws nothing); it runs again after the next
// frame, or after idlePoll for a condition on something outside the UI.
func (h *harness) waitUntil(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	poll := time.NewTicker(idlePoll)
	defer poll.Stop()
	for {
		var ok bool
		var seen uint64
		h.read(func() {
			ok = cond()
			seen, _ = h.lastFrame()
		})
		if ok {
			return
		}
		if n, next := h.lastFrame(); n == seen {
			select {
			case <-next:
			case <-poll.C:
			case <-deadline.C:
				h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.text())
			}
		}
	}
}

// idle reports whether no run or operation is active (pass it to waitUntil:
// c.run.op is UI state).
func (h *harness) idle() bool { return h.c.run.op == "" }

// theme is the controller's current theme, read on the UI goroutine.
func (h *harness) theme() themes.Theme {
	var th themes.Theme
	h.read(func() { th = h.c.theme.current })
	return th
}

// typeText types s and optionally presses Enter.
// typeText types s as one burst, after a pause: keys before it were not
// part of the same word.
func (h *harness) typeText(s string, enter bool) {
	h.keys.advance(deliberate)
	h.typeBurst(s)
	if enter {
		h.inject(tcell.KeyEnter, 0)
	}
}

// typeBurst types s at the time of the last key, as a typist goes on.
func (h *harness) typeBurst(s string) {
	for _, r := range s {
		h.inject(tcell.KeyRune, r)
	}
}

// inject posts a key stamped with the key clock's time.
func (h *harness) inject(k tcell.Key, r rune) {
	ev := tcell.NewEventKey(k, r, tcell.ModNone)
	h.stamps.Store(ev, h.keys.now())
	h.post(ev)
}

// key presses k after a pause.
func (h *harness) key(k tcell.Key) {
	h.keys.advance(deliberate)
	h.inject(k, 0)
}

// escAgain presses Esc a moment after the Esc before it: the second of an
// Esc Esc.
func (h *harness) escAgain() {
	h.keys.advance(150 * time.Millisecond)
	h.inject(tcell.KeyEsc, 0)
}

// deliberate is the pause before a key pressed on its own: past the
// typing guard's gap and a confirm dialog's grace.
const deliberate = time.Second

// paste marks the start or end of a bracketed paste. The simulation
// screen's PostEvent drops the event when its queue of ten is full
// (InjectKey waits instead), so it is retried until the queue takes it.
func (h *harness) paste(start bool) { h.post(tcell.NewEventPaste(start)) }

// post queues ev, retrying while the queue is full.
func (h *harness) post(ev tcell.Event) {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for h.screen.PostEvent(ev) != nil {
		if time.Now().After(deadline) {
			h.t.Fatal("the event queue stayed full")
		}
		time.Sleep(5 * time.Millisecond) // poll: a full event queue signals nothing when it drains
	}
}

// submit types a line, sends it and waits for the run it starts to end.
func (h *harness) submit(s string) {
	h.t.Helper()
	// Keys are processed asynchronously: wait until the line is typed, then
	// until Enter took it.
	h.typeText(s, false)
	h.waitUntil("the line to be typed", func() bool { return h.c.input.Text() == s })
	h.key(tcell.KeyEnter)
	h.waitUntil("the input to be sent", func() bool { return h.c.input.Text() != s })
}

func (h *harness) sessionID() string {
	var id string
	h.read(func() { id = h.c.SessionID() })
	return id
}

// waitQuit waits for Run to return after the test quit the workspace,
// failing with what and the last screen if it does not within waitLimit.
func (h *harness) waitQuit(what string) {
	h.t.Helper()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Fatal(err)
		}
		h.done <- nil // for the cleanup's stop
	case <-time.After(waitLimit):
		h.t.Fatalf("%s:\n%s", what, h.text())
	}
}

// hookGate holds the first call of a test hook after arm until open: the
// test sees the call begin (waitHeld) and chooses when it goes on.
type hookGate struct {
	armed         atomic.Bool
	held, release chan struct{}
	opened        sync.Once
}

func newHookGate(t *testing.T) *hookGate {
	g := &hookGate{held: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(g.open)
	return g
}

// hold is the hook: the armed call waits there until open.
func (g *hookGate) hold() {
	if g.armed.CompareAndSwap(true, false) {
		close(g.held)
		<-g.release
	}
}

func (g *hookGate) arm()  { g.armed.Store(true) }
func (g *hookGate) open() { g.opened.Do(func() { close(g.release) }) }

// wasHeld reports whether the armed call has come.
func (g *hookGate) wasHeld() bool {
	select {
	case <-g.held:
		return true
	default:
		return false
	}
}

// waitHeld waits until the armed call is held, failing with what if it
// never comes.
func (g *hookGate) waitHeld(t *testing.T, what string) {
	t.Helper()
	select {
	case <-g.held:
	case <-time.After(waitLimit):
		t.Fatal(what)
	}
}
