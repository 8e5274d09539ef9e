package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// export --session-dir writes every generation as a kimi-cli session dir:
// archived ones as context_N.jsonl in creation order, the current one as
// context.jsonl. Importing that dir gives back the same generations.
func TestExportSessionDirRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := filepath.Join(t.TempDir(), "kimi-session")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(src, "context_1.jsonl"), fixtureOld)
	writeFile(t, filepath.Join(src, "context.jsonl"), fixtureCurrent)
	id := strings.TrimSpace(e.mustOK("import", src).stdout)
	e.mustOK("revert", id, "1") // a third generation: the current one cut at checkpoint 1

	out := filepath.Join(t.TempDir(), "exported")
	r := e.mustOK("export", id, "--session-dir", out)
	if !strings.Contains(r.stdout, "3 files") || !strings.Contains(r.stdout, "context_1.jsonl, context_2.jsonl, context.jsonl") {
		t.Errorf("export --session-dir said %q", r.stdout)
	}
	want := e.generationExports(id)
	for i, name := range []string{"context_1.jsonl", "context_2.jsonl", "context.jsonl"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normalise(t, string(data)), normalise(t, want[i])) {
			t.Errorf("%s is not generation %d in creation order:\n%s", name, i, data)
		}
	}
	cur, _ := os.ReadFile(filepath.Join(out, "context.jsonl"))

	// The dir imports back as one session whose generations, in order,
	// export as the source's did.
	back := strings.TrimSpace(e.mustOK("import", out).stdout)
	if back == id || back == "" {
		t.Fatalf("re-import gave %q", back)
	}
	before, after := want, e.generationExports(back) // the export changed nothing in id
	if len(before) != 3 || len(after) != 3 {
		t.Fatalf("generations: %d before, %d after the round trip", len(before), len(after))
	}
	for i := range before {
		if !reflect.DeepEqual(normalise(t, after[i]), normalise(t, before[i])) {
			t.Errorf("generation %d differs after the round trip:\n got %s\nwant %s", i, after[i], before[i])
		}
	}

	// Nothing is replaced: a second export into the same dir is refused in
	// one line, and the files are as they were.
	r = e.run("export", id, "--session-dir", out)
	expectError(t, r, 1, "already exists", "empty or new directory")
	if data, _ := os.ReadFile(filepath.Join(out, "context.jsonl")); string(data) != string(cur) {
		t.Error("a refused export changed context.jsonl")
	}
}

// generationExports is every generation of a session exported, archived
// ones first in creation order, the current one last.
func (e *env) generationExports(id string) []string {
	e.t.Helper()
	var archived []string
	var current string
	for _, g := range decode[[]map[string]any](e.t, e.look("generations", id, "--json").stdout) {
		n := strconv.Itoa(int(g["gen"].(float64)))
		exp := e.mustOK("export", id, "--generation", n).stdout
		if g["archived"] == true {
			archived = append(archived, exp)
		} else {
			current = exp
		}
	}
	return append(archived, current)
}
