package main

// End-to-end tests: they build the rewind binary once and drive the CLI
// contract of the README's CLI section through it, the way scripts and users do.

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	_ "github.com/mattn/go-sqlite3"

	"github.com/rewind-agent/rewind/app"
	"github.com/rewind-agent/rewind/internal/testbin"
	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

var binary string

// memoryTmp is the test binary's own TMPDIR on tmpfs ("" when the tests'
// temporary directories are the machine's).
var memoryTmp string

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the test binary doubles as an MCP server
	testbin.CollectLess()
	var err error
	if binary, err = testbin.Rewind("cmd-rewind"); err != nil {
		fmt.Fprintln(os.Stderr, "building rewind:", err)
		os.Exit(1)
	}
	// Homes, work dirs and imported files on tmpfs, as the store's tests:
	// the binary's runs make databases, WALs, sockets and recovery dirs in
	// each test's own, and ext4's inode and journal work under them was
	// a third of the package's system time on this disk. A short name:
	// a live socket's path ($REWIND_HOME/run/ID.sock) must fit in 107
	// bytes, and TestImportFollow's does (101 at most).
	given := os.Getenv("TMPDIR")
	remove := testbin.TempInMemory("cr")
	if tmp := os.Getenv("TMPDIR"); tmp != given {
		memoryTmp = tmp
	}
	code := m.Run()
	remove()
	os.Exit(code)
}

// env is an isolated environment: its own home, work dir and no API
// settings leaking in from the machine running the tests.
type env struct {
	t       *testing.T
	home    string
	workDir string
	vars    map[string]string
	stdin   string
	// viaBinary: every run starts the binary (throughBinary).
	viaBinary bool
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{
		t:       t,
		home:    privateDir(t),
		workDir: t.TempDir(),
		vars: map[string]string{
			"PATH":                    os.Getenv("PATH"),
			"HOME":                    t.TempDir(),
			"REWIND_RETRY_BACKOFF_MS": "1",
			// As the test process (TestMain): the binary's collector was a
			// twentieth of its CPU here, its heaps are small and short-lived.
			"GOGC": cmp.Or(os.Getenv("GOGC"), "400"),
		},
	}
}

// privateDir is a temporary directory of mode 0700, as rewind makes its
// home (t.TempDir's is 0755, which rewind would tighten and say so).
func privateDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run executes rewind with --home set to the env's home, in its work dir:
// a command that runs the same in the test process runs there (here),
// anything else starts the binary, as does every run of an env made
// throughBinary.
func (e *env) run(args ...string) result {
	e.t.Helper()
	if !e.viaBinary && e.runsHere(args) {
		return e.here(args...)
	}
	return e.runCtx(context.Background(), args...)
}

// throughBinary makes every run of the env start the binary: the tests
// that hold each command's contract as scripts see it (its exit code,
// streams and files from a process of its own).
func (e *env) throughBinary() *env {
	e.viaBinary = true
	return e
}

// hereCommands are the commands whose run in the test process is the
// binary's: they read and write the database and the session's files,
// take their streams, environment and work dir from stdio, and start
// nothing. Print mode (its Shell commands, MCP servers, process groups and
// signals), the workspace's terminal checks, agent files, mcp trust (the
// process's directory), compact and import without a path (homes under
// the process's $HOME) start the binary.
var hereCommands = []string{"show", "sessions", "generations", "search", "revert", "restore", "undo", "fork", "runs", "export", "import"}

// baseVars are the variables of every env (newEnv).
var baseVars = []string{"PATH", "HOME", "REWIND_RETRY_BACKOFF_MS", "GOGC"}

func (e *env) runsHere(args []string) bool {
	if len(args) == 0 || !slices.Contains(hereCommands, args[0]) {
		return false
	}
	switch args[0] {
	case "import":
		// With a path of its own: without one it looks under $HOME.
		return len(args) > 1 && filepath.IsAbs(args[len(args)-1])
	case "export":
		// Its redaction reads the process's environment: a key the env
		// sets is redacted only in a process that has it.
		for k := range e.vars {
			if !slices.Contains(baseVars, k) {
				return false
			}
		}
	}
	return true
}

// here runs rewind's run in the test process, with the env's home,
// environment and work dir: a start of the binary costs ~10 ms of CPU
// (~20 with print mode's work), a run here a fraction of that.
func (e *env) here(args ...string) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"--home", e.home}, args...), stdio{
		in: strings.NewReader(e.stdin), out: &out, err: &errb,
		getenv: func(k string) string { return e.vars[k] },
		dir:    e.workDir,
	})
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func (e *env) runCtx(ctx context.Context, args ...string) result {
	e.t.Helper()
	cmd := e.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			e.t.Fatalf("running rewind %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func (e *env) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--home", e.home}, args...)
	cmd := exec.CommandContext(ctx, binary, full...)
	cmd.Dir = e.workDir
	for k, v := range e.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(e.stdin)
	return cmd
}

