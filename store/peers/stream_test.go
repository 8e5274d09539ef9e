package peers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/internal/gen"
	"github.com/rewind-agent/rewind/store"
)

// dumpSessions is every session of db as text, sub-agents included, keyed
// by title and parent title: its work dir, model, generations and their
// records.
func dumpSessions(t *testing.T, db *store.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	ss, err := db.ListSessions(ctx, store.ListOptions{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, s := range ss {
		titles[s.ID] = s.Title
	}
	out := map[string]string{}
	for _, s := range ss {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s %s %s gen %d sub-agent %q %s %s\n", s.WorkDir, s.Model, s.CreatedAt, s.UpdatedAt, s.CurrentGen, s.SubagentCall, s.SubagentType, titles[s.SubagentOf])
		gens, err := db.Generations(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gens {
			fmt.Fprintf(&b, "gen %d %s %d messages %d tokens archived %v\n", g.Gen, g.Cause, g.Messages, g.Tokens, g.ArchivedAt != nil)
			v, err := db.GenerationView(ctx, s.ID, g.Gen)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range v.Records {
				fmt.Fprintf(&b, "%s %s %d %d %s %s\n", r.Kind, r.Role, r.CheckpointID, r.TokenCount, r.Body, r.CreatedAt)
			}
		}
		out[s.Title+" < "+titles[s.SubagentOf]] += b.String()
	}
	return out
}

// TestImportStreamsLargeFiles: codex and Claude Code files larger than
// StreamBytes are parsed as they are written, a piece at a time, and come
// out as a whole import makes them: compactions, a branch (Claude Code's
// rewind: read whole, its records being written already), sub-agent runs
// in the parent's file, torn last lines, titles and models that come
// late. A re-run finds them unchanged, and a grown file adds only its new
// records.
func TestImportStreamsLargeFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	generated := t.TempDir()
	if _, err := gen.CodexHome(filepath.Join(generated, "codex"), 3, 30); err != nil {
		t.Fatal(err)
	}
	if _, err := gen.ClaudeHome(filepath.Join(generated, "claude"), 3, 30); err != nil {
		t.Fatal(err)
	}
	// A model named late: the session takes the last one.
	rollouts, err := filepath.Glob(filepath.Join(generated, "codex", "sessions", "*", "*", "*", "*.jsonl"))
	if err != nil || len(rollouts) != 3 {
		t.Fatalf("rollouts %v %v", rollouts, err)
	}
	f, err := os.OpenFile(rollouts[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"timestamp":"2026-11-27T06:00:00.000Z","type":"turn_context","payload":{"cwd":"/x","model":"gpt-late"}}` + "\n")
	f.Close()
	// A torn last line (codex killed mid-write) and a whole one without its
	// newline.
	claudes, err := filepath.Glob(filepath.Join(generated, "claude", "projects", "*", "*.jsonl"))
	if err != nil || len(claudes) != 3 {
		t.Fatalf("Claude Code files %v %v", claudes, err)
	}
	for i, tail := range []string{`{"type":"user","message":{"role":"us`, `{"type":"user","uuid":"u-last","message":{"role":"user","content":"the last word"}}`} {
		f, err := os.OpenFile(claudes[i], os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(tail)
		f.Close()
	}
	homes := []string{filepath.Join(generated, "codex"), filepath.Join(generated, "claude")}
	for _, h := range []string{"codex-home", "codex-local-shell-home", "claude-home", "claude-1.0-home", "claude-branch-home"} {
		homes = append(homes, filepath.Join("testdata", h))
	}
	for _, home := range homes {
		t.Run(filepath.Base(home), func(t *testing.T) {
			t.Parallel()
			d, ok, err := Detect(home)
			if err != nil || !ok {
				t.Fatalf("Detect(%s): %v %v", home, ok, err)
			}
			whole, streamed := openDB(t), openDB(t)
			wres, err := ImportAll(ctx, whole, d.Sources, Options{WorkDir: "/w"})
			if err != nil {
				t.Fatal(err)
			}
			small := Options{WorkDir: "/w", StreamBytes: 1, BatchRecords: 6} // pieces of 3 records
			sres, err := ImportAll(ctx, streamed, d.Sources, small)
			if err != nil {
				t.Fatal(err)
			}
			wres.SessionIDs, sres.SessionIDs = nil, nil
			if !reflect.DeepEqual(wres, sres) {
				t.Fatalf("streamed import %+v, whole %+v", sres, wres)
			}
			if w, s := dumpSessions(t, whole), dumpSessions(t, streamed); !reflect.DeepEqual(w, s) {
				for k := range w {
					if w[k] != s[k] {
						t.Fatalf("session %q streamed:\n%s\nwhole:\n%s", k, s[k], w[k])
					}
				}
				t.Fatalf("streamed sessions %d, whole %d", len(s), len(w))
			}
			again, err := ImportAll(ctx, streamed, d.Sources, small)
			if err != nil || again.Unchanged != wres.Imported || again.Imported+again.Updated != 0 {
				t.Fatalf("re-run: %+v %v (first: %+v)", again, err, wres)
			}
		})
	}
}

// TestStreamedFileGrows: a file streamed at its first import that grows
// adds only its new records (the import record holds the bytes streamed
// and their hash), as one imported whole does.
func TestStreamedFileGrows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "codex")
	want, err := gen.CodexHome(home, 1, 40)
	if err != nil {
		t.Fatal(err)
	}
	d, ok, err := Detect(home)
	if err != nil || !ok {
		t.Fatal(err)
	}
	db := openDB(t)
	small := Options{WorkDir: "/w", StreamBytes: 1, BatchRecords: 20}
	if res, err := ImportAll(ctx, db, d.Sources, small); err != nil || res.Records != want || res.Imported != 1 {
		t.Fatalf("streamed import: %+v %v, want %d records", res, err, want)
	}
	f, err := os.OpenFile(d.Sources[0].Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"timestamp":"2026-11-27T06:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one more"}]}}` + "\n")
	f.Close()
	d, _, _ = Detect(home)
	if res, err := ImportAll(ctx, db, d.Sources, small); err != nil || res.Updated != 1 || res.Records != 2 {
		t.Fatalf("grown file: %+v %v, want its checkpoint and prompt added", res, err)
	}
}

// TestStreamHoldsAPieceAtATime: a streamed file's parser never holds more
// than a piece of records and one line's (peak), however long the file,
// and the pieces add up to the records a whole parse makes.
func TestStreamHoldsAPieceAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct {
		origin string
		write  func(string, int, int) (int, error)
	}{{store.OriginCodex, gen.CodexHome}, {store.OriginClaude, gen.ClaudeHome}} {
		home := filepath.Join(t.TempDir(), c.origin)
		want, err := c.write(home, 1, 500)
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := Detect(home)
		if err != nil {
			t.Fatal(err)
		}
		src := d.Sources[0]
		data, err := os.ReadFile(src.Path)
		if err != nil {
			t.Fatal(err)
		}
		wholeParse, err := Parse(bytes.NewReader(data), c.origin, src.Path, nil)
		if err != nil || wholeParse.Records() != want {
			t.Fatalf("whole parse: %d records of %d, %v", wholeParse.Records(), want, err)
		}
		fh, err := hashFile(ctx, src.Path)
		if err != nil {
			t.Fatal(err)
		}
		if fh.bound < want {
			t.Fatalf("bound %d below the %d records", fh.bound, want)
		}
		const piece = 50
		st, err := newFileStream(ctx, src, fh, piece, nil)
		if err != nil {
			t.Fatal(err)
		}
		total, pieces := 0, 0
		for done := false; !done; pieces++ {
			var p store.ImportPiece
			if p, done, err = st.Next(ctx); err != nil {
				t.Fatal(err)
			}
			total += len(p.Records)
			for _, g := range p.Gens {
				total += len(g.Records)
			}
		}
		if total != want || st.total != want {
			t.Fatalf("%s: pieces gave %d records (counted %d), want %d", c.origin, total, st.total, want)
		}
		// A line makes at most two records here; one is kept back.
		if st.peak > piece+3 || pieces < want/(piece+3) {
			t.Fatalf("%s: the parser held up to %d records in %d pieces of %d", c.origin, st.peak, pieces, piece)
		}
	}
}
