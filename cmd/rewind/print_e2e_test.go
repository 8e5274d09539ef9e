package main

// Print mode (`rewind -p`) and `rewind compact` end to end, against the fake
// OpenAI-compatible server of soul/llm/llmtest.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// withServer points the env at srv with a key and a model.
func (e *env) withServer(srv *llmtest.Server) *env {
	e.vars["OPENAI_API_KEY"] = "test-key"
	e.vars["OPENAI_BASE_URL"] = srv.URL()
	e.vars["REWIND_MODEL"] = "test-model"
	return e
}

type event struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

func parseEvents(t *testing.T, out string) []event {
	t.Helper()
	var evs []event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func types(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func payload[T any](t *testing.T, ev event) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(ev.Payload, &v); err != nil {
		t.Fatalf("%s payload: %v", ev.Type, err)
	}
	return v
}

// onlySession returns the id of the one session in the env's database.
func (e *env) onlySession() string {
	e.t.Helper()
	list := decode[[]map[string]any](e.t, e.look("sessions", "--json").stdout)
	if len(list) != 1 {
		e.t.Fatalf("%d sessions, want 1", len(list))
	}
	return list[0]["id"].(string)
}

type viewRec struct {
	Seq          int64            `json:"seq"`
	Kind         string           `json:"kind"`
	Role         *string          `json:"role"`
	CheckpointID *int             `json:"checkpoint_id"`
	TokenCount   *int             `json:"token_count"`
	Message      *json.RawMessage `json:"message"`
}

type viewOut struct {
	ID         string    `json:"id"`
	Generation int       `json:"generation"`
	Tokens     int       `json:"tokens"`
	Records    []viewRec `json:"records"`
}

func (e *env) view(id string, gen ...int) viewOut {
	e.t.Helper()
	args := []string{"show", id, "--json"}
	if len(gen) == 1 {
		args = append(args, "--generation", fmt.Sprint(gen[0]))
	}
	return decode[viewOut](e.t, e.look(args...).stdout)
}

// texts lists "role: text" of the view's messages.
func (v viewOut) texts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, r := range v.Records {
		if r.Kind != "message" {
			continue
		}
		var m message.Message
		if err := json.Unmarshal(*r.Message, &m); err != nil {
			t.Fatal(err)
		}
		text := m.Content.PlainText()
		for _, c := range m.ToolCalls {
			text += "[" + c.Name + "]"
		}
		out = append(out, m.Role+": "+text)
	}
	return out
}

