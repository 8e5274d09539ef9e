package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
	"github.com/rewind-agent/rewind/views"
)

// benchSessions is the browser benchmarks' database size (README: Performance).
const benchSessions = 10_000

var benchWords = strings.Fields("parser lookahead config loader toml yaml release notes tokenizer generics wal checkpoint import kimi session fuzzy filter benchmark flaky test arm64 runner migrate schema sqlite index query plan cache stream render theme")

// benchDB returns a database of benchSessions sessions (4 records each),
// generated once per machine under os.TempDir() (the store's generator is
// internal to package store, so this mirrors its shape: titles of five
// words, 50 work dirs, one hour apart).
func benchDB(b *testing.B) *store.DB { return benchDBOf(b, benchSessions) }

// benchDBOf is benchDB with n sessions.
func benchDBOf(b *testing.B, n int) *store.DB {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("rewind-tui-bench-s%d-v%d.db", n, store.SchemaVersion()))
	if _, err := os.Stat(path); err != nil {
		tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
		if err := generateSessions(ctx, tmp, n); err != nil {
			os.Remove(tmp)
			b.Fatal(err)
		}
		for _, s := range []string{"-wal", "-shm"} {
			os.Remove(tmp + s)
		}
		if err := os.Rename(tmp, path); err != nil {
			b.Fatal(err)
		}
	}
	db := storetest.OpenAt(b, path, store.Options{})
	return db
}

func generateSessions(ctx context.Context, path string, n int) error {
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(7, 11))
	words := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = benchWords[r.IntN(len(benchWords))]
		}
		return strings.Join(w, " ")
	}
	body := func(role, text string) json.RawMessage {
		b, _ := message.NewText(role, text).MarshalJSON()
		return b
	}
	start := time.Now().Add(-time.Duration(n) * time.Hour)
	for done := 0; done < n; done += 500 {
		var in []store.ImportedSession
		for i := done; i < min(done+500, n); i++ {
			at := start.Add(time.Duration(i) * time.Hour)
			in = append(in, store.ImportedSession{
				Session: store.NewSession{Title: words(5), WorkDir: fmt.Sprintf("/home/dev/project%d", i%50), CreatedAt: at},
				Generations: []store.ImportedGeneration{{Records: []store.Record{
					{Kind: store.KindCheckpoint, CheckpointID: 0, CreatedAt: at},
					{Kind: store.KindMessage, Role: "user", Body: body("user", words(12)), CreatedAt: at},
					{Kind: store.KindMessage, Role: "assistant", Body: body("assistant", words(20)), CreatedAt: at},
					{Kind: store.KindUsage, TokenCount: 1000 + i, CreatedAt: at},
				}}},
			})
		}
		if _, err := db.ImportSessions(ctx, in); err != nil {
			return err
		}
	}
	return nil
}

func benchScreen(b *testing.B) tcell.SimulationScreen {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	s.SetSize(150, 44)
	return s
}

// BenchmarkBrowserFirstPaint: from opening the browser to its first frame —
// list every session (store), build the rows, set them on the list and
// draw it full screen.
func BenchmarkBrowserFirstPaint(b *testing.B) {
	db := benchDB(b)
	ctx := context.Background()
	s := benchScreen(b)
	b.ResetTimer()
	for b.Loop() {
		rows, _, err := listSessionRows(ctx, db, store.ListOptions{})
		if err != nil || len(rows) != benchSessions {
			b.Fatalf("%d rows, %v", len(rows), err)
		}
		l := views.NewSessionList()
		l.SetRect(0, 0, 150, 43)
		l.SetSessions(rows)
		l.Draw(s)
		s.Show()
	}
}

// BenchmarkBrowserFilterKeystroke: one keystroke of a fuzzy filter over
// every session, typed through the list's input handler, then a draw.
// Each op is one keystroke; the query is typed and erased in turn.
func BenchmarkBrowserFilterKeystroke(b *testing.B) {
	db := benchDB(b)
	rows, _, err := listSessionRows(context.Background(), db, store.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := benchScreen(b)
	l := views.NewSessionList()
	l.SetRect(0, 0, 150, 43)
	l.SetSessions(rows)
	l.Draw(s)
	h := l.InputHandler()
	var keys []*tcell.EventKey
	for _, r := range "parser look" {
		keys = append(keys, tcell.NewEventKey(tcell.KeyRune, r, tcell.ModNone))
	}
	for range "parser look" {
		keys = append(keys, tcell.NewEventKey(tcell.KeyBackspace2, 0, tcell.ModNone))
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		h(keys[i%len(keys)], nil)
		l.Draw(s)
		i++
	}
}
