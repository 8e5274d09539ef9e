package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// BenchmarkFollowChange is what a watcher pays when the session it follows
// gains one step (checkpoint, assistant answer, usage), for sessions of 1k,
// 10k and 100k records: "delta" is the watcher's catch-up (the records
// after the last seq, added to what it built; the timeline model is made
// again from its turns), "whole" the whole-view reload it replaced (which
// it did twice per change). The append itself is not timed.
// Run: go test -run '^$' -bench FollowChange -benchtime 200x ./app/tui/
func BenchmarkFollowChange(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		for _, mode := range []string{"delta", "whole"} {
			b.Run(fmt.Sprintf("records=%d/%s", n, mode), func(b *testing.B) {
				c, o := followBench(b, n)
				if mode == "delta" {
					c.watch.onWorkerCatchUp(o, catchUp{conv: true}, -1) // the first read is whole
				}
				before := c.pollStats.viewReads.Load()
				for b.Loop() {
					b.StopTimer()
					if _, err := c.db.Checkpoint(c.ctx, o.sess.ID, false); err != nil {
						b.Fatal(err)
					}
					if _, err := c.db.CommitStep(c.ctx, o.sess.ID, store.Step{Assistant: message.NewText("assistant", "one more answer"), TokenCount: 1000}); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if mode == "delta" {
						c.watch.onWorkerCatchUp(o, catchUp{conv: true}, -1)
					} else if ev, err := c.reader.loadSessionView(c.ctx, o.sess.ID, false); err != nil {
						b.Fatal(err)
					} else {
						c.post(ev)
					}
				}
				if mode == "delta" && c.pollStats.viewReads.Load() != before {
					b.Fatalf("the catch-ups read the whole view %d times", c.pollStats.viewReads.Load()-before)
				}
			})
		}
	}
}

// followBench is a watch-mode controller (not running: its posts queue)
// on a session of n imported records in turns of five (checkpoint, prompt,
// assistant with a tool call, result, usage).
func followBench(b *testing.B, n int) (*Controller, *openSession) {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	db := storetest.OpenAt(b, filepath.Join(dir, "rewind.db"), store.Options{})
	at := time.Now().Add(-time.Hour)
	recs := make([]store.Record, 0, n)
	for i := 0; len(recs) < n; i++ {
		call := message.Message{Role: "assistant", Content: message.TextContent(fmt.Sprintf("Looking at file %d.", i)),
			ToolCalls: []message.ToolCall{{ID: fmt.Sprint("c", i), Name: "ReadFile", Args: fmt.Sprintf(`{"path":"f%d.go"}`, i)}}}
		for _, r := range []store.Record{
			{Kind: store.KindCheckpoint, CheckpointID: 2 * i},
			msgRecord(message.NewText("user", fmt.Sprintf("prompt number %d: please read the next file", i))),
			msgRecord(call),
			msgRecord(message.Message{Role: "tool", ToolCallID: fmt.Sprint("c", i), Content: message.TextContent("package main // a file")}),
			{Kind: store.KindUsage, TokenCount: 1000 + i},
		} {
			r.CreatedAt = at
			recs = append(recs, r)
		}
	}
	s, err := db.ImportSession(ctx, store.NewSession{Title: "followed", WorkDir: dir}, []store.ImportedGeneration{{Records: recs[:n], Cause: store.CauseStart}})
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(ctx, Options{DB: db, Mode: ModeWatch, SessionID: s.ID, WorkDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.shutdownWorkers)
	return c, c.cur()
}

func msgRecord(m message.Message) store.Record {
	body, _ := m.MarshalJSON()
	return store.Record{Kind: store.KindMessage, Role: m.Role, Body: body}
}