func hasPrefixIn(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func containsIn(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func TestPrintPlainAnswer(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("Hello from the model.").WithUsage(40, 5))
	e := newEnv(t).withServer(srv)

	r := e.run("-p", "say hello")
	if r.code != 0 || r.stdout != "Hello from the model.\n" {
		t.Fatalf("%s", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || lastPrompt(reqs[0]) != "say hello" {
		t.Fatalf("%d requests, last text %q", len(reqs), reqs[len(reqs)-1].LastText())
	}
	id := e.onlySession()
	v := e.view(id)
	texts := v.texts(t)
	if !containsIn(texts, "user: say hello") || !containsIn(texts, "assistant: Hello from the model.") {
		t.Errorf("view: %v", texts)
	}
	if v.Tokens != 45 {
		t.Errorf("tokens %d, want 45", v.Tokens)
	}
	s := decode[[]map[string]any](t, e.look("sessions", "--json").stdout)[0]
	if s["work_dir"] != e.workDir || !strings.Contains(s["title"].(string), "say hello") {
		t.Errorf("session: %v", s)
	}

	// --session continues it; the model sees the whole history.
	srv.Enqueue(llmtest.Text("Second answer."))
	r = e.run("-p", "and again", "--session", id)
	if r.code != 0 || r.stdout != "Second answer.\n" {
		t.Fatalf("%s", r)
	}
	last := srv.Requests()[1]
	if !containsIn(messagesText(last), "say hello") {
		t.Errorf("continued request lacks history: %v", messagesText(last))
	}
	if e.onlySession() != id {
		t.Error("--session started a new session")
	}
	// -c continues the newest session of the work dir.
	srv.Enqueue(llmtest.Text("Third."))
	if r := e.run("-c", "-p", "third"); r.code != 0 || r.stdout != "Third.\n" || e.onlySession() != id {
		t.Fatalf("-c: %s", r)
	}
	// -p - reads the prompt from stdin.
	srv.Enqueue(llmtest.Text("From stdin."))
	e.stdin = "prompt on stdin"
	if r := e.run("-p", "-"); r.code != 0 || r.stdout != "From stdin.\n" {
		t.Fatalf("-p -: %s", r)
	}
	if got := lastPrompt(srv.Requests()[3]); got != "prompt on stdin" {
		t.Errorf("stdin prompt sent as %q", got)
	}
}

// lastPrompt is the text of the last user message that is not a
// checkpoint marker.
func lastPrompt(req llmtest.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == "user" && !strings.HasPrefix(m.Content.PlainText(), "<system>CHECKPOINT") {
			return m.Content.PlainText()
		}
	}
	return ""
}

func messagesText(req llmtest.Request) []string {
	var out []string
	for _, m := range req.Messages {
		out = append(out, m.Role+": "+m.Content.PlainText())
	}
	return out
}

func TestPrintToolRoundTrip(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_w", "WriteFile", map[string]any{"path": "notes/hello.txt", "content": "hi from the agent\n"})),
		llmtest.Calls(llmtest.Call("call_r", "ReadFile", map[string]any{"path": "notes/hello.txt"})),
		llmtest.Text("The file says hi."),
	)
	e := newEnv(t).withServer(srv)
	if err := os.Mkdir(filepath.Join(e.workDir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := e.run("-p", "write and read a file", "--yolo")
	if r.code != 0 || r.stdout != "The file says hi.\n" {
		t.Fatalf("%s", r)
	}
	data, err := os.ReadFile(filepath.Join(e.workDir, "notes", "hello.txt"))
	if err != nil || string(data) != "hi from the agent\n" {
		t.Fatalf("file: %q %v", data, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	tool, ok := reqs[2].Last("tool")
	if !ok || tool.ToolCallID != "call_r" || !strings.Contains(tool.Content.PlainText(), "hi from the agent") {
		t.Errorf("ReadFile result sent to the model: %+v", tool)
	}
	names := reqs[0].ToolNames()
	for _, want := range []string{"Shell", "ReadFile", "WriteFile", "StrReplaceFile", "SendDMail"} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("tool %s not offered: %v", want, names)
		}
	}
	texts := e.view(e.onlySession()).texts(t)
	if !containsIn(texts, "[WriteFile]") || !containsIn(texts, "[ReadFile]") || !containsIn(texts, "tool: ") {
		t.Errorf("transcript: %v", texts)
	}

	// The file checkpoint was recorded: reverting with --files removes it.
	id := e.onlySession()
	r = e.mustOK("revert", id, "0", "--files")
	if !strings.Contains(r.stdout, "reverted to checkpoint 0") || !strings.Contains(r.stdout, "deleted") {
		t.Errorf("revert --files said:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(e.workDir, "notes", "hello.txt")); !os.IsNotExist(err) {
		t.Errorf("file still there after revert --files: %v", err)
	}
	// And restore --files brings it back.
	r = e.mustOK("restore", id, "0", "--files")
	if data, err := os.ReadFile(filepath.Join(e.workDir, "notes", "hello.txt")); err != nil || string(data) != "hi from the agent\n" {
		t.Errorf("restore --files: %q %v\n%s", data, err, r.stdout)
	}
}

func TestPrintFileConflictRefused(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "a.txt", "content": "agent\n"})),
		llmtest.Text("written"),
	)
	e := newEnv(t).withServer(srv)
	e.mustOK("-p", "write a.txt", "--yolo")
	id := e.onlySession()
	path := filepath.Join(e.workDir, "a.txt")
	if err := os.WriteFile(path, []byte("the user's own edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	expectError(t, e.run("revert", id, "0", "--files"), 1, "a.txt", "--force", "nothing was changed")
	if data, _ := os.ReadFile(path); string(data) != "the user's own edit\n" {
		t.Errorf("user's edit overwritten: %q", data)
	}
	if g := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout); len(g) != 1 {
		t.Errorf("refused revert still reverted the conversation: %d generations", len(g))
	}
	e.mustOK("revert", id, "0", "--files-only", "--force")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("--force did not revert: %v", err)
	}
	if g := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout); len(g) != 1 {
		t.Errorf("--files-only reverted the conversation: %d generations", len(g))
	}
	expectError(t, runArgs(t, "revert", id, "0", "--files", "--files-only"), 2)
}