// runArgs runs rewind's run in the test process, for a test of how the
// command line is read: argument and flag errors, help. A start of the
// binary costs ~15 ms of CPU; the end-to-end shape of the same errors
// (exit code, one line on stderr) is held through the binary by
// TestUsageErrorsThroughTheBinary. The run gets a home of its own and an
// environment with nothing in it, and the test fails if the run went past
// its arguments (anything in that home): such a test starts the binary.
func runArgs(t *testing.T, args ...string) result {
	t.Helper()
	home := privateDir(t)
	var out, errb bytes.Buffer
	code := run(append([]string{"--home", home}, args...), stdio{
		in: strings.NewReader(""), out: &out, err: &errb,
		getenv: func(string) string { return "" },
	})
	if entries, _ := os.ReadDir(home); len(entries) > 0 {
		t.Fatalf("rewind %q went past its arguments (it made %s): start the binary (env.run)", args, entries[0].Name())
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// look runs a read of the env's database as JSON (show, sessions or
// generations with --json) in the test process: the look a test takes at
// what a run of the binary did. It is the same run() as the binary's, so
// the same JSON; the tests of those commands themselves start the binary.
func (e *env) look(args ...string) result {
	e.t.Helper()
	if len(args) == 0 || !slices.Contains([]string{"show", "sessions", "generations"}, args[0]) || !slices.Contains(args, "--json") {
		e.t.Fatalf("look is for the JSON of show, sessions and generations, not %q", args)
	}
	r := e.here(args...)
	if r.code != 0 {
		e.t.Fatalf("rewind %v: %s", args, r)
	}
	return r
}

// mustParse is runArgs for a command line that must succeed (help).
func mustParse(t *testing.T, args ...string) result {
	t.Helper()
	r := runArgs(t, args...)
	if r.code != 0 {
		t.Fatalf("rewind %v: %s", args, r)
	}
	return r
}

func (e *env) dbPath() string { return filepath.Join(e.home, "rewind.db") }

// waitUntil polls the database, read-only, until query (one boolean) is
// true, and fails the test if the process whose Wait exited reports ends
// first. Another process's commits signal nothing here; a query costs a
// fraction of a start of the binary.
func (e *env) waitUntil(exited <-chan error, query string) {
	e.t.Helper()
	var ro *sql.DB
	for {
		select {
		case err := <-exited:
			e.t.Fatalf("the process ended before %s: %v", query, err)
		case <-time.After(5 * time.Millisecond):
		}
		if ro == nil {
			if _, err := os.Stat(e.dbPath()); err != nil {
				continue
			}
			var err error
			if ro, err = sql.Open("sqlite3", "file:"+e.dbPath()+"?mode=ro&_busy_timeout=5000"); err != nil {
				e.t.Fatal(err)
			}
			defer ro.Close()
		}
		var ok bool
		if ro.QueryRow(query).Scan(&ok) == nil && ok {
			return
		}
	}
}

// binaryOK starts the binary whatever the command and fails the test
// unless it exits 0: a test whose other runs are in the test process
// holds the command's contract through a process of its own with it.
func (e *env) binaryOK(args ...string) result {
	e.t.Helper()
	r := e.runCtx(context.Background(), args...)
	if r.code != 0 {
		e.t.Fatalf("rewind %v: %s", args, r)
	}
	return r
}

// mustOK runs rewind and fails the test unless it exits 0.
func (e *env) mustOK(args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 {
		e.t.Fatalf("rewind %v: %s", args, r)
	}
	return r
}

// expectUserError checks the contract for errors: the exit code, exactly one
// line on stderr starting with "rewind: ", no Go runtime text.
func expectError(t *testing.T, r result, code int, wants ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\n%s", r.code, code, r)
	}
	line := strings.TrimSuffix(r.stderr, "\n")
	if line == "" || strings.Contains(line, "\n") {
		t.Errorf("stderr is not exactly one line: %q", r.stderr)
	}
	if !strings.HasPrefix(line, "rewind: ") {
		t.Errorf("stderr does not start with \"rewind: \": %q", line)
	}
	for _, bad := range []string{"goroutine", "panic", "runtime/", ".go:", "Usage:"} {
		if strings.Contains(r.stderr, bad) || strings.Contains(r.stdout, bad) {
			t.Errorf("output contains %q:\n%s", bad, r)
		}
	}
	for _, w := range wants {
		if !strings.Contains(line, w) {
			t.Errorf("stderr %q does not mention %q", line, w)
		}
	}
}

// seeded is a session written through the store API: two checkpoints, a
// tool round trip and usage records.
type seeded struct {
	id string
}

func (e *env) seed(title string) seeded {
	e.t.Helper()
	ctx := context.Background()
	db := storetest.OpenAt(e.t, e.dbPath(), store.Options{})
	defer db.Close() // before the CLI runs on it
	s, err := db.CreateSession(ctx, store.NewSession{Title: title, WorkDir: e.workDir, Model: "test-model"})
	if err != nil {
		e.t.Fatal(err)
	}
	must := func(err error) {
		e.t.Helper()
		if err != nil {
			e.t.Fatal(err)
		}
	}
	_, err = db.Checkpoint(ctx, s.ID, false) // checkpoint 0
	must(err)
	_, err = db.AppendMessage(ctx, s.ID, message.NewText("user", "hello"))
	must(err)
	_, err = db.CommitStep(ctx, s.ID, store.Step{Assistant: message.NewText("assistant", "hi there"), TokenCount: 100})
	must(err)
	_, err = db.Checkpoint(ctx, s.ID, false) // checkpoint 1
	must(err)
	_, err = db.AppendMessage(ctx, s.ID, message.NewText("user", "write a.txt"))
	must(err)
	call := message.Message{Role: "assistant", Content: message.Content{IsNull: true},
		ToolCalls: []message.ToolCall{{ID: "call_1", Type: "function", Name: "WriteFile", Args: `{"path":"a.txt","content":"x"}`}}}
	tool := message.Message{Role: "tool", Content: message.TextContent("wrote 1 byte to a.txt"), ToolCallID: "call_1"}
	_, err = db.CommitStep(ctx, s.ID, store.Step{Assistant: call, ToolResults: []message.Message{tool}, TokenCount: 180})
	must(err)
	_, err = db.CommitStep(ctx, s.ID, store.Step{Assistant: message.NewText("assistant", "done \x1b[31mred"), TokenCount: 200})
	must(err)
	return seeded{id: s.ID}
}

// fillPages writes a session of n answers of a page or two through the
// store (a test of damage needs pages to damage, not runs that wrote
// them) and closes it, which checkpoints the WAL into the file and stamps
// it as checked, as a rewind that ran quick_check does at its exit.
func (e *env) fillPages(n int) {
	e.t.Helper()
	id := e.seed("pages to damage").id
	// Without a stamp this open runs quick_check, so its Close stamps.
	if err := os.Remove(e.dbPath() + ".checked"); err != nil && !os.IsNotExist(err) {
		e.t.Fatal(err)
	}
	db := storetest.OpenAt(e.t, e.dbPath(), store.Options{})
	for i := range n {
		answer := message.NewText("assistant", strings.Repeat(fmt.Sprintf("answer %d fills a page or two. ", i), 60))
		if _, err := db.CommitStep(context.Background(), id, store.Step{Assistant: answer, TokenCount: 100}); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		e.t.Fatal(err)
	}
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(keys ...string) []string {
	sort.Strings(keys)
	return keys
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return v
}

func TestSessionsJSONShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t).throughBinary()
	r := e.mustOK("sessions", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("empty database: %q, want []", r.stdout)
	}
	a := e.seed("first")
	time.Sleep(10 * time.Millisecond) // the list orders by updated_at in milliseconds: two seeds in one would tie
	b := e.seed("second")

	list := decode[[]map[string]any](t, e.mustOK("sessions", "--json").stdout)
	if len(list) != 2 {
		t.Fatalf("%d sessions", len(list))
	}
	want := sorted("id", "title", "work_dir", "created_at", "updated_at", "current_gen", "messages", "checkpoints", "tokens")
	for _, s := range list {
		if got := keysOf(s); !reflect.DeepEqual(got, want) {
			t.Errorf("keys %v, want %v", got, want)
		}
		for _, k := range []string{"created_at", "updated_at"} {
			if _, err := time.Parse(time.RFC3339, s[k].(string)); err != nil {
				t.Errorf("%s not RFC 3339: %v", k, s[k])
			}
		}
	}
	if list[0]["id"] != b.id || list[1]["id"] != a.id {
		t.Errorf("not newest first: %v %v", list[0]["id"], list[1]["id"])
	}
	s := list[1]
	if s["title"] != "first" || s["work_dir"] != e.workDir || s["current_gen"] != 0.0 ||
		s["messages"] != 6.0 || s["checkpoints"] != 2.0 || s["tokens"] != 200.0 {
		t.Errorf("counters: %v", s)
	}

	text := e.mustOK("sessions").stdout
	for _, w := range []string{"ID", "TITLE", a.id, b.id, "first", "second"} {
		if !strings.Contains(text, w) {
			t.Errorf("sessions table lacks %q:\n%s", w, text)
		}
	}
}

func TestShowJSONShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t).throughBinary()
	s := e.seed("show me")
	v := decode[map[string]any](t, e.mustOK("show", s.id, "--json").stdout)
	if got, want := keysOf(v), sorted("id", "generation", "tokens", "next_checkpoint_id", "records"); !reflect.DeepEqual(got, want) {
		t.Fatalf("keys %v, want %v", got, want)
	}
	if v["id"] != s.id || v["generation"] != 0.0 || v["tokens"] != 200.0 || v["next_checkpoint_id"] != 2.0 {
		t.Errorf("header: %v", v)
	}
	recs := v["records"].([]any)
	wantKeys := sorted("seq", "kind", "role", "checkpoint_id", "token_count", "message")
	var kinds []string
	lastSeq := -1.0
	for _, r := range recs {
		rec := r.(map[string]any)
		if got := keysOf(rec); !reflect.DeepEqual(got, wantKeys) {
			t.Errorf("record keys %v, want %v", got, wantKeys)
		}
		if seq := rec["seq"].(float64); seq <= lastSeq {
			t.Errorf("seq not increasing: %v after %v", seq, lastSeq)
		} else {
			lastSeq = seq
		}
		kinds = append(kinds, rec["kind"].(string))
		switch rec["kind"] {
		case "message":
			if rec["message"] == nil || rec["role"] == nil {
				t.Errorf("message record without message/role: %v", rec)
			}
		case "checkpoint":
			if rec["checkpoint_id"] == nil || rec["message"] != nil {
				t.Errorf("checkpoint record: %v", rec)
			}
		case "usage":
			if rec["token_count"] == nil {
				t.Errorf("usage record: %v", rec)
			}
		}
	}
	want := []string{"checkpoint", "message", "message", "usage", "checkpoint", "message", "message", "usage", "message", "message", "usage"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("kinds %v\nwant  %v", kinds, want)
	}
	tool := recs[8].(map[string]any)["message"].(map[string]any)
	if tool["role"] != "tool" || tool["tool_call_id"] != "call_1" {
		t.Errorf("tool message: %v", tool)
	}

	text := e.mustOK("show", s.id).stdout
	for _, w := range []string{"checkpoint 0", "checkpoint 1", "[user]", "hello", "[assistant]", "hi there", "WriteFile", "tool WriteFile", "wrote 1 byte"} {
		if !strings.Contains(text, w) {
			t.Errorf("transcript lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "\x1b") {
		t.Errorf("transcript passes a raw escape sequence to the terminal:\n%q", text)
	}
	// A unique prefix of the id works too.
	if r := e.run("show", s.id[:len(s.id)-4], "--json"); r.code != 0 || decode[map[string]any](t, r.stdout)["id"] != s.id {
		t.Errorf("prefix lookup: %s", r)
	}
}

func TestRevertRestoreGenerations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.seed("time travel")

	r := e.binaryOK("revert", s.id, "1")
	if want := "reverted to checkpoint 1: generation 1, 4 messages archived in generation 0\nfiles unchanged\nundo with `rewind undo " + s.id + "`"; strings.TrimSpace(r.stdout) != want {
		t.Errorf("revert said %q, want %q", r.stdout, want)
	}
	v := decode[map[string]any](t, e.mustOK("show", s.id, "--json").stdout)
	if v["generation"] != 1.0 || v["tokens"] != 100.0 || v["next_checkpoint_id"] != 1.0 || len(v["records"].([]any)) != 4 {
		t.Errorf("view after revert: gen %v tokens %v next %v records %d", v["generation"], v["tokens"], v["next_checkpoint_id"], len(v["records"].([]any)))
	}
	// The archived generation is intact.
	old := decode[map[string]any](t, e.mustOK("show", s.id, "--generation", "0", "--json").stdout)
	if len(old["records"].([]any)) != 11 {
		t.Errorf("archived generation 0 has %d records", len(old["records"].([]any)))
	}

	r = e.binaryOK("restore", s.id, "0")
	if !strings.Contains(r.stdout, "restored generation 0 as generation 2") {
		t.Errorf("restore said %q", r.stdout)
	}
	gens := decode[[]map[string]any](t, e.binaryOK("generations", s.id, "--json").stdout)
	if len(gens) != 3 {
		t.Fatalf("%d generations", len(gens))
	}
	want := sorted("gen", "parent_gen", "fork_seq", "cause", "note", "created_at", "archived", "messages")
	for _, g := range gens {
		if got := keysOf(g); !reflect.DeepEqual(got, want) {
			t.Errorf("keys %v, want %v", got, want)
		}
		if _, err := time.Parse(time.RFC3339, g["created_at"].(string)); err != nil {
			t.Errorf("created_at: %v", err)
		}
	}
	type row struct {
		cause    string
		archived bool
		messages float64
	}
	var rows []row
	for _, g := range gens {
		rows = append(rows, row{g["cause"].(string), g["archived"].(bool), g["messages"].(float64)})
	}
	if !reflect.DeepEqual(rows, []row{{"start", true, 6}, {"revert", true, 2}, {"restore", false, 6}}) {
		t.Errorf("generations: %+v", rows)
	}
	if gens[1]["parent_gen"] != 0.0 || gens[1]["fork_seq"] == nil || gens[0]["parent_gen"] != nil {
		t.Errorf("parents: %v %v", gens[0], gens[1])
	}
	text := e.mustOK("generations", s.id).stdout
	for _, w := range []string{"CAUSE", "start", "revert", "restore", "archived by revert in gen 1", "archived by restore in gen 2", "current"} {
		if !strings.Contains(text, w) {
			t.Errorf("generations table lacks %q:\n%s", w, text)
		}
	}
	ss := decode[[]map[string]any](t, e.mustOK("sessions", "--json").stdout)
	if ss[0]["current_gen"] != 2.0 || ss[0]["messages"] != 6.0 {
		t.Errorf("session counters after restore: %v", ss[0])
	}
}

func TestUserErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t).throughBinary()
	s := e.seed("errors")
	cases := []struct {
		name  string
		args  []string
		wants []string
	}{
		{"unknown session show", []string{"show", "nosuchsession"}, []string{`no session matches "nosuchsession"`, "rewind sessions"}},
		{"unknown session generations", []string{"generations", "zzz"}, []string{`"zzz"`}},
		{"unknown session revert", []string{"revert", "zzz", "0"}, []string{`"zzz"`}},
		{"unknown checkpoint", []string{"revert", s.id, "7"}, []string{"checkpoint 7", "rewind show"}},
		{"unknown generation show", []string{"show", s.id, "--generation", "9"}, []string{"generation 9", "rewind generations"}},
		{"unknown generation restore", []string{"restore", s.id, "9"}, []string{"generation 9"}},
		{"unknown session export", []string{"export", "zzz"}, []string{`"zzz"`}},
		{"import missing file", []string{"import", filepath.Join(e.workDir, "missing.jsonl")}, []string{"missing.jsonl"}},
		{"work dir missing", []string{"-p", "hi", "--work-dir", filepath.Join(e.workDir, "gone")}, []string{"gone"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expectError(t, e.run(tc.args...), 1, tc.wants...)
		})
	}
	// Nothing above changed the session.
	g := decode[[]map[string]any](t, e.look("generations", s.id, "--json").stdout)
	if len(g) != 1 {
		t.Errorf("failed commands wrote generations: %v", g)
	}
}

// TestRevertFilesWorkDirGone: a file rewind in a session whose work dir was
// removed says so in one line and changes nothing.
func TestRevertFilesWorkDirGone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.seed("gone")
	gone := e.workDir
	e.workDir = t.TempDir()
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"revert", s.id, "1", "--files"}, {"revert", s.id, "1", "--files-only", "--dry-run"}} {
		expectError(t, e.run(args...), 1, gone, "is not on this machine")
	}
	if g := decode[[]map[string]any](t, e.look("generations", s.id, "--json").stdout); len(g) != 1 {
		t.Errorf("a failed file rewind wrote generations: %v", g)
	}
	e.mustOK("revert", s.id, "1") // the conversation alone needs no work dir
	expectError(t, e.run("restore", s.id, "0", "--files"), 1, gone, "is not on this machine")
	if g := decode[[]map[string]any](t, e.look("generations", s.id, "--json").stdout); len(g) != 2 {
		t.Errorf("a failed file restore wrote generations: %v", g)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"--bogus"},
		{"sessions", "extra"},
		{"show"},
		{"show", "a", "b"},
		{"revert", "id"},
		{"revert", "id", "x"},
		{"revert", "id", "-1"},
		{"restore", "id", "one"},
		{"nosuchcommand"},
		{"show", "id", "--generation", "x"},
		{"-p", "hi", "--output", "xml"},
		{"--output", "jsonl"},
		{"-c", "--session", "abc"},
		{"-p", ""},
		{"--max-steps", "many"},
		{"search"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			r := runArgs(t, args...)
			expectError(t, r, 2)
			// The parser's own wording stays out of the line.
			for _, bad := range []string{"strconv", "arg(s)"} {
				if strings.Contains(r.stderr, bad) {
					t.Errorf("stderr mentions %q: %q", bad, r.stderr)
				}
			}
		})
	}
	expectError(t, runArgs(t, "revert", "id"), 2, "`rewind revert` takes 2 arguments, got 1", "usage: rewind revert ID CHECKPOINT")
	expectError(t, runArgs(t, "--max-steps", "many"), 2, `"--max-steps"`, "want a whole number")
	// A subcommand's bad arguments point at that subcommand's help.
	expectError(t, runArgs(t, "search"), 2, "`rewind search` needs a QUERY", "usage: rewind search QUERY", "(see `rewind search --help`)")
	expectError(t, runArgs(t, "generations"), 2, "(see `rewind generations --help`)")
	// --help is not an error.
	r := runArgs(t, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "sessions") {
		t.Errorf("--help: %s", r)
	}
}

