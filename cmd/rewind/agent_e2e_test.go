package main

// Agent files end to end (issue 21 §3): the binary against the in-repo
// OpenAI-compatible test server, reading what the model was sent.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// writeFiles puts files (name → text) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func systemPrompt(t *testing.T, r llmtest.Request) string {
	t.Helper()
	if len(r.Messages) == 0 || r.Messages[0].Role != "system" {
		t.Fatalf("request without a system prompt: %+v", r.Messages)
	}
	return r.Messages[0].Content.PlainText()
}

// TestAgentFileRunsItsPromptAndTools: --agent-file with extend, args and
// every variable; the model is sent that prompt and exactly those tools,
// and a resumed session keeps the agent unless a flag names another.
func TestAgentFileRunsItsPromptAndTools(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	agents := t.TempDir()
	writeFiles(t, agents, map[string]string{
		"base.yaml": "version: 1\nagent:\n  name: base\n  system_prompt_path: ./p.md\n  system_prompt_args: {TONE: dry}\n  tools: [\"kimi_cli.tools.file:ReadFile\", Bash, Glob, SendDMail]\n",
		"p.md":      "Reviewer. now=${KIMI_NOW} dir=${KIMI_WORK_DIR} tone=${TONE} who=${WHO}\nls:\n${KIMI_WORK_DIR_LS}\nrules:\n${KIMI_AGENTS_MD}\n",
		"mine.yaml": "version: 1\nagent:\n  extend: ./base.yaml\n  name: reviewer\n  system_prompt_args: {WHO: me}\n  exclude_tools: [SendDMail]\n",
	})
	writeFiles(t, e.workDir, map[string]string{"AGENTS.md": "Always run go vet.", "main.go": "package main\n"})
	srv.Enqueue(llmtest.Text("ok"))
	e.mustOK("-p", "hi", "--agent-file", filepath.Join(agents, "mine.yaml"))
	req := srv.Requests()[0]
	p := systemPrompt(t, req)
	for _, want := range []string{"Reviewer. now=20", "dir=" + e.workDir, "tone=dry who=me", "ls:\nAGENTS.md\nmain.go\n", "rules:\nAlways run go vet."} {
		if !strings.Contains(p, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "# Project instructions") || strings.Contains(p, "You are rewind") {
		t.Errorf("the prompt is not only the file's:\n%s", p)
	}
	if got := req.ToolNames(); !slices.Equal(got, []string{"Shell", "ReadFile", "Glob"}) {
		t.Errorf("tools offered = %v, want exactly Shell, ReadFile, Glob", got)
	}

	// Resumed without a flag: the session's agent. With --agent: that one.
	id := e.onlySession()
	srv.Enqueue(llmtest.Text("again"))
	e.mustOK("-p", "more", "--session", id)
	if p := systemPrompt(t, srv.Requests()[1]); !strings.Contains(p, "tone=dry who=me") {
		t.Errorf("a resumed session lost its agent:\n%.300s", p)
	}
	srv.Enqueue(llmtest.Text("default now"))
	e.mustOK("-p", "more", "--session", id, "--agent", "default")
	req = srv.Requests()[2]
	if p := systemPrompt(t, req); !strings.HasPrefix(p, "You are rewind") {
		t.Errorf("--agent default on resume still runs the file's prompt:\n%.300s", p)
	}
	if !slices.Contains(req.ToolNames(), "SendDMail") || !slices.Contains(req.ToolNames(), "WriteFile") {
		t.Errorf("default's tools = %v", req.ToolNames())
	}
}

// TestProjectAgentFile: the work dir's .rewind/agent.yaml is the agent of
// a new session; --agent overrides it.
func TestProjectAgentFile(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	writeFiles(t, e.workDir, map[string]string{".rewind/agent.yaml": "version: 1\nagent:\n  extend: default\n  name: project\n  tools: [ReadFile]\n"})
	srv.Enqueue(llmtest.Text("ok"), llmtest.Text("ok"))
	e.mustOK("-p", "hi")
	if got := srv.Requests()[0].ToolNames(); !slices.Equal(got, []string{"ReadFile"}) {
		t.Errorf("project agent's tools = %v", got)
	}
	e.mustOK("-p", "hi", "--agent", "okabe")
	if got := srv.Requests()[1].ToolNames(); !slices.Contains(got, "SendDMail") {
		t.Errorf("--agent okabe's tools = %v", got)
	}
	out := e.mustOK("agents").stdout
	if !strings.Contains(out, "project (.rewind/agent.yaml) · in use\n  tools: ReadFile, MCP tools") {
		t.Errorf("rewind agents:\n%s", out)
	}
	// Without the Agent tool it has no sub-agents to offer (it listed
	// the types it inherits from default).
	if _, project, _ := strings.Cut(out, "project (.rewind/agent.yaml)"); strings.Contains(project, "sub-agents:") {
		t.Errorf("rewind agents lists sub-agents for an agent without the Agent tool:\n%s", out)
	}
}

// TestBadAgentFileStopsEverything: each bad file is one line naming the
// file and the line, exit 2, and no session is started.
func TestBadAgentFileStopsEverything(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tool.yaml":   "version: 1\nagent:\n  extend: default\n  tools:\n    - ReadFile\n    - Teleport\n",
		"prompt.yaml": "version: 1\nagent:\n  extend: default\n  system_prompt_path: ./nowhere.md\n",
		"a.yaml":      "version: 1\nagent:\n  extend: ./b.yaml\n",
		"b.yaml":      "version: 1\nagent:\n  extend: ./a.yaml\n",
		"var.yaml":    "version: 1\nagent:\n  extend: default\n  system_prompt_path: ./var.md\n",
		"var.md":      "Hello ${NAME}\n",
	})
	for file, want := range map[string][]string{
		"tool.yaml":    {"tool.yaml:6:", `unknown tool "Teleport"`},
		"prompt.yaml":  {"prompt.yaml:4:", "nowhere.md", "no such file"},
		"a.yaml":       {"b.yaml:3:", "cycle", "remove one of the extends"},
		"var.yaml":     {"var.md:1:", "${NAME}", "system_prompt_args"},
		"missing.yaml": {"missing.yaml:", "no such file"},
	} {
		r := e.run("-p", "hi", "--agent-file", filepath.Join(dir, file))
		expectError(t, r, 2, want...)
		r = e.run("agents", "--agent-file", filepath.Join(dir, file))
		expectError(t, r, 2, want...)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests made", n)
	}
	if out := e.look("sessions", "--json").stdout; strings.TrimSpace(out) != "[]" {
		t.Errorf("sessions were started: %s", out)
	}
}