func TestPrintApprovalNeedsYolo(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_w", "WriteFile", map[string]any{"path": "x.txt", "content": "nope"})),
		llmtest.Text("should not be asked"),
	)
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "write x.txt")
	expectError(t, r, 1, "--yolo", "WriteFile")
	if _, err := os.Stat(filepath.Join(e.workDir, "x.txt")); !os.IsNotExist(err) {
		t.Errorf("file written without approval: %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("the run went on after the rejection: %d requests", len(srv.Requests()))
	}
	texts := e.view(e.onlySession()).texts(t)
	if !containsIn(texts, "approval needed: rerun with --yolo") {
		t.Errorf("the tool result does not tell the model about --yolo: %v", texts)
	}
}

func TestPrintStrReplaceNotUnique(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "StrReplaceFile", map[string]any{"path": "dup.txt", "old": "same", "new": "other"})),
		llmtest.Text("It was not unique."),
	)
	e := newEnv(t).withServer(srv)
	path := filepath.Join(e.workDir, "dup.txt")
	if err := os.WriteFile(path, []byte("same\nsame\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("-p", "replace", "--yolo")
	if r.code != 0 || r.stdout != "It was not unique.\n" {
		t.Fatalf("%s", r)
	}
	tool, ok := srv.Requests()[1].Last("tool")
	if !ok || !strings.Contains(tool.Content.PlainText(), "2 times") || !strings.Contains(tool.Content.PlainText(), "replace_all") {
		t.Errorf("tool error sent to the model: %q", tool.Content.PlainText())
	}
	if data, _ := os.ReadFile(path); string(data) != "same\nsame\n" {
		t.Errorf("file changed: %q", data)
	}
}

func TestPrintRetryThenSuccess(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.HTTPError(503, "overloaded"),
		llmtest.HTTPError(429, "slow down").WithRetryAfter("0"),
		llmtest.Text("Made it."),
	)
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "try hard")
	if r.code != 0 || r.stdout != "Made it.\n" || r.stderr != "" {
		t.Fatalf("%s", r)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("%d requests", len(srv.Requests()))
	}
	// jsonl shows each retry.
	srv.Enqueue(llmtest.HTTPError(502, "bad gateway"), llmtest.Text("Again."))
	r = e.run("-p", "once more", "--output", "jsonl")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	var retries []map[string]any
	for _, ev := range parseEvents(t, r.stdout) {
		if ev.Type == "StepRetry" {
			retries = append(retries, payload[map[string]any](t, ev))
		}
	}
	if len(retries) != 1 || retries[0]["attempt"] != 1.0 || !strings.Contains(fmt.Sprint(retries[0]["reason"]), "502") {
		t.Errorf("StepRetry events: %v", retries)
	}
}

func TestPrintRetryExhaustion(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	for range 4 {
		srv.Enqueue(llmtest.HTTPError(503, "overloaded"))
	}
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "doomed")
	expectError(t, r, 75, "503", "overloaded", "try again later", "gave up after 3 retries")
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d attempts, want 1 + 3 retries", n)
	}
	id := e.onlySession()
	if !strings.Contains(r.stderr, id) {
		t.Errorf("error line does not name the session: %q", r.stderr)
	}
	for _, rec := range e.view(id).Records {
		if rec.Role != nil && *rec.Role == "assistant" || rec.Kind == "usage" {
			t.Errorf("a failed step committed %s %v", rec.Kind, rec.Role)
		}
	}
	// The session is still usable.
	srv.Enqueue(llmtest.Text("Recovered."))
	if r := e.run("-p", "again", "--session", id); r.code != 0 || r.stdout != "Recovered.\n" {
		t.Fatalf("after exhaustion: %s", r)
	}
}

func TestPrintUnreachableServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e := newEnv(t)
	e.vars["OPENAI_API_KEY"] = "k"
	r := e.run("-p", "hello", "--model", "m", "--base-url", "http://"+addr+"/v1")
	expectError(t, r, 75, "cannot reach", addr, "--base-url")
}

