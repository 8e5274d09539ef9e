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

// sessionFixture is a database holding one imported session of thousands
// of records, built once per test binary (importing 4,000 turns takes
// about half a second of CPU) and copied for each harness that starts from
// it (hopts.fixture).
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
	// long4000 is longRecords(4000): 20,000 records, 12,000 messages.
	long4000 = newSessionFixture("long", func() [][]store.Record { return [][]store.Record{longRecords(4000)} })
	// zeppelin3000 is zeppelinRecords(3000, 1000), the search hit's session.
	zeppelin3000 = newSessionFixture("long haul", func() [][]store.Record { return [][]store.Record{zeppelinRecords(3000, 1000)} })
	// stepped3000 is steppedRecords(3000, 2500).
	stepped3000 = newSessionFixture("long haul", func() [][]store.Record { return [][]store.Record{steppedRecords(3000, 2500)} })
	// quiet1000 is longRecords(1000) with usage of 100 tokens: no
	// compaction before a new prompt's run.
	quiet1000 = newSessionFixture("long", func() [][]store.Record {
		recs := longRecords(1000)
		for i := range recs {
			if recs[i].Kind == store.KindUsage {
				recs[i].TokenCount = 100
			}
		}
		return [][]store.Record{recs}
	})
	// toolHit3000 is longRecords(3000) with the output of turn 1000's tool
	// call the one record a search for zeppelin finds.
	toolHit3000 = newSessionFixture("long haul", func() [][]store.Record {
		recs := longRecords(3000)
		b, err := json.Marshal(message.Message{Role: "tool", ToolCallID: "call_1000", Content: message.TextContent("output 1000: the zeppelin landed")})
		if err != nil {
			panic(err)
		}
		recs[5*1000+3].Body = b
		return [][]store.Record{recs}
	})
)

// fixtureHarness starts a harness from f's database, the session's work
// dir the harness's, and returns the session's id. o.before runs with the
// session in the store.
func fixtureHarness(t *testing.T, f *sessionFixture, o hopts, resume bool) (*harness, string) {
	t.Helper()
	o.fixture = f
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
