package app

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/kimi"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

var updateShow = flag.Bool("update-show", false, "rewrite testdata/show from the current Show")

// TestShowGolden: `rewind show` prints exactly what testdata/show holds,
// in text and JSON, for an imported kimi-cli session (system prompt,
// reasoning, checkpoints, usage), a native one (markers, tool calls and
// results, an archived generation) and an empty generation. The goldens
// were written by the Show that read the whole view at once; the
// streaming Show must not change a byte.
func TestShowGolden(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	db := storetest.OpenAt(t, filepath.Join(home, "rewind.db"), store.Options{})
	imported, err := kimi.ImportPath(ctx, db, filepath.Join("..", "store", "kimi", "testdata", "session"), "/home/me/hello")
	if err != nil {
		t.Fatal(err)
	}
	native, err := db.CreateSession(ctx, store.NewSession{Title: "native\tone", WorkDir: "/w/native", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"list the files", "now read a.go\nand explain"} {
		if _, err := db.StartTurn(ctx, native.ID, true, message.NewText("user", p)); err != nil {
			t.Fatal(err)
		}
		call := message.NewText("assistant", "Looking.")
		call.ToolCalls = []message.ToolCall{{ID: "c-" + p[:3], Name: "Shell", Args: `{"command":"ls -la \u001b[31m` + strings.Repeat("x", 250) + `"}`}}
		if _, err := db.CommitStep(ctx, native.ID, store.Step{Assistant: call, TokenCount: 300,
			ToolResults: []message.Message{{Role: "tool", ToolCallID: "c-" + p[:3], Content: message.TextContent("a.go\nb.go\n")}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CommitStep(ctx, native.ID, store.Step{Assistant: message.NewText("assistant", "Done: **two** files."), TokenCount: 420}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.RevertTo(ctx, native.ID, 1, store.CauseBacktrack, "a note\nfrom the future"); err != nil {
		t.Fatal(err)
	}
	empty, err := db.CreateSession(ctx, store.NewSession{Title: "", WorkDir: "/w/empty"})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	gen0 := 0
	cases := []struct {
		name string
		id   string
		gen  *int
	}{
		{"imported", imported.ID, nil},
		{"native", native.ID, nil},
		{"native-archived", native.ID, &gen0},
		{"empty", empty.ID, nil},
	}
	for _, c := range cases {
		for _, asJSON := range []bool{false, true} {
			var out bytes.Buffer
			rt := &Runtime{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
			if err := Show(ctx, rt, c.id, c.gen, asJSON); err != nil {
				t.Fatalf("show %s: %v", c.name, err)
			}
			got := strings.ReplaceAll(out.String(), c.id, "SESSION-ID")
			name := c.name + ".txt"
			if asJSON {
				name = c.name + ".json"
			}
			path := filepath.Join("testdata", "show", name)
			if *updateShow {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if asJSON { // the document is the documented schema, nothing else
				dec := json.NewDecoder(strings.NewReader(got))
				dec.DisallowUnknownFields()
				var v ViewJSON
				if err := dec.Decode(&v); err != nil {
					t.Errorf("show --json %s is not a ViewJSON: %v", c.name, err)
				}
			}
			if got != string(want) {
				t.Errorf("show %s differs from %s:\n%s", c.name, path, got)
			}
		}
	}
}