// TestUsageErrorsThroughTheBinary: the process itself ends a usage error
// with exit 2 and one line on stderr, whether the parser found it (an
// unknown flag, a missing argument) or the command did (-p with a bad
// --output), and --help exits 0. TestUsageErrors and the other tests of
// the command line run the same run() in the test process.
func TestUsageErrorsThroughTheBinary(t *testing.T) {
	t.Parallel()
	e := newEnv(t).throughBinary()
	expectError(t, e.run("--bogus"), 2, "--bogus")
	expectError(t, e.run("revert", "id"), 2, "`rewind revert` takes 2 arguments, got 1", "(see `rewind revert --help`)")
	expectError(t, e.run("-p", "hi", "--output", "xml"), 2, "xml")
	if r := e.run("--help"); r.code != 0 || !strings.Contains(r.stdout, "sessions") || r.stderr != "" {
		t.Errorf("--help: %s", r)
	}
}

func TestCorruptDatabaseIsLeftAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	junk := make([]byte, 8192)
	if _, err := rand.Read(junk); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.dbPath(), junk, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sessions"}, {"sessions", "--json"}, {"show", "abc"}, {"revert", "abc", "0"}} {
		expectError(t, e.run(args...), 1, e.dbPath(), "not a rewind database")
	}
	after, err := os.ReadFile(e.dbPath())
	if err != nil || !bytes.Equal(after, junk) {
		t.Fatalf("the corrupt file was modified (err %v)", err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(e.dbPath() + suffix); err == nil {
			t.Errorf("left %s behind", suffix)
		}
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seed("from the future")
	raw, err := sql.Open("sqlite3", e.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("PRAGMA user_version = 9999"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, _ := os.ReadFile(e.dbPath())
	expectError(t, e.run("sessions"), 1, "newer rewind", "upgrade")
	after, _ := os.ReadFile(e.dbPath())
	if !bytes.Equal(before, after) {
		t.Error("the newer database was modified")
	}
}

// TestTUIEntryWithoutTerminal: the workspace commands need a terminal; run
// from a test (no tty, no TERM) they must fail with one friendly line that
// points at print mode, never a panic, a stack trace or the screen
// library's own error, and never be taken for usage errors.
func TestTUIEntryWithoutTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.seed("tui")
	for _, args := range [][]string{{}, {"-c"}, {"--session", s.id}, {"watch"}, {"watch", s.id}, {"demo"}, {"demo", "--yolo", "--allow-remote-approval"}} {
		t.Run(strings.Join(append([]string{"rewind"}, args...), " "), func(t *testing.T) {
			r := e.run(args...)
			// Watching has no prompt to run headless: its way out prints.
			wayOut := "rewind -p PROMPT"
			if len(args) > 0 && args[0] == "watch" {
				wayOut = "rewind show ID"
			}
			expectError(t, r, 1, "the workspace needs a terminal (stdin/stdout is not a TTY)", wayOut)
			if strings.Contains(r.stderr, "terminal entry not found") || strings.Contains(r.stderr, "tui:") {
				t.Errorf("the screen library's error leaked: %q", r.stderr)
			}
		})
	}
}

const fixtureOld = `{"role":"_system_prompt","content":"You are a test agent."}
{"role":"_checkpoint","id":0}
{"role":"user","content":"first try"}
{"role":"assistant","content":"that went nowhere","x_vendor":{"keep":true}}
{"role":"_usage","token_count":321}
`

const fixtureCurrent = `{"role":"_system_prompt","content":"You are a test agent."}
{"role":"_checkpoint","id":0}
{"role":"user","content":[{"type":"text","text":"read main.go"},{"type":"image_url","image_url":{"url":"data:x"}}]}
{"role":"_checkpoint","id":1}
{"role":"assistant","content":[{"type":"think","think":"look first"},{"type":"text","text":"Reading."}],"tool_calls":[{"type":"function","id":"ReadFile:0","function":{"name":"ReadFile","arguments":"{\"path\":\"main.go\"}"}}]}
{"role":"tool","content":"1\tpackage main","tool_call_id":"ReadFile:0"}
{"role":"_usage","token_count":512}
{"role":"assistant","content":"It is a Go program.","future_field":[1,2,3]}
{"role":"_usage","token_count":540}
`

// normalise re-encodes every JSON line so that key order and spacing do
// not matter.
func normalise(t *testing.T, jsonl string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "kimi-session")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "context_1.jsonl"), fixtureOld)
	writeFile(t, filepath.Join(dir, "context.jsonl"), fixtureCurrent)

	r := e.binaryOK("import", dir)
	id := strings.TrimSpace(r.stdout)
	if id == "" || strings.Contains(id, "\n") || strings.Contains(id, " ") {
		t.Fatalf("import should print only the new id, got %q", r.stdout)
	}
	list := decode[[]map[string]any](t, e.look("sessions", "--json").stdout)
	if len(list) != 1 || list[0]["id"] != id || list[0]["current_gen"] != 1.0 || list[0]["tokens"] != 540.0 {
		t.Fatalf("sessions after import: %v", list)
	}
	gens := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout)
	if len(gens) != 2 || gens[0]["cause"] != "import" || gens[0]["archived"] != true || gens[1]["archived"] != false {
		t.Fatalf("generations after import: %v", gens)
	}

	cur := e.mustOK("export", id).stdout
	if got, want := normalise(t, cur), normalise(t, fixtureCurrent); !reflect.DeepEqual(got, want) {
		t.Errorf("export of the current generation differs:\n got %v\nwant %v", got, want)
	}
	old := e.mustOK("export", id, "--generation", "0").stdout
	if got, want := normalise(t, old), normalise(t, fixtureOld); !reflect.DeepEqual(got, want) {
		t.Errorf("export of generation 0 differs:\n got %v\nwant %v", got, want)
	}

	// -o writes a file, never replacing one unless --force.
	out := filepath.Join(t.TempDir(), "out.jsonl")
	r = e.binaryOK("export", id, "-o", out)
	if !strings.Contains(r.stdout, out) {
		t.Errorf("export -o said %q", r.stdout)
	}
	if data, err := os.ReadFile(out); err != nil || string(data) != cur {
		t.Fatalf("-o file: %v\n%s", err, data)
	}
	writeFile(t, out, "precious\n")
	expectError(t, e.runCtx(context.Background(), "export", id, "-o", out), 1, "already exists", "--force")
	if data, _ := os.ReadFile(out); string(data) != "precious\n" {
		t.Errorf("existing file replaced without --force: %q", data)
	}
	e.mustOK("export", id, "-o", out, "--force", "--generation", "0")
	if data, _ := os.ReadFile(out); string(data) != old {
		t.Errorf("--force did not replace the file: %q", data)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("temporary files left next to the export: %v", entries)
	}

	// Re-importing the export gives the same context again.
	id2 := strings.TrimSpace(e.mustOK("import", out).stdout)
	if again := e.mustOK("export", id2).stdout; !reflect.DeepEqual(normalise(t, again), normalise(t, fixtureOld)) {
		t.Errorf("second round trip differs:\n%s", again)
	}
	expectError(t, e.run("export", id, "--generation", "5"), 1, "generation 5")
}

func TestImportErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	writeFile(t, bad, "{\"role\":\"user\",\"content\":\"ok\"}\n{\"role\":\"assistant\",\"content\":\"fine\"}\n{\"role\":\"user\",\"content\":\n")
	expectError(t, e.run("import", bad), 1, "bad.jsonl:3", "nothing was imported")

	noRole := filepath.Join(dir, "norole.jsonl")
	writeFile(t, noRole, "{\"role\":\"user\",\"content\":\"ok\"}\n{\"content\":\"who am i\"}\n")
	expectError(t, e.run("import", noRole), 1, "norole.jsonl:2")

	emptyDir := t.TempDir()
	expectError(t, e.run("import", emptyDir), 1, emptyDir, "context.jsonl")

	expectError(t, e.run("import", filepath.Join(dir, "missing.jsonl")), 1, "missing.jsonl", "no such file")

	if os.Geteuid() != 0 { // root reads anything
		locked := filepath.Join(dir, "locked.jsonl")
		writeFile(t, locked, "{\"role\":\"user\",\"content\":\"hi\"}\n")
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		expectError(t, e.run("import", locked), 1, "locked.jsonl", "permission denied")
	}
	if out := e.look("sessions", "--json").stdout; strings.TrimSpace(out) != "[]" {
		t.Errorf("failed imports left sessions: %s", out)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSearchCommand(t *testing.T) {
	e := newEnv(t)
	a := e.seed("first")
	e.seed("second")
	hits := decode[[]map[string]any](t, e.binaryOK("search", "write", "a.txt", "--json", "--limit", "1").stdout)
	want := sorted("session_id", "title", "work_dir", "gen", "seq", "role", "snippet", "created_at")
	if len(hits) != 1 || !reflect.DeepEqual(keysOf(hits[0]), want) {
		t.Fatalf("hits %v, want one with keys %v", hits, want)
	}
	if hits[0]["title"] != "second" || !strings.Contains(hits[0]["snippet"].(string), "«write»") {
		t.Errorf("newest hit: %v", hits[0])
	}
	only := decode[[]map[string]any](t, e.mustOK("search", "hell*", "--json", "--session", a.id[:12]).stdout)
	if len(only) != 1 || only[0]["session_id"] != a.id || only[0]["role"] != "user" {
		t.Errorf("--session: %v", only)
	}
	if out := e.mustOK("search", "hello", "--work-dir", t.TempDir()).stdout; !strings.Contains(out, "no message matches") {
		t.Errorf("--work-dir of another dir: %q", out)
	}
	if r := e.mustOK("search", "hello"); !strings.Contains(r.stdout, "SNIPPET") || strings.Count(r.stdout, "«hello»") != 2 || r.stderr != "" {
		t.Errorf("table (and no note, all hits shown):\n%s", r)
	}
	// A table cut at --limit says so: the TUI says "N+ hits", the table
	// alone looked like every hit.
	if r := e.binaryOK("search", "hello", "--limit", "1"); strings.Count(r.stdout, "«hello»") != 1 || !strings.Contains(r.stderr, "the newest 1 hit shown; there are more (--limit N shows more)") {
		t.Errorf("a table cut at --limit:\n%s", r)
	}
}

// TestImportShareDir: `rewind import ~/.kimi` imports every session with
// the work dir kimi.json records, prints their ids and one summary line,
// and a second run imports nothing.
func TestImportShareDir(t *testing.T) {
	e := newEnv(t)
	share := filepath.Join(t.TempDir(), ".kimi")
	sum := md5.Sum([]byte("/home/me/proj"))
	for i, uuid := range []string{"u1", "u2"} {
		dir := filepath.Join(share, "sessions", hex.EncodeToString(sum[:]), uuid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "context.jsonl"), fmt.Sprintf(`{"role":"user","content":"task %d"}`+"\n", i))
	}
	writeFile(t, filepath.Join(share, "kimi.json"), `{"work_dirs":[{"path":"/home/me/proj","kaos":"local","last_session_id":"u2"}],"thinking":false}`)
	r := e.mustOK("import", share)
	if ids := strings.Fields(r.stdout); len(ids) != 2 {
		t.Fatalf("stdout %q, want two ids", r.stdout)
	}
	if !strings.Contains(r.stderr, "imported 2 sessions (2 records") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("summary: %q", r.stderr)
	}
	list := decode[[]map[string]any](t, e.look("sessions", "--json").stdout)
	if len(list) != 2 || list[0]["work_dir"] != "/home/me/proj" {
		t.Fatalf("sessions: %v", list)
	}
	r = e.mustOK("import", filepath.Join(share, "sessions"))
	if strings.TrimSpace(r.stdout) != "" || strings.TrimSpace(r.stderr) != "nothing new: 2 sessions already imported" {
		t.Errorf("second run: %q %q", r.stdout, r.stderr)
	}
}