// TestPrintHTMLPage: a base URL that serves a web page says so, once, and
// is not mistaken for an unreachable server.
func TestPrintHTMLPage(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTMLPage("Welcome to nginx!"))
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "hello")
	expectError(t, r, 1, "answered with an HTML page", "not the OpenAI API", "Welcome to nginx!", "base_url")
	if strings.Contains(r.stderr, "cannot reach") || len(srv.Requests()) != 1 {
		t.Errorf("%d requests: %s", len(srv.Requests()), r)
	}
}

// TestPrintUnknownHost: a host that does not resolve gets a plain line, not
// the dialer's "dial tcp: lookup …".
func TestPrintUnknownHost(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.vars["OPENAI_API_KEY"] = "sk-test-key"
	r := e.run("-p", "hello", "--model", "m", "--base-url", "http://no-such-host.invalid/v1")
	expectError(t, r, 1, "cannot look up no-such-host.invalid", "check the base URL")
	if strings.Contains(r.stderr, "dial tcp") {
		t.Errorf("raw dialer error: %s", r.stderr)
	}
}

func TestPrintMissingKeyAndModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	expectError(t, e.run("-p", "hello"), 1, "no API key", "OPENAI_API_KEY", "KIMI_API_KEY", "config.toml")
	e.vars["KIMI_API_KEY"] = "k"
	expectError(t, e.run("-p", "hello"), 1, "no model", "REWIND_MODEL", "--model")
	if out := e.look("sessions", "--json").stdout; strings.TrimSpace(out) != "[]" {
		t.Errorf("a failed start left a session: %s", out)
	}
	expectError(t, e.run("compact", "abc"), 1, "no model")
}

func TestPrintLeaseHeld(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	s := e.seed("busy")
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	lease, err := db.AcquireLease(ctx, s.id)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(ctx)
	expectError(t, e.run("-p", "hi", "--session", s.id), 1, "open in another rewind process", "rewind watch")
	expectError(t, e.run("revert", s.id, "0"), 1, "open in another rewind process")
	if len(srv.Requests()) != 0 {
		t.Error("the model was called without the lease")
	}
}

func TestPrintJSONLEventOrder(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("Streaming answer in several chunks.").WithReasoning("think first").WithUsage(30, 8))
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "stream please", "--output", "jsonl")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	evs := parseEvents(t, r.stdout)
	ts := types(evs)
	if ts[0] != "SessionStart" {
		t.Fatalf("first event %s, want SessionStart: %v", ts[0], ts)
	}
	start := payload[map[string]any](t, evs[0])
	if start["session_id"] != e.onlySession() || start["work_dir"] != e.workDir {
		t.Errorf("SessionStart: %v", start)
	}
	if ts[len(ts)-1] != "RunEnd" {
		t.Errorf("last event %s, want RunEnd", ts[len(ts)-1])
	}
	if end := payload[map[string]any](t, evs[len(evs)-1]); end["reason"] != "done" {
		t.Errorf("RunEnd: %v", end)
	}
	idx := func(typ string) int {
		for i, ty := range ts {
			if ty == typ {
				return i
			}
		}
		return -1
	}
	sb, rp, cp := idx("StepBegin"), idx("ReasoningPart"), idx("ContentPart")
	if sb < 0 || cp < 0 || rp < 0 || !(sb < rp && rp < cp) {
		t.Errorf("order SessionStart < StepBegin < ReasoningPart < ContentPart broken: %v", ts)
	}
	var text strings.Builder
	for _, ev := range evs {
		if ev.Type == "ContentPart" {
			text.WriteString(payload[map[string]any](t, ev)["text"].(string))
		}
	}
	if text.String() != "Streaming answer in several chunks." {
		t.Errorf("content parts join to %q", text.String())
	}
	if n := strings.Count(strings.Join(ts, ","), "ContentPart"); n < 2 {
		t.Errorf("answer not streamed: %d ContentPart events", n)
	}
}

