package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
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
	js := decode[[]map[string]any](t, e.look("sessions", "--json").stdout)
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

// fixtureInWorkDir copies a codex or Claude Code fixture with its work
// dir rewritten to dir (so the session is continued where it ran).
func fixtureInWorkDir(t *testing.T, rel, from, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../store/peers/testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(dir)
	data = []byte(strings.ReplaceAll(string(data), `"`+from+`"`, string(quoted)))
	data = []byte(strings.ReplaceAll(string(data), `"`+from+`/`, string(quoted[:len(quoted)-1])+`/`))
	out := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkPaired fails unless every assistant tool call of req is followed by
// exactly its real result (no placeholder), in call order.
func checkPaired(t *testing.T, req llmtest.Request) (calls []string) {
	t.Helper()
	msgs := req.Messages
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			t.Fatalf("message %d: a result %q answers no call just before it", i, m.ToolCallID)
		}
		for k, c := range m.ToolCalls {
			calls = append(calls, c.Name)
			r := msgs[i+1+k]
			if r.Role != "tool" || r.ToolCallID != c.ID || strings.Contains(r.Content.PlainText(), "has no result") {
				t.Fatalf("call %s (%s) is not followed by its result: %+v", c.ID, c.Name, r)
			}
		}
		i += len(m.ToolCalls)
	}
	return calls
}

// TestContinueImportedClaudeSession imports a Claude Code session and
// continues it with `rewind -c -p`: one notice says where it came from,
// the request holds the earlier turns in order with every call paired
// and translated (Write/Read/Edit/Bash as WriteFile/ReadFile/
// StrReplaceFile/Shell), and the answer lands in the same session.
func TestContinueImportedClaudeSession(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("Continuing from Claude Code."))
	e := newEnv(t).withServer(srv)
	file := fixtureInWorkDir(t, "claude-home/projects/-tmp-peers-fx-cwork/22710432-a119-4309-8771-d87495069758.jsonl", "/tmp/peers/fx/cwork", e.workDir)
	id := strings.TrimSpace(e.mustOK("import", file).stdout)
	r := e.mustOK("-c", "-p", "what did you do?")
	if r.stdout != "Continuing from Claude Code.\n" || strings.Count(r.stderr, "came from Claude Code") != 1 {
		t.Fatalf("want the answer and one notice:\n%s", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	calls := checkPaired(t, reqs[0])
	if got := strings.Join(calls, ","); got != "WriteFile,ReadFile,StrReplaceFile,Shell,Shell,Shell" {
		t.Errorf("calls sent %s, want the translated calls in order", got)
	}
	var prompts []string
	for _, m := range reqs[0].Messages {
		if m.Role == "user" && !strings.HasPrefix(m.Content.PlainText(), "<system>") {
			prompts = append(prompts, strings.SplitN(m.Content.PlainText(), "\n", 2)[0])
		}
	}
	want := []string{"Make notes.txt, read it, fix it, and run two commands.", "And count its lines.", "what did you do?"}
	if strings.Join(prompts, "|") != strings.Join(want, "|") {
		t.Errorf("prompts sent %q, want %q", prompts, want)
	}
	for _, name := range reqs[0].ToolNames() {
		if name == "Bash" || name == "Edit" || name == "Write" {
			t.Errorf("Claude Code's tool %s is offered", name)
		}
	}
	if got := e.onlySession(); got != id {
		t.Errorf("the run went to session %s, want the imported %s", got, id)
	}
	// Time travel works on it: revert to the second turn, restore the
	// generation before, fork it.
	if r := e.mustOK("revert", id, "1"); !strings.Contains(r.stdout, "reverted to checkpoint 1") {
		t.Errorf("revert said:\n%s", r)
	}
	e.mustOK("restore", id, "0")
	if got := decode[[]map[string]any](t, e.look("sessions", "--json").stdout); len(got) != 1 || got[0]["messages"].(float64) < 20 {
		t.Errorf("after restore: %v", got)
	}
	e.mustOK("fork", id)
}

// TestContinueImportedCodexSession continues an imported codex rollout
// with --session ID: its reasoning, calls and results go out as one
// answer per step, each call paired.
func TestContinueImportedCodexSession(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("Going on."))
	e := newEnv(t).withServer(srv)
	file := fixtureInWorkDir(t, "codex-home/sessions/2026/11/27/rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe.jsonl", "/tmp/peers/fx/work", e.workDir)
	id := strings.TrimSpace(e.mustOK("import", file).stdout)
	r := e.mustOK("--session", id, "-p", "and now?")
	if strings.Count(r.stderr, "came from codex") != 1 {
		t.Fatalf("want one notice:\n%s", r)
	}
	calls := checkPaired(t, srv.Requests()[0])
	if got := strings.Join(calls, ","); got != "Shell,Shell,Shell,Shell" {
		t.Errorf("calls sent %s, want four Shell calls", got)
	}
}