// TestImportPathFormsAreOneSession: a share dir's session imported as its
// context.jsonl gets the work dir kimi.json names, and is the same session
// when imported again as its dir, through kimi.json or as the share dir; a
// re-run parses nothing (no warning repeats); a session dir outside a
// share dir says which work dir it gets.
func TestImportPathFormsAreOneSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	share := filepath.Join(t.TempDir(), ".kimi")
	sum := md5.Sum([]byte("/home/me/proj"))
	sessions := filepath.Join(share, "sessions", hex.EncodeToString(sum[:]))
	for uuid, content := range map[string]string{
		"u1": `{"role":"user","content":"task one"}` + "\n",
		"u2": `{"role":"user","content":"task two"}` + "\n" + `{"role":"assistant","content":"half a li`, // torn final line
	} {
		if err := os.MkdirAll(filepath.Join(sessions, uuid), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(sessions, uuid, "context.jsonl"), content)
	}
	writeFile(t, filepath.Join(share, "kimi.json"), `{"work_dirs":[{"path":"/home/me/proj","kaos":"local"}]}`)

	r := e.mustOK("import", filepath.Join(sessions, "u1", "context.jsonl"))
	id := strings.TrimSpace(r.stdout)
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("the file of a mapped session warned: %q", r.stderr)
	}
	if list := decode[[]map[string]any](t, e.look("sessions", "--json").stdout); len(list) != 1 || list[0]["work_dir"] != "/home/me/proj" {
		t.Fatalf("after importing the file: %v", list)
	}
	r = e.mustOK("import", filepath.Join(sessions, "u1"))
	if strings.TrimSpace(r.stdout) != id || !strings.Contains(r.stderr, "nothing new: 1 session already imported") {
		t.Errorf("the session dir after its file: %q %q", r.stdout, r.stderr)
	}
	r = e.mustOK("import", filepath.Join(share, "kimi.json"))
	if !strings.Contains(r.stderr, "torn final line") || !strings.Contains(r.stderr, "imported 1 session") || !strings.Contains(r.stderr, "1 session already imported") {
		t.Errorf("kimi.json: %q", r.stderr)
	}
	r = e.mustOK("import", share)
	if strings.TrimSpace(r.stderr) != "nothing new: 2 sessions already imported" {
		t.Errorf("a re-run: %q", r.stderr)
	}
	if n := len(decode[[]map[string]any](t, e.look("sessions", "--json").stdout)); n != 2 {
		t.Errorf("%d sessions after four imports of two", n)
	}

	lone := filepath.Join(t.TempDir(), "copied-session")
	if err := os.MkdirAll(lone, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lone, "context.jsonl"), `{"role":"user","content":"task three"}`+"\n")
	elsewhere := t.TempDir()
	r = e.mustOK("import", lone, "--work-dir", elsewhere)
	if want := "; its work dir is " + elsewhere + ": no kimi.json names one (--work-dir chooses another)"; !strings.HasSuffix(strings.TrimSpace(r.stderr), want) {
		t.Errorf("a session dir outside a share dir: %q, want it to end with %q", r.stderr, want)
	}
}

