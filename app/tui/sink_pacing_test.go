package tui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewind-agent/rewind/soul"
)

// deliveries records the batches a batcher hands the UI and the (bubble's
// fake) time of each.
type deliveries struct {
	mu      sync.Mutex
	start   time.Time
	at      []time.Duration
	batches [][]soul.Event
}

func (d *deliveries) deliver(batch []soul.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.at = append(d.at, time.Since(d.start))
	d.batches = append(d.batches, batch)
}

func (d *deliveries) count() int {
	synctest.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.at)
}

// TestStreamedDeltasArePacedAt20Hz: a 2,000 tokens/s stream of answer,
// reasoning, tool output and a sub-agent's answer for two seconds is
// applied in at most 20 UI updates (frames) a second, none lost or
// reordered, and the last delta is applied at most FlushInterval after it
// arrived. The bubble's clock is fake: the counts are exact under any load.
func TestStreamedDeltasArePacedAt20Hz(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		d := &deliveries{start: time.Now()}
		b := newBatcher(FlushInterval, d.deliver)
		defer b.stop()
		const tokens, perSecond = 4000, 2000
		var want strings.Builder
		for i := range tokens {
			w := string(rune('a'+i%26)) + " "
			want.WriteString(w)
			switch i % 50 {
			case 10:
				b.push(soul.ReasoningPart{Text: "r"})
			case 20:
				b.push(soul.ToolOutput{ID: "c1", Text: "line\n"})
			case 30:
				b.push(soul.SubagentEvent{ParentCallID: "c2", Event: soul.ContentPart{Text: "s"}})
			case 40:
				b.push(soul.StatusUpdate{})
			}
			b.push(soul.ContentPart{Text: w})
			time.Sleep(time.Second / perSecond) // fake clock (synctest): moves time, waits on nothing
		}
		last := time.Since(d.start)
		time.Sleep(FlushInterval) // fake clock (synctest): moves time, waits on nothing
		n := d.count()
		if most := int(last/(time.Second/20)) + 1; n > most {
			t.Fatalf("%d UI updates for %d deltas in %v (at most %d: 20 a second)", n, tokens, last, most)
		}
		var got strings.Builder
		for _, batch := range d.batches {
			for _, e := range batch {
				if cp, ok := e.(soul.ContentPart); ok {
					got.WriteString(cp.Text)
				}
			}
		}
		if got.String() != want.String() {
			t.Fatalf("deltas lost or reordered: got %d bytes, want %d", got.Len(), want.Len())
		}
		if end := d.at[n-1]; end-last > FlushInterval {
			t.Fatalf("the last delta was applied %v after it arrived (at most %v)", end-last, FlushInterval)
		}
	})
}

// TestStreamEndIsAppliedAtOnce: the stream's end, a tool call, an
// operation's end or a note (the answer to a user's action) do not wait
// for the paced frame: they are applied at the moment they arrive, or
// PromptInterval after the last update when that is later (a burst is
// drawn no more often than before the pacing), with the deltas waiting
// before them; the deltas after them are paced again.
func TestStreamEndIsAppliedAtOnce(t *testing.T) {
	t.Parallel()
	for _, end := range []soul.Event{soul.RunEnd{}, soul.ToolCall{ID: "c1", Name: "Shell"}, evOpDone{op: "compact"}, evNote{text: "copied"}} {
		synctest.Test(t, func(t *testing.T) {
			d := &deliveries{start: time.Now()}
			b := newBatcher(FlushInterval, d.deliver)
			defer b.stop()
			b.push(soul.ContentPart{Text: "first "}) // the first frame shows at once
			if n := d.count(); n != 1 {
				t.Fatalf("%d updates after the first delta; want 1", n)
			}
			time.Sleep(40 * time.Millisecond) // fake clock (synctest): moves time, waits on nothing
			b.push(soul.ContentPart{Text: "last"})
			if n := d.count(); n != 1 {
				t.Fatalf("a delta 40 ms after a frame was applied at once (%d updates): it should wait for the next frame", n)
			}
			time.Sleep(5 * time.Millisecond) // fake clock (synctest): moves time, waits on nothing
			b.push(end)                      // at 45 ms: past PromptInterval, at once
			if n := d.count(); n != 2 {
				t.Fatalf("%T: %d updates; want it applied at once", end, n)
			}
			d.mu.Lock()
			at, batch := d.at[1], d.batches[1]
			d.mu.Unlock()
			if at != 45*time.Millisecond || len(batch) != 2 || batch[0] != (soul.ContentPart{Text: "last"}) || batch[1] != end {
				t.Fatalf("%T: applied at %v as %v; want at 45ms after the waiting delta", end, at, batch)
			}
			b.push(soul.ContentPart{Text: "more"})
			time.Sleep(10 * time.Millisecond)                                   // fake clock (synctest): moves time, waits on nothing
			b.push(end)                                                         // 10 ms after the last update: within PromptInterval of it
			time.Sleep(PromptInterval - 10*time.Millisecond - time.Millisecond) // fake clock (synctest): moves time, waits on nothing
			if n := d.count(); n != 2 {
				t.Fatalf("%T right after an update was applied before PromptInterval", end)
			}
			time.Sleep(time.Millisecond) // fake clock (synctest): moves time, waits on nothing
			if n := d.count(); n != 3 {
				t.Fatalf("%d updates; %T was not applied PromptInterval after the last update", n, end)
			}
		})
	}
}

// TestMergeDeltasJoinsRuns: a batch's runs of deltas of one kind (one
// call's output) become one event each, in order; status updates keep the
// newest; other events stay as they are.
func TestMergeDeltasJoinsRuns(t *testing.T) {
	t.Parallel()
	got := mergeDeltas([]soul.Event{
		soul.ContentPart{Text: "a"}, soul.ContentPart{Text: "b"},
		soul.ToolOutput{ID: "c1", Text: "x"}, soul.ToolOutput{ID: "c1", Text: "y"}, soul.ToolOutput{ID: "c2", Text: "z"},
		soul.StatusUpdate{Tokens: 1}, soul.StatusUpdate{Tokens: 2},
		soul.ReasoningPart{Text: "r"}, soul.ReasoningPart{Text: "s"},
		soul.RunEnd{}, soul.ContentPart{Text: "c"},
	})
	want := []soul.Event{
		soul.ContentPart{Text: "ab"},
		soul.ToolOutput{ID: "c1", Text: "xy"}, soul.ToolOutput{ID: "c2", Text: "z"},
		soul.StatusUpdate{Tokens: 2},
		soul.ReasoningPart{Text: "rs"},
		soul.RunEnd{}, soul.ContentPart{Text: "c"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("merged\n%v\nwant\n%v", got, want)
	}
}
