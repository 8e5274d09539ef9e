package timetravel

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// longRecords is a long session's records: turns of a checkpoint, the
// prompt "prompt N", two steps (a Shell call and its result, then an
// answer) and a usage record.
func longRecords(turns int) []store.Record {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := func(m message.Message) json.RawMessage {
		b, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		return b
	}
	out := make([]store.Record, 0, 8*turns)
	for i := range turns {
		call := fmt.Sprintf("call_%d", i)
		asst := message.NewText("assistant", "")
		asst.ToolCalls = []message.ToolCall{{ID: call, Name: "Shell", Args: fmt.Sprintf(`{"command":"echo %d"}`, i)}}
		out = append(out,
			store.Record{Kind: store.KindCheckpoint, CheckpointID: 2 * i, CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "user", Body: body(message.NewText("user", fmt.Sprintf("prompt %d", i))), CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "assistant", Body: body(asst), CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "tool", Body: body(message.Message{Role: "tool", ToolCallID: call,
				Content: message.TextContent(fmt.Sprintf("output %d", i))}), CreatedAt: at},
			store.Record{Kind: store.KindCheckpoint, CheckpointID: 2*i + 1, CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "assistant", Body: body(message.NewText("assistant", fmt.Sprintf("answer %d", i))), CreatedAt: at},
			store.Record{Kind: store.KindUsage, TokenCount: 100 * (i + 1), CreatedAt: at},
		)
	}
	return out
}

// BenchmarkPlanRevertLongSession measures planning a revert (what the
// revert dialog shows, files check left out) to a checkpoint in the middle
// of a long session: the newest session of the database in
// REWIND_BENCH_LONG_DB (e.g. a 240,001-message import of
// `go run ./cmd/genkimi`), else a generated one of 100,000 records.
// Reported: the live heap after the last plan (MB).
// Run: go test -run '^$' -bench PlanRevertLongSession -benchtime 10x ./app/timetravel/
func BenchmarkPlanRevertLongSession(b *testing.B) {
	ctx := context.Background()
	path := os.Getenv("REWIND_BENCH_LONG_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "rewind.db")
		db := storetest.OpenAt(b, path, store.Options{})
		if _, err := db.ImportSession(ctx, store.NewSession{Title: "long", WorkDir: b.TempDir()},
			[]store.ImportedGeneration{{Records: longRecords(100000 / 7)}}); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	db := storetest.OpenAt(b, path, store.Options{})
	list, err := db.ListSessions(ctx, store.ListOptions{Limit: 1})
	if err != nil || len(list) == 0 {
		b.Fatalf("no session: %v", err)
	}
	env := Env{DB: db, Session: list[0]}
	v, err := db.ViewBefore(ctx, list[0].ID, -1, store.ViewPos{}, 1)
	if err != nil {
		b.Fatal(err)
	}
	id := v.NextCheckpointID / 2 // a checkpoint in the middle
	var p Plan
	b.ResetTimer()
	for range b.N {
		if p, err = PlanRevert(ctx, env, id, Check{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if p.Messages == 0 || p.ReturnTo == "" && p.Keeps == "" {
		b.Fatalf("plan %+v says nothing", p)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heapMB")
}