// TestImportInterruptedSaysWhatItKept: Ctrl-C in the middle of a bulk
// import ends it with exit 130 and one line saying how many sessions were
// imported whole before it (it said "nothing was imported" while 113 were
// in), their ids on stdout, and exactly those sessions are in the database.
func TestImportInterruptedSaysWhatItKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// 200 sessions of 100 records in 40 batches (ImportBatchEnv), not
	// 200,000 records in 10: the interrupt lands between batches either way.
	e.vars[app.ImportBatchEnv] = "500"
	share := filepath.Join(t.TempDir(), ".kimi")
	sum := md5.Sum([]byte("/home/me/proj"))
	line := `{"role":"user","content":"a task to import, one of many"}` + "\n"
	for i := range 200 {
		dir := filepath.Join(share, "sessions", hex.EncodeToString(sum[:]), fmt.Sprintf("u%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "context.jsonl"), strings.Repeat(line, 100))
	}
	writeFile(t, filepath.Join(share, "kimi.json"), `{"work_dirs":[{"path":"/home/me/proj","kaos":"local"}]}`)

	e.mustOK("sessions") // the database exists: no process below announces creating it
	cmd := e.command(context.Background(), "import", share)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Interrupt once a first batch is committed.
	e.waitUntil(exited, `SELECT count(*) > 0 FROM sessions`)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-exited
	ids := strings.Fields(stdout.String())
	if code := cmd.ProcessState.ExitCode(); code == 0 {
		t.Skipf("the import finished before the interrupt reached it (%d sessions)", len(ids))
	}
	want := fmt.Sprintf("import interrupted: the %d sessions imported before it are in, whole (ids above)", len(ids))
	if len(ids) == 1 {
		want = "import interrupted: the session imported before it is in, whole (id above)"
	}
	expectError(t, result{code: cmd.ProcessState.ExitCode(), stderr: stderr.String()}, 130, want)
	var inDB []string
	for _, s := range decode[[]map[string]any](t, e.look("sessions", "--json").stdout) {
		inDB = append(inDB, s["id"].(string))
	}
	slices.Sort(ids)
	slices.Sort(inDB)
	if len(ids) == 0 || !slices.Equal(ids, inDB) {
		t.Errorf("ids printed %v, sessions in the database %v", ids, inDB)
	}
}

// TestSessionsMarkers: `rewind sessions` marks what the TUI's lists mark —
// a kimi import, a run that never got an answer, a fork and where it was
// cut — in the text table and in the JSON, and a fork that kept its
// source's title says that title once.
func TestSessionsMarkers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := e.seed("mouse theme")
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	fork, err := db.ForkSession(ctx, src.id, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	failed, err := db.CreateSession(ctx, store.NewSession{Title: "failed run", WorkDir: e.workDir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(ctx, failed.ID, message.NewText("user", "hello?")); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dir := filepath.Join(t.TempDir(), "kimi-session")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "context.jsonl"), fixtureCurrent)
	imported := strings.TrimSpace(e.mustOK("import", dir).stdout)

	byID := map[string]map[string]any{}
	for _, s := range decode[[]map[string]any](t, e.mustOK("sessions", "--json").stdout) {
		byID[s["id"].(string)] = s
	}
	if s := byID[imported]; s["imported"] != true || s["no_answer"] != nil {
		t.Errorf("imported session: %v", s)
	}
	if s := byID[failed.ID]; s["no_answer"] != true || s["imported"] != nil {
		t.Errorf("failed run: %v", s)
	}
	if s := byID[fork.ID]; s["fork_of"] != src.id || s["fork_of_title"] != "mouse theme" || s["fork_checkpoint"] != 1.0 || s["title"] != "mouse theme" {
		t.Errorf("fork: %v", s)
	}
	if s := byID[src.id]; s["imported"] != nil || s["no_answer"] != nil || s["fork_of"] != nil || s["fork_checkpoint"] != nil {
		t.Errorf("plain session: %v", s)
	}

	text := e.mustOK("sessions").stdout
	rows := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = line
		}
	}
	for id, want := range map[string]string{imported: "⇣ kimi", failed.ID: "✗ no answer", fork.ID: "⑂ fork @1"} {
		if !strings.Contains(rows[id], want) {
			t.Errorf("row of %s lacks %q:\n%s", id, want, text)
		}
	}
	if row := rows[fork.ID]; strings.Count(row, "mouse theme") != 1 || !strings.Contains(row, "fork of mouse theme @ checkpoint 1") {
		t.Errorf("fork row says its title other than once: %q", row)
	}
}

// TestSearchCommandAsTheTUI: `rewind search` builds its query as the TUI's
// search does (the last word is a prefix), shows the match in a long
// message's snippet, and refuses a query with nothing to find and a
// --limit below 1 with one usage line.
func TestSearchCommandAsTheTUI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	s, err := db.CreateSession(ctx, store.NewSession{Title: "long", WorkDir: e.workDir})
	if err != nil {
		t.Fatal(err)
	}
	// long words: the 16 tokens around the match run past the table's width
	long := `store Shell {"command":"grep -rn 7f3a9c0e5b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a3c5e7b9d0f2a4c6e8b1d3f5a ` +
		`initialcontexttablesandindexesforsessionsgenerationsandrecords ` +
		`generationsparentsessionforksequencecolumnsandtheirindexes"} then the schema of the context table`
	if _, err := db.AppendMessage(ctx, s.ID, message.NewText("user", long)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(ctx, s.ID, message.NewText("assistant", "the build passes")); err != nil {
		t.Fatal(err)
	}
	db.Close()

	text := e.mustOK("search", "sche*").stdout
	if !strings.Contains(text, "«schema»") {
		t.Errorf("the snippet does not show the match:\n%s", text)
	}
	hits := decode[[]map[string]any](t, e.mustOK("search", "the", "buil", "--json").stdout)
	if len(hits) != 1 || !strings.Contains(hits[0]["snippet"].(string), "«build»") {
		t.Errorf("the last word is not a prefix as in the TUI: %v", hits)
	}
	for _, q := range []string{"", "  ", "()", "x"} {
		expectError(t, runArgs(t, "search", q), 2, "QUERY", "(see `rewind search --help`)")
	}
	for _, n := range []string{"0", "-1"} {
		expectError(t, runArgs(t, "search", "build", "--limit", n), 2, "--limit", "at least 1")
	}
	if help := mustParse(t, "search", "--help").stdout; !strings.Contains(help, "prefix") || !strings.Contains(help, "last word") {
		t.Errorf("help does not say the last word is a prefix:\n%s", help)
	}
}

// TestSearchSessionLabelsSharedRecords: with --session FORK, a record the
// fork shares with its source is a hit of the fork (it was labelled with
// the source's id, title and generation), naming the source in also_in.
func TestSearchSessionLabelsSharedRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := e.seed("the source")
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	fork, err := db.ForkSession(ctx, src.id, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RenameSession(ctx, fork.ID, "the fork"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	hits := decode[[]map[string]any](t, e.mustOK("search", "hello", "--json", "--session", fork.ID).stdout)
	if len(hits) != 1 || hits[0]["session_id"] != fork.ID || hits[0]["title"] != "the fork" || hits[0]["gen"] != 0.0 ||
		!reflect.DeepEqual(hits[0]["also_in"], []any{src.id}) {
		t.Errorf("--session of the fork: %v", hits)
	}
	if text := e.mustOK("search", "hello", "--session", fork.ID).stdout; !strings.Contains(text, "the fork (fork of the source @ checkpoint 1) (+1 session)") || strings.Contains(text, src.id) {
		t.Errorf("--session of the fork, table:\n%s", text)
	}
	hits = decode[[]map[string]any](t, e.mustOK("search", "hello", "--json", "--session", src.id).stdout)
	if len(hits) != 1 || hits[0]["session_id"] != src.id || !reflect.DeepEqual(hits[0]["also_in"], []any{fork.ID}) {
		t.Errorf("--session of the source: %v", hits)
	}
}