// TestKimiAgentFileRuns: kimi-cli 1.49's own default agent file (copied
// into soul/agentspec/testdata) loads and runs; the tools rewind lacks are
// named in one warning line.
func TestKimiAgentFileRuns(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	fixture, err := filepath.Abs("../../soul/agentspec/testdata/kimi-1.49")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"agent.yaml", "coder.yaml"} {
		srv.Enqueue(llmtest.Text("ok"))
		r := e.mustOK("-p", "hi", "--agent-file", filepath.Join(fixture, file))
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		var warnings []string
		for _, l := range lines {
			if strings.Contains(l, "rewind has no") {
				warnings = append(warnings, l)
			}
		}
		// coder.yaml names no tool rewind lacks; agent.yaml names kimi's
		// background-task tools and AskUserQuestion.
		if wantWarn := file == "agent.yaml"; len(warnings) != map[bool]int{true: 1, false: 0}[wantWarn] ||
			wantWarn && (!strings.Contains(warnings[0], "AskUserQuestion") || strings.Contains(warnings[0], "ReadMediaFile")) {
			t.Errorf("%s: stderr %q, want one warning naming the missing tools", file, r.stderr)
		}
		req := srv.Requests()[len(srv.Requests())-1]
		if p := systemPrompt(t, req); !strings.HasPrefix(p, "You are Kimi Code CLI") {
			t.Errorf("%s: prompt %.200q", file, p)
		}
		if !slices.Contains(req.ToolNames(), "Shell") || !slices.Contains(req.ToolNames(), "ReadMediaFile") {
			t.Errorf("%s: tools %v", file, req.ToolNames())
		}
	}
	// rewind agents lists the tools it offers, and names the ones it
	// lacks apart, as the warning does.
	out := e.mustOK("agents", "--agent-file", filepath.Join(fixture, "agent.yaml")).stdout
	_, mine, _ := strings.Cut(out, "kimi-1.49 (")
	tools, _, _ := strings.Cut(mine[strings.Index(mine, "tools: "):], "\n")
	for _, lacking := range []string{"AskUserQuestion", "TaskList", "TaskOutput", "TaskStop"} {
		if strings.Contains(tools, lacking) {
			t.Errorf("rewind agents offers %s: %s", lacking, tools)
		}
	}
	if !strings.Contains(mine, "not in rewind: AskUserQuestion, TaskList, TaskOutput, TaskStop") {
		t.Errorf("rewind agents does not name the tools rewind lacks:\n%s", out)
	}
}

// TestPrintPlanFlag: -p --plan starts in plan mode: the model is told so,
// its write is refused with a tool error saying why, and ExitPlanMode
// (approved by --yolo, as kimi-cli's afk mode does) ends it, after which
// the write runs.
func TestPrintPlanFlag(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_w1", "WriteFile", map[string]any{"path": "a.txt", "content": "a\n"})),
		llmtest.Calls(llmtest.Call("call_plan", "ExitPlanMode", map[string]any{"plan": "1. write a.txt"})),
		llmtest.Calls(llmtest.Call("call_w2", "WriteFile", map[string]any{"path": "a.txt", "content": "a\n"})),
		llmtest.Text("written"),
	)
	e.mustOK("-p", "write a.txt", "--plan", "--yolo")
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if !strings.Contains(reqs[0].LastText(), "Plan mode is on") {
		t.Errorf("the first request does not say plan mode is on: %q", reqs[0].LastText())
	}
	if res, _ := reqs[1].Last("tool"); !strings.Contains(res.Content.PlainText(), "Plan mode is on: WriteFile was not run") {
		t.Errorf("the write in plan mode: %q", res.Content.PlainText())
	}
	if res, _ := reqs[2].Last("tool"); !strings.Contains(res.Content.PlainText(), "approved the plan") {
		t.Errorf("ExitPlanMode: %q", res.Content.PlainText())
	}
	if data, err := os.ReadFile(filepath.Join(e.workDir, "a.txt")); err != nil || string(data) != "a\n" {
		t.Errorf("a.txt after the plan's approval: %q %v", data, err)
	}
}