func TestPrintMaxSteps(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	var n atomic.Int64
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		i := n.Add(1)
		return llmtest.Calls(llmtest.Call(fmt.Sprintf("think_%d", i), "Think", map[string]any{"thought": "still thinking"}))
	})
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "think forever", "--max-steps", "3")
	expectError(t, r, 1, "max steps", "--max-steps")
	if got := n.Load(); got != 3 {
		t.Errorf("%d model calls, want 3", got)
	}
	// Every step that ran was committed whole: each call has its result.
	texts := e.view(e.onlySession()).texts(t)
	calls, results := 0, 0
	for _, s := range texts {
		if strings.Contains(s, "[Think]") {
			calls++
		}
		if strings.HasPrefix(s, "tool: ") {
			results++
		}
	}
	if calls != 3 || results != 3 {
		t.Errorf("%d calls / %d results committed: %v", calls, results, texts)
	}
}

func TestPrintDMailBacktrack(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("d1", "SendDMail", map[string]any{"message": "the config lives in etc/app.toml", "checkpoint_id": 0})),
		llmtest.Text("Knowing that, done."),
	)
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "find the config", "--output", "jsonl")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	var bt []map[string]any
	for _, ev := range parseEvents(t, r.stdout) {
		if ev.Type == "Backtrack" {
			bt = append(bt, payload[map[string]any](t, ev))
		}
	}
	if len(bt) != 1 || bt[0]["checkpoint_id"] != 0.0 || bt[0]["note"] != "the config lives in etc/app.toml" ||
		bt[0]["returned_to"] != "find the config" {
		t.Errorf("Backtrack events: %v", bt)
	}
	id := e.onlySession()
	gens := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout)
	if len(gens) != 2 || gens[1]["cause"] != "backtrack" || gens[1]["note"] != "the config lives in etc/app.toml" ||
		gens[0]["archived"] != true || gens[1]["archived"] != false {
		t.Fatalf("generations: %v", gens)
	}
	cur := e.view(id).texts(t)
	if !containsIn(cur, "You just got a D-Mail from your future self") || !containsIn(cur, "etc/app.toml") {
		t.Errorf("D-Mail message missing from the view: %v", cur)
	}
	if containsIn(cur, "[SendDMail]") {
		t.Errorf("the view still holds the discarded step: %v", cur)
	}
	if old := e.view(id, 0).texts(t); !containsIn(old, "[SendDMail]") {
		t.Errorf("archived generation lost the SendDMail step: %v", old)
	}
}

// chat runs n prompts in one session and returns its id.
func (e *env) chat(srv *llmtest.Server, n int, extra ...string) string {
	e.t.Helper()
	id := ""
	for i := 1; i <= n; i++ {
		srv.Enqueue(llmtest.Text(fmt.Sprintf("answer %d", i)).WithUsage(100*i, 10))
		args := append([]string{"-p", fmt.Sprintf("question %d", i)}, extra...)
		if id != "" {
			args = append(args, "--session", id)
		}
		e.mustOK(args...)
		if id == "" {
			id = e.onlySession()
		}
	}
	return id
}

func TestCompactManual(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	id := e.chat(srv, 3)
	srv.Enqueue(llmtest.Text("SUMMARY: three questions were asked and answered."))
	r := e.mustOK("compact", id)
	if !strings.Contains(r.stdout, "compacted session "+id) || strings.Contains(r.stdout, "truncation") {
		t.Errorf("compact said %q", r.stdout)
	}
	summaryReq := srv.Requests()[3]
	if !containsIn(messagesText(summaryReq), "question 1") {
		t.Errorf("summary request lacks the history: %v", messagesText(summaryReq))
	}
	gens := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout)
	last := gens[len(gens)-1]
	if last["cause"] != "compact" || last["archived"] != false || gens[0]["archived"] != true {
		t.Fatalf("generations: %v", gens)
	}
	cur := e.view(id).texts(t)
	if !containsIn(cur, "Previous context has been compacted") || !containsIn(cur, "SUMMARY: three questions") {
		t.Errorf("compacted view: %v", cur)
	}
	if !containsIn(cur, "question 3") || !containsIn(cur, "answer 3") || containsIn(cur, "answer 1") {
		t.Errorf("compacted view should keep only the last two messages verbatim: %v", cur)
	}
	old := e.view(id, 0).texts(t)
	for _, w := range []string{"question 1", "answer 1", "question 2", "answer 2", "question 3", "answer 3"} {
		if !containsIn(old, w) {
			t.Errorf("archived generation lost %q", w)
		}
	}
	// The next prompt is sent the compacted context.
	srv.Enqueue(llmtest.Text("after"))
	e.mustOK("-p", "question 4", "--session", id)
	sent := messagesText(srv.Requests()[4])
	if !containsIn(sent, "SUMMARY: three questions") || containsIn(sent, "answer 1") {
		t.Errorf("request after compaction: %v", sent)
	}
}

