package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// BenchmarkShow prints a 50,000-record session (10,000 turns of
// checkpoint, prompt, assistant with a tool call, result, usage) in both
// modes. BENCHMARKS.md has the 200,001-record numbers of the binary.
func BenchmarkShow(b *testing.B) {
	ctx := context.Background()
	home := b.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(home, "rewind.db"))
	if err != nil {
		b.Fatal(err)
	}
	body := func(m message.Message) json.RawMessage {
		out, err := json.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	text := strings.Repeat("the parser keeps the session index in a table ", 3)
	var recs []store.Record
	for turn := 0; len(recs) < 50000; turn++ {
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
		b.Fatal(err)
	}
	db.Close()
	for _, asJSON := range []bool{false, true} {
		name := "text"
		if asJSON {
			name = "json"
		}
		b.Run(name, func(b *testing.B) {
			rt := &Runtime{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
			b.ReportAllocs()
			for b.Loop() {
				if err := Show(ctx, rt, s.ID, nil, asJSON); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
