package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// TestSubagentSessionInTheCLI: a sub-agent session is listed by `rewind
// sessions` with subagent_of and subagent_type (and "↳ TYPE" in the
// text list), `rewind show` prints it and `rewind search` finds its text.
func TestSubagentSessionInTheCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	parent := e.seed("parent run")
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	child, err := db.CreateSession(ctx, store.NewSession{Title: "count the failing tests", WorkDir: e.workDir, Model: "test-model",
		Subagent: store.SubagentOrigin{Of: parent.id, CallID: "call_agent", Type: "coder"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartTurn(ctx, child.ID, false, message.NewText("user", "count the failing tests")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CommitStep(ctx, child.ID, store.Step{Assistant: message.NewText("assistant", "three xylophonic failures"), TokenCount: 10}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	byID := map[string]map[string]any{}
	for _, s := range decode[[]map[string]any](t, e.mustOK("sessions", "--json").stdout) {
		byID[s["id"].(string)] = s
	}
	if s := byID[child.ID]; s["subagent_of"] != parent.id || s["subagent_type"] != "coder" {
		t.Errorf("child in sessions --json: %v", s)
	}
	if s := byID[parent.id]; s["subagent_of"] != nil || s["subagent_type"] != nil {
		t.Errorf("parent in sessions --json: %v", s)
	}
	if text := e.mustOK("sessions").stdout; !strings.Contains(text, "↳ coder") {
		t.Errorf("sessions lacks the child's mark:\n%s", text)
	}
	if out := e.mustOK("show", child.ID).stdout; !strings.Contains(out, "three xylophonic failures") {
		t.Errorf("show CHILD:\n%s", out)
	}
	if out := e.mustOK("search", "xylophonic").stdout; !strings.Contains(out, child.ID[:8]) {
		t.Errorf("search does not find the child's message:\n%s", out)
	}
}

// TestPrintSubagentRoundTrip: the parent's Agent call starts a coder
// sub-agent whose request holds only its prompt (none of the parent's
// messages), whose WriteFile runs in the same work dir, and whose last
// message is the Agent call's result. The run is a session listed with
// subagent_of; the file it wrote is a file checkpoint of the parent's step:
// reverting the parent to before it deletes the file and archives the
// child, undo brings both back.
func TestPrintSubagentRoundTrip(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_agent", "Agent", map[string]any{"description": "write the notes", "prompt": "write notes.txt saying hi", "subagent_type": "coder"})),
		llmtest.Calls(llmtest.Call("call_w", "WriteFile", map[string]any{"path": "notes.txt", "content": "hi\n"})),
		llmtest.Text("I wrote notes.txt with one line."),
		llmtest.Text("The sub-agent wrote the notes."),
	)
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "parental secret: delegate the notes", "--yolo")
	if r.code != 0 || r.stdout != "The sub-agent wrote the notes.\n" {
		t.Fatalf("%s", r)
	}
	if data, err := os.ReadFile(filepath.Join(e.workDir, "notes.txt")); err != nil || string(data) != "hi\n" {
		t.Fatalf("notes.txt: %q %v", data, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	child := reqs[1]
	for _, m := range child.Messages {
		if strings.Contains(m.Content.PlainText(), "parental secret") {
			t.Errorf("the sub-agent's request holds the parent's message: %q", m.Content.PlainText())
		}
	}
	if got := child.LastText(); got != "write notes.txt saying hi" {
		t.Errorf("the sub-agent's prompt = %q", got)
	}
	names := strings.Join(child.ToolNames(), ",")
	if strings.Contains(names, "Agent") || strings.Contains(names, "SendDMail") || !strings.Contains(names, "WriteFile") {
		t.Errorf("the coder's tools: %s", names)
	}
	if !strings.Contains(strings.Join(reqs[0].ToolNames(), ","), "Agent") {
		t.Errorf("the parent is not offered Agent: %v", reqs[0].ToolNames())
	}
	res, ok := reqs[3].Last("tool")
	if !ok || res.ToolCallID != "call_agent" || !strings.Contains(res.Content.PlainText(), "I wrote notes.txt with one line.") ||
		!strings.Contains(res.Content.PlainText(), "status: completed") {
		t.Errorf("the Agent call's result: %+v", res)
	}

	var parentID, childID string
	for _, s := range decode[[]map[string]any](t, e.look("sessions", "--json").stdout) {
		if s["subagent_of"] == nil {
			parentID = s["id"].(string)
		} else {
			childID = s["id"].(string)
			if s["subagent_type"] != "coder" || s["title"] != "write the notes" {
				t.Errorf("child: %v", s)
			}
		}
	}
	if parentID == "" || childID == "" {
		t.Fatalf("parent %q child %q", parentID, childID)
	}
	if !strings.Contains(res.Content.PlainText(), "agent_id: "+childID) {
		t.Errorf("the result does not name the child %s: %s", childID, res.Content.PlainText())
	}
	if out := e.mustOK("show", childID).stdout; !strings.Contains(out, "I wrote notes.txt") {
		t.Errorf("show CHILD:\n%s", out)
	}

	r = e.mustOK("revert", parentID, "0", "--files")
	if _, err := os.Stat(filepath.Join(e.workDir, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("notes.txt still there after the parent's revert --files: %v\n%s", err, r.stdout)
	}
	for _, s := range decode[[]map[string]any](t, e.look("sessions", "--json").stdout) {
		if s["id"] == childID && s["subagent_archived_with"] != 0.0 {
			t.Errorf("child after the parent's revert: %v; want subagent_archived_with 0", s)
		}
	}
	r = e.mustOK("undo", parentID)
	if data, err := os.ReadFile(filepath.Join(e.workDir, "notes.txt")); err != nil || string(data) != "hi\n" {
		t.Errorf("notes.txt after undo: %q %v\n%s", data, err, r.stdout)
	}
	for _, s := range decode[[]map[string]any](t, e.look("sessions", "--json").stdout) {
		if s["id"] == childID && s["subagent_archived_with"] != nil {
			t.Errorf("child after undo: %v; want not archived", s)
		}
	}

	// Reverted again: continuing the archived child works and says so,
	// from the CLI and through the parent's Agent call with resume.
	e.mustOK("revert", parentID, "0")
	srv.Enqueue(llmtest.Text("continued on my own"))
	r = e.run("-p", "go on", "--session", childID, "--yolo")
	if r.code != 0 || !strings.Contains(r.stderr, "archived with generation 0 of its parent") || !strings.Contains(r.stdout, "continued on my own") {
		t.Errorf("continuing the archived child: %s", r)
	}
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_resume", "Agent", map[string]any{"description": "ask again", "prompt": "anything else?", "resume": childID})),
		llmtest.Text("nothing else"),
		llmtest.Text("asked"),
	)
	e.mustOK("-p", "ask the sub-agent again", "--session", parentID, "--yolo")
	reqs = srv.Requests()
	res, ok = reqs[len(reqs)-1].Last("tool")
	if !ok || !strings.Contains(res.Content.PlainText(), "archived with generation 0 of its parent") || !strings.Contains(res.Content.PlainText(), "nothing else") {
		t.Errorf("resuming the archived child: %+v", res)
	}
	if child := reqs[len(reqs)-2]; !containsIn(messagesText(child), "write notes.txt saying hi") {
		t.Errorf("the resumed child lost its context: %v", messagesText(child))
	}
}

// TestSubagentSessionKeepsItsType: a sub-agent session continued on its
// own (-p --session CHILD) runs as its sub-agent type, with that type's
// prompt and tools, never the Agent tool or SendDMail, and not as the
// agent the workspace would start; a child written before children
// recorded their agent goes on with its parent's agent file's type.
func TestSubagentSessionKeepsItsType(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	agents := t.TempDir()
	writeFiles(t, agents, map[string]string{
		"main.yaml": "version: 1\nagent:\n  name: lead\n  system_prompt_path: ./lead.md\n  tools: [Agent, ReadFile, WriteFile, SendDMail]\n" +
			"  subagents:\n    scout:\n      path: ./scout.yaml\n      description: reads around\n",
		"lead.md":    "I am the lead.\n",
		"scout.yaml": "version: 1\nagent:\n  extend: ./main.yaml\n  system_prompt_path: ./scout.md\n  allowed_tools: [ReadFile, SendDMail]\n",
		"scout.md":   "I am the scout.\n",
	})
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_agent", "Agent", map[string]any{"description": "look around", "prompt": "look around", "subagent_type": "scout"})),
		llmtest.Text("nothing here"),
		llmtest.Text("the scout found nothing"),
	)
	e.mustOK("-p", "delegate", "--agent-file", filepath.Join(agents, "main.yaml"), "--yolo")
	var childID, parentID string
	for _, s := range decode[[]map[string]any](t, e.look("sessions", "--json").stdout) {
		if s["subagent_of"] != nil {
			childID = s["id"].(string)
		} else {
			parentID = s["id"].(string)
		}
	}
	if childID == "" {
		t.Fatal("no sub-agent session")
	}
	asScout := func(what string, req llmtest.Request) {
		t.Helper()
		if p := systemPrompt(t, req); !strings.HasPrefix(p, "I am the scout.") {
			t.Errorf("%s: system prompt %.100q, want the scout's", what, p)
		}
		if got := req.ToolNames(); !slices.Equal(got, []string{"ReadFile"}) {
			t.Errorf("%s: tools %v, want only ReadFile (never Agent or SendDMail)", what, got)
		}
	}
	asScout("the sub-agent's own run", srv.Requests()[1])

	srv.Enqueue(llmtest.Text("still nothing"))
	e.mustOK("-p", "go on", "--session", childID, "--yolo")
	asScout("-p --session CHILD", srv.Requests()[3])

	// A child from before children recorded their agent: its parent's.
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	old, err := db.CreateSession(ctx, store.NewSession{Title: "old scout", WorkDir: e.workDir, Model: "test-model",
		Subagent: store.SubagentOrigin{Of: parentID, CallID: "call_old", Type: "scout"}})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.Text("old news"))
	e.mustOK("-p", "go on", "--session", old.ID, "--yolo")
	asScout("an old child", srv.Requests()[4])

	// A type the agent no longer defines is one line and exit 2.
	writeFiles(t, agents, map[string]string{"main.yaml": "version: 1\nagent:\n  name: lead\n  system_prompt_path: ./lead.md\n  tools: [Agent, ReadFile]\n"})
	r := e.run("-p", "go on", "--session", childID)
	expectError(t, r, 2, "scout", "main.yaml")
}