// TestImportFollow runs `rewind import --follow` on a copy of a rollout
// that holds its first lines: it prints the session's id, `rewind runs`
// lists the run with its origin, the appended lines land in the session,
// and it ends by itself once the file is idle and no process writes it.
func TestImportFollow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	whole, err := os.ReadFile("../../store/peers/testdata/codex-home/sessions/2026/11/27/rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(whole), "\n")
	path := filepath.Join(t.TempDir(), "rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe.jsonl")
	writeFile(t, path, strings.Join(lines[:20], ""))
	// The test is the file's writer from before the follow starts until
	// its last append, as codex is: the follow ends once the file has been
	// idle for 2 s with no writer, and a test that opened it only after
	// its checks of rewind runs saw the follow end first whenever those
	// took 2 s (a loaded machine), its appends never imported.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := e.command(ctx, "import", "--follow", path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no id: %v (%s)", err, stderr.String())
	}
	id = strings.TrimSpace(id)
	// The run's tokens are the session's, as for rewind's own runs.
	tokensOf := func() (run, session float64) {
		runs := decode[[]map[string]any](t, e.mustOK("runs", "--json").stdout)
		if len(runs) != 1 || runs[0]["id"] != id || runs[0]["origin"] != "codex" {
			t.Fatalf("runs while following: %v, want the session with origin codex", runs)
		}
		list := decode[[]map[string]any](t, e.look("sessions", "--json").stdout)
		return runs[0]["tokens"].(float64), list[0]["tokens"].(float64)
	}
	if run, session := tokensOf(); run == 0 || run != session {
		t.Errorf("runs says %v tokens, sessions %v: want the session's count", run, session)
	}
	// Its step (the answers of the turn under way) and the time it has
	// been followed are shown, not "-".
	runs := decode[[]map[string]any](t, e.mustOK("runs", "--json").stdout)
	if runs[0]["step"].(float64) < 1 || runs[0]["elapsed_seconds"].(float64) <= 0 || runs[0]["started_at"] == nil {
		t.Errorf("runs while following: step %v, elapsed %v s, started %v", runs[0]["step"], runs[0]["elapsed_seconds"], runs[0]["started_at"])
	}
	// The table through the binary: rewind runs' contract (the polls run
	// it in the test process).
	tr := e.runCtx(context.Background(), "runs")
	if tr.code != 0 {
		t.Fatalf("rewind runs: %s", tr)
	}
	table := strings.Split(tr.stdout, "\n")
	// ID, PID, "⇣ codex followed", STEP, ELAPSED, ...
	if row := strings.Fields(table[1]); len(row) < 8 || row[5] == "-" || row[6] == "-" {
		t.Errorf("rewind runs: %q, want its step and elapsed time", table)
	}
	if _, err := f.WriteString(strings.Join(lines[20:], "")); err != nil {
		t.Fatal(err)
	}
	var before float64
	waitFor(t, "the appended token counts in rewind runs", 20*time.Second, func() bool {
		// One run of the binary a poll until the lines are in, three after.
		if list := decode[[]map[string]any](t, e.look("sessions", "--json").stdout); len(list) != 1 || list[0]["messages"] != 20.0 {
			return false
		}
		run, session := tokensOf()
		before = session
		return run == session && session > 0
	})
	t.Logf("tokens after the appends: %v", before)
	f.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("follow ended with %v: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stopped following") {
		t.Errorf("stderr: %s", stderr.String())
	}
	list := decode[[]map[string]any](t, e.look("sessions", "--json").stdout)
	if len(list) != 1 || list[0]["checkpoints"] != 3.0 || list[0]["messages"] != 20.0 {
		t.Errorf("after following: %v, want the whole rollout's 3 turns and 20 messages", list)
	}
}

// TestContinueCodexLocalShellCall continues a rollout whose local_shell_call
// codex never ran (no output record): the request still pairs the call
// with exactly one result, which says it has none, and the answer lands
// in the session.
func TestContinueCodexLocalShellCall(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("Understood."))
	e := newEnv(t).withServer(srv)
	file := fixtureInWorkDir(t, "codex-local-shell-home/sessions/2026/11/27/rollout-2026-11-27T04-13-40-01a21b35-7dcd-75a1-925b-09a4c8b7df1b.jsonl", "/tmp/peers-old/fx/lwork", e.workDir)
	id := strings.TrimSpace(e.mustOK("import", file).stdout)
	e.mustOK("--session", id, "-p", "did it run?")
	msgs := srv.Requests()[0].Messages
	calls := 0
	for i, m := range msgs {
		for k, c := range m.ToolCalls {
			calls++
			if r := msgs[i+1+k]; c.Name != "Shell" || r.Role != "tool" || r.ToolCallID != c.ID {
				t.Fatalf("call %s (%s) is not followed by a result: %+v", c.ID, c.Name, r)
			}
		}
		if m.Role == "tool" && (i == 0 || len(msgs[i-1].ToolCalls) == 0 && msgs[i-1].Role != "tool") {
			t.Errorf("message %d: a result answers no call", i)
		}
	}
	if calls != 1 {
		t.Errorf("%d calls sent, want the local shell call", calls)
	}
}
