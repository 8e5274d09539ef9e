package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportEveryHome runs `rewind import` with no path: it finds the
// codex and Claude Code homes ($CODEX_HOME, $CLAUDE_CONFIG_DIR) and prints
// one summary line per home; `sessions` marks the origin and --json names
// it. A second run finds nothing new.
func TestImportEveryHome(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fixtures, err := filepath.Abs("../../store/peers/testdata")
	if err != nil {
		t.Fatal(err)
	}
	e.vars["CODEX_HOME"] = filepath.Join(fixtures, "codex-home")
	e.vars["CLAUDE_CONFIG_DIR"] = filepath.Join(fixtures, "claude-home")
	r := e.mustOK("import")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "codex (") || !strings.Contains(lines[0], "imported 3 sessions") ||
		!strings.HasPrefix(lines[1], "Claude Code (") || !strings.Contains(lines[1], "imported 5 sessions") {
		t.Fatalf("want one summary line per home:\n%s", r)
	}
	if ids := strings.Fields(r.stdout); len(ids) != 8 {
		t.Errorf("%d ids printed, want 8:\n%s", len(ids), r)
	}
	list := e.mustOK("sessions").stdout
	if strings.Count(list, "⇣ codex") != 3 || strings.Count(list, "⇣ claude") != 4 {
		t.Errorf("sessions should mark 3 codex and 4 claude imports:\n%s", list)
	}
	js := decode[[]map[string]any](t, e.mustOK("sessions", "--json").stdout)
	origins, subagents := map[any]int{}, 0
	for _, s := range js {
		if s["subagent_of"] != nil {
			subagents++
			continue
		}
		origins[s["origin"]]++
	}
	if origins["codex"] != 3 || origins["claude"] != 4 || subagents != 1 {
		t.Errorf("--json origins %v, want codex 3 and claude 4, and the sub-agent linked to its parent", origins)
	}
	again := e.mustOK("import")
	if strings.Count(again.stderr, "nothing new") != 2 || strings.TrimSpace(again.stdout) != "" {
		t.Errorf("a second import should find nothing new:\n%s", again)
	}
}

// TestImportNoHome: with no path and no home, one line says where it
// looked and what to do.
func TestImportNoHome(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	empty := t.TempDir()
	e.vars["CODEX_HOME"] = filepath.Join(empty, "no-codex")
	e.vars["CLAUDE_CONFIG_DIR"] = filepath.Join(empty, "no-claude")
	e.vars["KIMI_SHARE_DIR"] = filepath.Join(empty, "no-kimi")
	r := e.run("import")
	if r.code == 0 || !strings.Contains(r.stderr, "no agent history found") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("want one line and a failure:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(empty, "no-codex")); err == nil {
		t.Error("the import made a codex home")
	}
}
