package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// BenchmarkShow prints a 50,000-record session (10,000 turns of
// checkpoint, prompt, assistant with a tool call, result, usage) in both
// modes, in wall and CPU time. BENCHMARKS.md has the 200,001-record
// numbers of the binary.
func BenchmarkShow(b *testing.B) {
	ctx := context.Background()
	home, id := longSession(b, 10000)
	for _, asJSON := range []bool{false, true} {
		name := "text"
		if asJSON {
			name = "json"
		}
		b.Run(name, func(b *testing.B) {
			rt := &Runtime{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if err := Show(ctx, rt, id, nil, asJSON); err != nil {
					b.Fatal(err)
				}
			}
			// ns/op is wall time, mostly waiting on a shared machine: the
			// CPU the runs took (garbage collection included) is what to
			// compare the modes by.
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// longSession makes a session of turns turns (checkpoint, prompt,
// assistant with a Shell call, its result, usage: 5 records each) in a
// new home, and returns the home and the session's id.
func longSession(tb testing.TB, turns int) (home, id string) {
	ctx := context.Background()
	home = tb.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		tb.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(home, "rewind.db"))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	body := func(m message.Message) json.RawMessage {
		out, err := json.Marshal(m)
		if err != nil {
			tb.Fatal(err)
		}
		return out
	}
	text := strings.Repeat("the parser keeps the session index in a table ", 3)
	var recs []store.Record
	for turn := range turns {
		id := fmt.Sprint("call_", turn)
		asst := message.Message{Role: "assistant", Content: message.TextContent(text),
			ToolCalls: []message.ToolCall{{ID: id, Name: "Shell", Args: `{"command":"grep -rn parser ."}`}}}
		recs = append(recs,
			store.Record{Kind: store.KindCheckpoint, CheckpointID: turn},
			store.Record{Kind: store.KindMessage, Role: "user", Body: body(message.NewText("user", text))},
			store.Record{Kind: store.KindMessage, Role: "assistant", Body: body(asst)},
			store.Record{Kind: store.KindMessage, Role: "tool", Body: body(message.Message{Role: "tool", ToolCallID: id, Content: message.TextContent(text + text)})},
			store.Record{Kind: store.KindUsage, TokenCount: 1000 + turn},
		)
	}
	s, err := db.ImportSession(ctx, store.NewSession{Title: "long", WorkDir: home}, []store.ImportedGeneration{{Records: recs}})
	if err != nil {
		tb.Fatal(err)
	}
	return home, s.ID
}
