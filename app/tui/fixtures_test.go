package tui

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// sessionFixture is a database holding one imported session of hundreds
// of turns, built once per test binary and copied for each harness that
// starts from it (hopts.fixture). Harnesses on a fixture page through it
// in shortWindow's pages, a tenth of the product's: a session of 400 turns
// is then as long, in pages, as one of 4,000 (importing the 14,000 turns
// of the fixtures at the product's sizes took a tenth of the package's
// CPU, and paging through them more).
type sessionFixture struct {
	f       *storetest.Fixture
	mu      sync.Mutex
	session string // set by the build
}

// newSessionFixture declares a fixture of one session titled title, made
// of the generations gens returns (the last current).
func newSessionFixture(title string, gens func() [][]store.Record) *sessionFixture {
	sf := &sessionFixture{}
	sf.f = storetest.NewFixture(func(ctx context.Context, db *store.DB) error {
		var ig []store.ImportedGeneration
		for _, g := range gens() {
			ig = append(ig, store.ImportedGeneration{Records: g})
		}
		s, err := db.ImportSession(ctx, store.NewSession{Title: title, WorkDir: "/"}, ig)
		if err != nil {
			return err
		}
		sf.mu.Lock()
		sf.session = s.ID
		sf.mu.Unlock()
		return nil
	})
	return sf
}

// id is the fixture's session (once it is built: after CopyTo).
func (sf *sessionFixture) id() string {
	sf.mu.Lock()
	defer sf.mu.Unlock()
	return sf.session
}

// The long sessions the tests open.
var (
	// long400 is longRecords(400): 2,000 records, 1,200 messages.
	long400 = newSessionFixture("long", func() [][]store.Record { return [][]store.Record{longRecords(400)} })
	// zeppelin300 is zeppelinRecords(300, 100), the search hit's session.
	zeppelin300 = newSessionFixture("long haul", func() [][]store.Record { return [][]store.Record{zeppelinRecords(300, 100)} })
	// stepped300 is steppedRecords(300, 250).
	stepped300 = newSessionFixture("long haul", func() [][]store.Record { return [][]store.Record{steppedRecords(300, 250)} })
	// quiet100 is longRecords(100) with usage of 100 tokens: no
	// compaction before a new prompt's run.
	quiet100 = newSessionFixture("long", func() [][]store.Record {
		recs := longRecords(100)
		for i := range recs {
			if recs[i].Kind == store.KindUsage {
				recs[i].TokenCount = 100
			}
		}
		return [][]store.Record{recs}
	})
	// toolHit300 is longRecords(300) with the output of turn 100's tool
	// call the one record a search for zeppelin finds.
	toolHit300 = newSessionFixture("long haul", func() [][]store.Record {
		recs := longRecords(300)
		b, err := json.Marshal(message.Message{Role: "tool", ToolCallID: "call_100", Content: message.TextContent("output 100: the zeppelin landed")})
		if err != nil {
			panic(err)
		}
		recs[5*100+3].Body = b
		return [][]store.Record{recs}
	})
)

// shortWindow is the window's reads in the harnesses on a fixture or a
// long session: a tenth of the product's (defaultWindow), in proportion
// to their sessions.
var shortWindow = windowSizes{tail: 100, page: 100, hit: 50}

// fixtureHarness starts a harness from f's database, the session's work
// dir the harness's, and returns the session's id. o.before runs with the
// session in the store. The window reads shortWindow's pages.
func fixtureHarness(t *testing.T, f *sessionFixture, o hopts, resume bool) (*harness, string) {
	t.Helper()
	o.fixture = f
	o.window = &shortWindow
	if resume {
		prev := o.mutate
		o.mutate = func(opts *Options) {
			opts.Mode, opts.SessionID = ModeResume, f.id()
			if prev != nil {
				prev(opts)
			}
		}
	}
	h := newHarness(t, o)
	return h, f.id()
}