func TestCompactFallsBackToTruncation(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	id := e.chat(srv, 3)
	// Everything fits the truncation budget of the default window: nothing
	// would be dropped, so the context stays as it was, said in one line.
	srv.Enqueue(llmtest.HTTPError(400, "context too long"))
	r := e.run("compact", id)
	expectError(t, r, 1, "compaction left the context as it was", "context too long")
	if gens := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout); len(gens) != 1 {
		t.Fatalf("a failed compaction made a generation: %v", gens)
	}
	// A small window's budget cannot hold the whole talk: the oldest go.
	srv.Enqueue(llmtest.HTTPError(400, "context too long"))
	r = e.mustOK("compact", id, "--max-context-size", "60", "--reserved-tokens", "10")
	if !strings.Contains(r.stdout, "truncation") {
		t.Errorf("compact said %q", r.stdout)
	}
	gens := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout)
	if gens[len(gens)-1]["cause"] != "compact" {
		t.Fatalf("generations: %v", gens)
	}
	if cur := e.view(id).texts(t); !containsIn(cur, "answer 3") {
		t.Errorf("truncated view lost the newest messages: %v", cur)
	}
}

func TestCompactAuto(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	limits := []string{"--max-context-size", "1000", "--reserved-tokens", "100"}
	id := e.chat(srv, 2, limits...)
	// The last answer reported 210 tokens; now report a nearly full context.
	srv.Enqueue(llmtest.Text("answer 3").WithUsage(900, 20))
	e.mustOK(append([]string{"-p", "question 3", "--session", id}, limits...)...)

	srv.Enqueue(llmtest.Text("SUMMARY of the long talk."), llmtest.Text("answer 4"))
	r := e.run(append([]string{"-p", "question 4", "--session", id, "--output", "jsonl"}, limits...)...)
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	ts := strings.Join(types(parseEvents(t, r.stdout)), ",")
	if !strings.Contains(ts, "CompactionBegin") || !strings.Contains(ts, "CompactionEnd") ||
		strings.Index(ts, "CompactionEnd") > strings.LastIndex(ts, "ContentPart") {
		t.Errorf("events: %s", ts)
	}
	gens := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout)
	if gens[len(gens)-1]["cause"] != "compact" {
		t.Errorf("generations: %v", gens)
	}
	cur := e.view(id).texts(t)
	if !containsIn(cur, "SUMMARY of the long talk.") || !containsIn(cur, "answer 4") || containsIn(cur, "answer 1") {
		t.Errorf("view after auto compaction: %v", cur)
	}
}

func TestPrintInterruptMidStream(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Hang(3))
	e := newEnv(t).withServer(srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.command(ctx, "-p", "long answer please", "--output", "jsonl")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var lines []string
	signalled := false
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if !signalled && strings.Contains(sc.Text(), `"ContentPart"`) {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			signalled = true
		}
	}
	err = cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if !signalled {
		t.Fatalf("no ContentPart streamed before the hang: %v (%v)", lines, err)
	}
	expectError(t, result{code: code, stderr: stderr.String()}, 130, "interrupted")
	ts := types(parseEvents(t, strings.Join(lines, "\n")))
	if !strings.Contains(strings.Join(ts, ","), "StepInterrupted") || ts[len(ts)-1] != "RunEnd" {
		t.Errorf("events: %v", ts)
	}
	id := e.onlySession()
	texts := e.view(id).texts(t)
	if hasPrefixIn(texts, "assistant:") || !containsIn(texts, "user: long answer please") {
		t.Errorf("interrupted step committed something: %v", texts)
	}
	// The session stays usable.
	srv.Enqueue(llmtest.Text("fine now"))
	if r := e.run("-p", "again", "--session", id); r.code != 0 || r.stdout != "fine now\n" {
		t.Fatalf("after interrupt: %s", r)
	}
}

