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
	db, err := store.OpenWith(ctx, filepath.Join(dir, "rewind.db"), o.store)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
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
	h.screen = tcell.NewSimulationScreen("UTF-8")
	opts := Options{DB: db, Mode: ModeNew, WorkDir: work, Client: client, Screen: h.screen, Home: dir}
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
	if o.beforeRun != nil {
		o.beforeRun(h)
	}
	go func() { h.done <- c.Run(ctx) }()
	deadline := time.Now().Add(waitLimit)
	for !c.ui.running.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the UI did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.resize(o.w, o.h)
	t.Cleanup(h.stop)
	return h
}

// waitLimit bounds every wait for the screen or the controller. Waits poll,
// so a passing test never waits this long; it is generous because the race
// detector on a loaded 2-core machine can take seconds over a typed line.
const waitLimit = 30 * time.Second

// resize changes the simulated terminal and redraws.
func (h *harness) resize(w, hh int) {
	h.w, h.h = w, hh
	h.c.onUIThread(func() { h.screen.SetSize(w, hh) })
	h.c.onUIThread(func() {}) // a second draw at the new size
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

// rows returns the screen as text lines, read on the UI goroutine.
func (h *harness) rows() []string {
	var out []string
	ok := h.c.onUIThread(func() {
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
	h.c.onUIThread(func() {
		cells, w, _ := h.screen.GetContents()
		c = cells[y*w+x]
	})
	return c
}

// waitFor polls the screen until it contains all of subs.
func (h *harness) waitFor(subs ...string) string {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	var txt string
	for time.Now().Before(deadline) {
		txt = h.text()
		all := true
		for _, s := range subs {
			if !strings.Contains(txt, s) {
				all = false
				break
			}
		}
		if all {
			return txt
		}
		time.Sleep(15 * time.Millisecond)
	}
	h.t.Fatalf("screen never showed %q; last screen:\n%s", subs, txt)
	return ""
}

// waitGone polls until the screen no longer contains sub.
func (h *harness) waitGone(sub string) {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	var txt string
	for time.Now().Before(deadline) {
		txt = h.text()
		if !strings.Contains(txt, sub) {
			return
		}
		time.Sleep(15 * time.Millisecond)
	}
	h.t.Fatalf("screen still shows %q:\n%s", sub, txt)
}

// waitUntil polls cond (evaluated on the UI goroutine).
func (h *harness) waitUntil(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		var ok bool
		h.c.onUIThread(func() { ok = cond() })
		if ok {
			return
		}
		time.Sleep(15 * time.Millisecond)
	}
	h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.text())
}

// idle reports whether no run or operation is active (pass it to waitUntil:
// c.busy is UI state).
func (h *harness) idle() bool { return h.c.busy == "" }

// theme is the controller's current theme, read on the UI goroutine.
func (h *harness) theme() themes.Theme {
	var th themes.Theme
	h.c.onUIThread(func() { th = h.c.theme })
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
		time.Sleep(5 * time.Millisecond)
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
	h.c.onUIThread(func() { id = h.c.SessionID() })
	return id
}
