package gen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/store"
)

var words = strings.Fields(`the a refactor test build fix error module function parser store session
	generation checkpoint revert compact search index query table column migration schema goroutine
	channel context deadline cancel retry backoff stream token model prompt reply tool shell grep glob
	file path directory commit branch merge diff patch review lint format vet race benchmark latency
	widget view render theme colour palette cursor scroll focus keyboard mouse resize terminal cell`)

// rareWords each appear in about 20 messages of a million records (one user
// message in 10,000 carries one): the long tail of a real vocabulary, for
// searches that must read to the end of the index to find few hits.
var rareWords = []string{"quokka", "zeppelin", "marzipan", "fjord", "yodel"}

// RareWords are the rare words Records sprinkles in.
func RareWords() []string { return rareWords }

func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

func body(m message.Message) json.RawMessage {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // messages built here always marshal
	}
	return b
}

func userPrompt(r *rand.Rand) string {
	s := sentence(r, 10)
	if r.IntN(10000) == 0 {
		s += " " + rareWords[r.IntN(len(rareWords))]
	}
	return s
}

// Records returns about n records of turns (5 records per turn: checkpoint
// i, user message, assistant with a tool call, tool result, usage), with
// created_at spread from start.
func Records(r *rand.Rand, n int, start time.Time) []store.Record {
	out := make([]store.Record, 0, n+5)
	tokens := 0
	for turn := 0; len(out) < n; turn++ {
		at := start.Add(time.Duration(turn) * time.Minute)
		callID := fmt.Sprintf("call_%d", turn)
		asst := message.Message{Role: "assistant", Content: message.TextContent(sentence(r, 12)),
			ToolCalls: []message.ToolCall{{ID: callID, Name: "Shell", Args: `{"command":"grep -rn ` + words[r.IntN(len(words))] + ` ."}`}}}
		tokens += 200 + r.IntN(800)
		out = append(out,
			store.Record{Kind: store.KindCheckpoint, CheckpointID: turn, CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "user", Body: body(message.NewText("user", userPrompt(r))), CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "assistant", Body: body(asst), CreatedAt: at},
			store.Record{Kind: store.KindMessage, Role: "tool", Body: body(message.Message{Role: "tool", ToolCallID: callID,
				Content: message.TextContent(sentence(r, 30))}), CreatedAt: at},
			store.Record{Kind: store.KindUsage, TokenCount: tokens, CreatedAt: at},
		)
	}
	return out[:n]
}

// Generate writes a new database at path with the given number of sessions
// and records in total, importing batch sessions per transaction.
func Generate(ctx context.Context, path string, sessions, records int) error {
	if sessions <= 0 {
		return errors.New("gen: sessions must be at least 1")
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(1, 2))
	per := records / sessions
	start := time.Now().Add(-time.Duration(sessions) * time.Hour)
	const batch = 250
	for done := 0; done < sessions; done += batch {
		var in []store.ImportedSession
		for i := done; i < min(done+batch, sessions); i++ {
			created := start.Add(time.Duration(i) * time.Hour)
			in = append(in, store.ImportedSession{
				Session: store.NewSession{Title: sentence(r, 5), WorkDir: fmt.Sprintf("/home/dev/project%d", i%50),
					Model: "kimi-k2", CreatedAt: created},
				Generations: []store.ImportedGeneration{{Records: Records(r, per, created)}},
			})
		}
		if _, err := db.ImportSessions(ctx, in); err != nil {
			return fmt.Errorf("gen: sessions %d to %d: %w", done, done+len(in)-1, err)
		}
	}
	return nil
}

// Cached returns the path of a generated database of this size under
// os.TempDir(), generating it on first use. Generation writes to a
// temporary name and renames, so an interrupted run leaves no half file.
func Cached(ctx context.Context, sessions, records int) (string, error) {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("rewind-bench-s%d-r%d-v%d.db", sessions, records, store.SchemaVersion()))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
	err := Generate(ctx, tmp, sessions, records)
	// Close checkpointed the WAL into tmp; what is left of -wal/-shm is
	// stale either way.
	for _, s := range []string{"-wal", "-shm"} {
		os.Remove(tmp + s)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return path, nil
}