func TestConfigPrecedenceThroughTheBinary(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t)
	writeFile(t, filepath.Join(e.home, "config.toml"), fmt.Sprintf("base_url = %q\nmodel = \"file-model\"\napi_key = \"file-key\"\nstream = false\n", srv.URL()))
	model := func(args ...string) string {
		t.Helper()
		srv.Enqueue(llmtest.Text("ok"))
		r := e.run(append([]string{"-p", "which model"}, args...)...)
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		reqs := srv.Requests()
		last := reqs[len(reqs)-1]
		if last.Stream {
			t.Errorf("stream = false in the config file was ignored")
		}
		return last.Model
	}
	if got := model(); got != "file-model" {
		t.Errorf("config file: model %q", got)
	}
	e.vars["REWIND_MODEL"] = "env-model"
	if got := model(); got != "env-model" {
		t.Errorf("env over file: model %q", got)
	}
	if got := model("--model", "flag-model"); got != "flag-model" {
		t.Errorf("flag over env: model %q", got)
	}
	// REWIND_HOME is used when --home is not given.
	cmd := e.command(context.Background())
	cmd.Args = []string{binary, "sessions", "--json"}
	cmd.Env = append(cmd.Env, "REWIND_HOME="+e.home)
	out, err := cmd.Output()
	if err != nil || len(decode[[]map[string]any](t, string(out))) != 3 {
		t.Errorf("REWIND_HOME not used: %v %s", err, out)
	}

	writeFile(t, filepath.Join(e.home, "config.toml"), "model = \"m\"\nmax_steps_per_run = \"lots\"\n")
	expectError(t, e.run("sessions"), 1, "config.toml:2")
}

func TestAPIKeyNeverStored(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-5f1d0c9e7b"
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("done").WithUsage(10, 2))
	e := newEnv(t).withServer(srv)
	e.vars["OPENAI_API_KEY"] = canary
	r := e.run("-p", "hello", "--output", "jsonl")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	if strings.Contains(r.stdout+r.stderr, canary) {
		t.Error("the API key was printed")
	}
	entries, _ := os.ReadDir(e.home)
	for _, ent := range entries {
		data, err := os.ReadFile(filepath.Join(e.home, ent.Name()))
		if err == nil && strings.Contains(string(data), canary) {
			t.Errorf("the API key is in %s", ent.Name())
		}
	}
	if exp := e.mustOK("export", e.onlySession()).stdout; strings.Contains(exp, canary) {
		t.Error("the API key is in the export")
	}
}

// TestPrintLoadsAgentsMD: the global AGENTS.md, the repository root's and
// the work dir's go into the system prompt, general first; one above the
// repository root does not.
func TestPrintLoadsAgentsMD(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("ok"))
	e := newEnv(t).withServer(srv)
	repo := e.workDir
	sub := filepath.Join(repo, "pkg")
	for path, text := range map[string]string{
		filepath.Join(e.home, "AGENTS.md"):             "GLOBAL: answer in English.",
		filepath.Join(repo, ".git", "HEAD"):            "ref: refs/heads/main\n",
		filepath.Join(repo, "AGENTS.md"):               "ROOT: run go test before finishing.",
		filepath.Join(sub, "AGENTS.md"):                "PKG: keep this package free of cgo.",
		filepath.Join(filepath.Dir(repo), "AGENTS.md"): "OUTSIDE: must not be read.",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.mustOK("-p", "hello", "--work-dir", sub)
	sys, _ := srv.Requests()[0].Last("system")
	prompt := sys.Content.PlainText()
	g, r, p := strings.Index(prompt, "GLOBAL:"), strings.Index(prompt, "ROOT:"), strings.Index(prompt, "PKG:")
	if g < 0 || r < 0 || p < 0 || !(g < r && r < p) {
		t.Errorf("system prompt lacks the AGENTS.md files in order (%d %d %d):\n%s", g, r, p, prompt)
	}
	if strings.Contains(prompt, "OUTSIDE:") {
		t.Errorf("an AGENTS.md above the repository root was read")
	}
}
