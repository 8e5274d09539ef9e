package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// A fork is told apart from its source: `rewind sessions` marks it and
// says what it was cut from, and `rewind generations` gives its first
// generation no parent in this session (it showed "0", its source's
// generation, as if it were one of its own).
func TestForkListedApartFromItsSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil { // as rewind makes it: a 0755 one gets a notice
		t.Fatal(err)
	}
	db := storetest.OpenAt(t, filepath.Join(home, "rewind.db"), store.Options{})
	src, err := db.CreateSession(ctx, store.NewSession{Title: "mouse theme", WorkDir: home})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Checkpoint(ctx, src.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(ctx, src.ID, message.NewText("user", "hi")); err != nil {
		t.Fatal(err)
	}
	fork, err := db.ForkSession(ctx, src.ID, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(ctx, fork.ID, message.NewText("user", "kumquat")); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var out bytes.Buffer
	rt := &Runtime{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
	if err := Sessions(ctx, rt, false); err != nil {
		t.Fatal(err)
	}
	if row := strings.Split(out.String(), "\n")[1]; !strings.Contains(row, "⑂ fork @0") || !strings.HasSuffix(row, "  fork of mouse theme @ checkpoint 0") {
		t.Errorf("sessions does not tell the fork apart:\n%s", out.String())
	}
	out.Reset()
	if err := Generations(ctx, rt, fork.ID, true); err != nil {
		t.Fatal(err)
	}
	var gens []GenerationJSON
	if err := json.Unmarshal(out.Bytes(), &gens); err != nil {
		t.Fatal(err)
	}
	if len(gens) != 1 || gens[0].ParentGen != nil || gens[0].ParentSession != src.ID || gens[0].ParentSourceGen == nil || *gens[0].ParentSourceGen != 0 {
		t.Errorf("generations --json of the fork: %s", out.String())
	}
	out.Reset()
	if err := Generations(ctx, rt, fork.ID, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if f := strings.Fields(lines[1]); len(f) < 2 || f[1] != "-" || !strings.Contains(lines[1], "fork of "+src.ID+" gen 0") {
		t.Errorf("the fork's generation 0 row: %q", lines[1])
	}
	// rewind search titles a hit as the lists do
	out.Reset()
	if err := Search(ctx, rt, SearchArgs{Query: "kumquat", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(out.String(), "\n"); len(lines) < 2 || !strings.Contains(lines[1], "fork of mouse theme @ checkpoint 0") {
		t.Errorf("search does not title the fork's hit as the lists do:\n%s", out.String())
	}
}

// TestForkOfAForkNamesTheForkAsItsSource: a fork cut at a checkpoint of a
// fork, a checkpoint the fork shares with its own source, is listed as a
// fork of the fork: `rewind sessions` and the NOTE of `rewind generations`
// name the fork, not the original session whose records hold the
// checkpoint.
func TestForkOfAForkNamesTheForkAsItsSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil { // as rewind makes it: a 0755 one gets a notice
		t.Fatal(err)
	}
	db := storetest.OpenAt(t, filepath.Join(home, "rewind.db"), store.Options{})
	src, err := db.CreateSession(ctx, store.NewSession{Title: "mouse theme", WorkDir: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"one", "two"} {
		if _, err := db.Checkpoint(ctx, src.ID, false); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AppendMessage(ctx, src.ID, message.NewText("user", p)); err != nil {
			t.Fatal(err)
		}
	}
	mid, err := db.ForkSession(ctx, src.ID, -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RenameSession(ctx, mid.ID, "intermediate otter"); err != nil {
		t.Fatal(err)
	}
	ff, err := db.ForkSession(ctx, mid.ID, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	var out bytes.Buffer
	rt := &Runtime{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
	if err := Sessions(ctx, rt, false); err != nil {
		t.Fatal(err)
	}
	if row := strings.Split(out.String(), "\n")[1]; !strings.HasPrefix(row, ff.ID) || !strings.HasSuffix(row, "fork of intermediate otter @ checkpoint 1") {
		t.Errorf("the fork of the fork is not listed as one:\n%s", out.String())
	}
	out.Reset()
	if err := Generations(ctx, rt, ff.ID, false); err != nil {
		t.Fatal(err)
	}
	if row := strings.Split(out.String(), "\n")[1]; !strings.Contains(row, "fork of "+mid.ID+" gen 0") {
		t.Errorf("the fork's generation 0 row: %q", row)
	}
	// generations --json names the session forked, as sessions --json
	// does, beside parent_session (whose records hold the checkpoint)
	for _, tc := range []struct {
		id, forkOf string
		cp         float64
	}{{ff.ID, mid.ID, 1}, {mid.ID, src.ID, -1}} {
		out.Reset()
		if err := Generations(ctx, rt, tc.id, true); err != nil {
			t.Fatal(err)
		}
		var gens []map[string]any
		if err := json.Unmarshal(out.Bytes(), &gens); err != nil {
			t.Fatal(err)
		}
		cp, hasCP := gens[0]["fork_checkpoint"]
		if gens[0]["fork_of"] != tc.forkOf || hasCP != (tc.cp >= 0) || (hasCP && cp != tc.cp) {
			t.Errorf("generations --json of %s: gen 0 is %v, want fork_of %s, fork_checkpoint %v", tc.id, gens[0], tc.forkOf, tc.cp)
		}
	}
	out.Reset()
	if err := Generations(ctx, rt, src.ID, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), `"fork_of"`) || strings.Contains(out.String(), `"fork_checkpoint"`) {
		t.Errorf("generations --json of a session that is no fork names one: %s", out.String())
	}
}
