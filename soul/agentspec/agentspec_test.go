package agentspec

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/instructions"
	"github.com/rewind-agent/rewind/soul/tools"
)

// oldSystemPrompt is the prompt rewind sent before agent files: its
// system.md with ${WORK_DIR} and ${OS} replaced, and the AGENTS.md section
// appended. The default agent renders exactly that.
func oldSystemPrompt(t *testing.T, workDir string, files []instructions.File) string {
	t.Helper()
	src, err := builtinFS.ReadFile("agents/default/system.md")
	if err != nil {
		t.Fatal(err)
	}
	// The one line agent files added: the sub-agent role's slot.
	text := strings.Replace(string(src), "{% if ROLE_ADDITIONAL %}${ROLE_ADDITIONAL}\n{% endif %}", "", 1)
	return strings.NewReplacer("${WORK_DIR}", workDir, "${OS}", runtime.GOOS+"/"+runtime.GOARCH).Replace(text) + instructions.Format(files)
}

func TestDefaultPromptIsTodays(t *testing.T) {
	t.Parallel()
	files := []instructions.File{{Path: "/p/AGENTS.md", Text: "Run go test."}}
	for _, fs := range [][]instructions.File{nil, files} {
		got := Default().SystemPrompt(Vars{WorkDir: "/w", Instructions: fs})
		if want := oldSystemPrompt(t, "/w", fs); got != want {
			t.Fatalf("default prompt changed:\n--- got\n%s\n--- want\n%s", got, want)
		}
	}
}

func TestBuiltins(t *testing.T) {
	t.Parallel()
	def := Default()
	if def.Name != "default" || def.File != "built-in default/agent.yaml" {
		t.Fatalf("default = %q from %q", def.Name, def.File)
	}
	want := []string{"Agent", "Shell", "ReadFile", "ReadMediaFile", "WriteFile", "StrReplaceFile", "Glob", "Grep", "ListDir", "Think", "SetTodoList", "SendDMail", "FetchURL", "SearchWeb", "EnterPlanMode", "ExitPlanMode"}
	if !slices.Equal(def.Tools, want) {
		t.Fatalf("default tools = %v, want %v", def.Tools, want)
	}
	if got := def.SubagentNames(); !slices.Equal(got, []string{"coder", "explore", "plan"}) {
		t.Fatalf("sub-agent types = %v", got)
	}
	okabe, err := Builtin("okabe")
	if err != nil || !okabe.Offers("SendDMail") || okabe.Name != "okabe" {
		t.Fatalf("okabe = %+v, %v", okabe, err)
	}
	readOnly := map[string][]string{
		"coder":   {"Shell", "ReadFile", "ReadMediaFile", "Glob", "Grep", "ListDir", "WriteFile", "StrReplaceFile", "SearchWeb", "FetchURL"},
		"explore": {"Shell", "ReadFile", "ReadMediaFile", "Glob", "Grep", "ListDir", "SearchWeb", "FetchURL"},
		"plan":    {"ReadFile", "ReadMediaFile", "Glob", "Grep", "ListDir", "SearchWeb", "FetchURL"},
	}
	for name, tools := range readOnly {
		sub, ok := def.Subagent(name)
		if !ok {
			t.Fatalf("no sub-agent %s", name)
		}
		if !slices.Equal(sub.Tools, tools) || sub.Name != name || sub.Description == "" || sub.WhenToUse == "" {
			t.Errorf("%s = %q %v %q", name, sub.Name, sub.Tools, sub.Description)
		}
		if sub.Offers("Agent") || sub.Offers("SendDMail") || sub.AllowsMCP("mcp__gh__issues") {
			t.Errorf("%s offers Agent, SendDMail or MCP tools", name)
		}
		p := sub.SystemPrompt(Vars{WorkDir: "/w"})
		if !strings.HasPrefix(p, "You are rewind") || !strings.Contains(p, "You are now running as a subagent.") {
			t.Errorf("%s prompt does not extend rewind's with the sub-agent role:\n%.400s", name, p)
		}
	}
	if _, err := Builtin("nope"); err == nil || !strings.Contains(err.Error(), "rewind agents") {
		t.Fatalf("unknown built-in: %v", err)
	}
}

// TestToolNamesAreRewinds: every built-in tool of soul/tools is a name an
// agent file may use, so a new tool cannot be left out of agent files.
func TestToolNamesAreRewinds(t *testing.T) {
	t.Parallel()
	for _, name := range append(tools.Default().Names(), (&tools.SearchWeb{}).Name()) {
		if !slices.Contains(rewindTools, name) {
			t.Errorf("tool %s is missing from agentspec's rewindTools", name)
		}
	}
}

func TestKimiAgentFileLoads(t *testing.T) {
	t.Parallel()
	a, err := LoadFile("testdata/kimi-1.49/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "kimi-1.49" { // agent.yaml leaves it empty: its directory's
		t.Errorf("name = %q", a.Name)
	}
	if want := []string{"Agent", "SetTodoList", "Shell", "ReadFile", "ReadMediaFile", "Glob", "Grep", "WriteFile", "StrReplaceFile", "SearchWeb", "FetchURL", "ExitPlanMode", "EnterPlanMode"}; !slices.Equal(a.Tools, want) {
		t.Errorf("tools = %v, want %v", a.Tools, want)
	}
	if want := []string{"AskUserQuestion", "TaskList", "TaskOutput", "TaskStop"}; !slices.Equal(a.Unavailable, want) {
		t.Errorf("unavailable = %v, want %v", a.Unavailable, want)
	}
	if !a.AllowsMCP("mcp__github__search") {
		t.Error("kimi's root agent gets the configured MCP tools")
	}
	p := a.SystemPrompt(Vars{WorkDir: t.TempDir(), Instructions: []instructions.File{{Path: "/x/AGENTS.md", Text: "Use tabs."}}})
	for _, want := range []string{"You are Kimi Code CLI", "You are running on **Linux**", "Use tabs.", "No skills found."} {
		if runtime.GOOS == "linux" && !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(p, "# Project instructions") || strings.Contains(p, "{%") || strings.Contains(p, "${") {
		t.Errorf("prompt has template text left or the AGENTS.md section twice:\n%s", p)
	}
	coder, err := LoadFile("testdata/kimi-1.49/coder.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Shell", "ReadFile", "ReadMediaFile", "Glob", "Grep", "WriteFile", "StrReplaceFile", "SearchWeb", "FetchURL"}; !slices.Equal(coder.Tools, want) || len(coder.Unavailable) != 0 {
		t.Errorf("coder tools = %v, unavailable %v", coder.Tools, coder.Unavailable)
	}
	if !strings.Contains(coder.SystemPrompt(Vars{WorkDir: "/w"}), "You are now running as a subagent") {
		t.Error("coder's prompt lacks its role")
	}
}

// write puts files (name → text) in a temp dir and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAgentFileExtendArgsAndEveryVariable(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{
		"base/base.yaml": `version: 1
agent:
  name: base
  system_prompt_path: ../prompts/p.md
  system_prompt_args: {TONE: dry, WHO: base}
  tools: [kimi_cli.tools.shell:Shell, ReadFile, Bash, "kimi_cli.tools.file:Grep", mcp__gh__*]
`,
		"prompts/p.md": `now=${KIMI_NOW}
dir=${KIMI_WORK_DIR}
ls:
${KIMI_WORK_DIR_LS}
agents=${KIMI_AGENTS_MD}
tone=${TONE} who=${ WHO }
{% if EXTRA %}
extra=${EXTRA}
{% else %}
no extra
{% endif %}
`,
		"mine.yaml": `version: 1
agent:
  extend: ./base/base.yaml
  name: mine
  system_prompt_args:
    WHO: mine
    EXTRA: "yes"
  exclude_tools: [Grep]
`,
	})
	work := write(t, map[string]string{"main.go": "package main\n", "pkg/a.go": "package pkg\n"})
	a, err := LoadFile(filepath.Join(dir, "mine.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "mine" || !slices.Equal(a.Tools, []string{"Shell", "ReadFile"}) {
		t.Fatalf("agent %q tools %v", a.Name, a.Tools)
	}
	if !a.AllowsMCP("mcp__gh__issues") || a.AllowsMCP("mcp__slack__post") {
		t.Error("mcp__gh__* should offer gh's tools and no other server's")
	}
	now := time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC)
	got := a.SystemPrompt(Vars{Now: now, WorkDir: work, Instructions: []instructions.File{{Path: "/a", Text: "A rules"}, {Path: "/b", Text: "B rules"}}})
	want := "now=2026-11-27T01:02:03Z\ndir=" + work + "\nls:\nmain.go\npkg/\n  a.go\nagents=A rules\n\nB rules\ntone=dry who=mine\nextra=yes\n"
	if got != want {
		t.Fatalf("prompt:\n%s\nwant:\n%s", got, want)
	}

	// A file that extends a built-in by name keeps its prompt and sub-agents.
	dir2 := write(t, map[string]string{"a.yaml": "version: 1\nagent:\n  extend: default\n  name: terse\n  tools: [ReadFile, Glob]\n"})
	b, err := LoadFile(filepath.Join(dir2, "a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Tools, []string{"ReadFile", "Glob"}) || !strings.HasPrefix(b.SystemPrompt(Vars{}), "You are rewind") || len(b.Subagents) != 3 {
		t.Fatalf("extend default: %v %v", b.Tools, b.SubagentNames())
	}
}

func TestBadAgentFiles(t *testing.T) {
	t.Parallel()
	const prompt = "Hello ${KIMI_WORK_DIR}\n"
	cases := []struct {
		name  string
		files map[string]string
		load  string
		want  []string // in the one-line message
	}{
		{"unknown tool", map[string]string{"a.yaml": "version: 1\nagent:\n  system_prompt_path: p.md\n  tools:\n    - ReadFile\n    - Frobnicate\n", "p.md": prompt},
			"a.yaml", []string{"a.yaml:6:", `unknown tool "Frobnicate"`, "name one of"}},
		{"python tool", map[string]string{"a.yaml": "version: 1\nagent:\n  system_prompt_path: p.md\n  tools: [\"my.tools:Thing\"]\n", "p.md": prompt},
			"a.yaml", []string{"a.yaml:4:", "cannot load Python tools"}},
		{"missing agent file", nil, "nope.yaml", []string{"nope.yaml:", "no such file", "check the path"}},
		{"missing prompt", map[string]string{"a.yaml": "version: 1\nagent:\n  system_prompt_path: ./gone.md\n  tools: [ReadFile]\n"},
			"a.yaml", []string{"a.yaml:3:", "gone.md", "no such file", "correct the path"}},
		{"missing extend", map[string]string{"a.yaml": "version: 1\nagent:\n  extend: ./base.yaml\n"},
			"a.yaml", []string{"a.yaml:3:", "base.yaml", "no such file"}},
		{"missing sub-agent", map[string]string{"a.yaml": "version: 1\nagent:\n  extend: default\n  subagents:\n    helper:\n      path: ./helper.yaml\n      description: x\n"},
			"a.yaml", []string{"a.yaml:5:", "sub-agent helper", "helper.yaml", "no such file"}},
		{"extend cycle", map[string]string{"a.yaml": "version: 1\nagent:\n  extend: ./b.yaml\n", "b.yaml": "version: 1\nagent:\n  name: b\n  extend: ./a.yaml\n"},
			"a.yaml", []string{"b.yaml:4:", "cycle", "a.yaml → ", "b.yaml → ", "remove one of the extends"}},
		{"self extend", map[string]string{"a.yaml": "version: 1\nagent:\n  extend: ./a.yaml\n"},
			"a.yaml", []string{"a.yaml:3:", "cycle"}},
		{"unknown variable", map[string]string{"a.yaml": "version: 1\nagent:\n  system_prompt_path: p.md\n  tools: [ReadFile]\n", "p.md": "line one\nuses ${PROJECT_NAME} here\n"},
			"a.yaml", []string{"p.md:2:", "${PROJECT_NAME}", "add PROJECT_NAME to system_prompt_args in", "a.yaml"}},
		{"unknown variable in a condition", map[string]string{"a.yaml": "version: 1\nagent:\n  system_prompt_path: p.md\n  tools: [ReadFile]\n", "p.md": "x\n\n{% if MODE %}y{% endif %}\n"},
			"a.yaml", []string{"p.md:3:", "${MODE}"}},
		{"unsupported tag", map[string]string{"a.yaml": "version: 1\nagent:\n  system_prompt_path: p.md\n  tools: [ReadFile]\n", "p.md": "x\n{% for f in FILES %}y{% endfor %}\n"},
			"a.yaml", []string{"p.md:2:", "rewind does not support"}},
		{"unclosed if", map[string]string{"a.yaml": "version: 1\nagent:\n  system_prompt_path: p.md\n  tools: [ReadFile]\n", "p.md": "x\n{% if KIMI_OS %}y\n"},
			"a.yaml", []string{"p.md:2:", "add {% endif %}"}},
		{"bad version", map[string]string{"a.yaml": "version: 2\nagent:\n  extend: default\n"},
			"a.yaml", []string{"a.yaml:1:", "write version: 1"}},
		{"bad yaml", map[string]string{"a.yaml": "version: 1\nagent:\n  tools: [ReadFile\n"},
			"a.yaml", []string{"a.yaml:", "not valid YAML", "fix the syntax"}},
		{"no tools", map[string]string{"a.yaml": "version: 1\nagent:\n  system_prompt_path: p.md\n", "p.md": prompt},
			"a.yaml", []string{"a.yaml:", "no tools", "extend: default"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := write(t, c.files)
			_, err := LoadFile(filepath.Join(dir, c.load))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message is more than one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestTemplateWhitespace(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"OS": "Windows", "X": ""}
	for _, c := range []struct{ src, want string }{
		// trim_blocks and lstrip_blocks, as kimi-cli renders.
		{"a\n  {% if X %}\nx\n  {% endif %}\nb", "a\nb"},
		{"a\n{% if OS %}\nos\n{% endif %}\nb", "a\nos\nb"},
		{"run.{% if OS == \"Windows\" %} Use bash.{% endif +%}\nnext", "run. Use bash.\nnext"},
		{"{% if OS != 'Windows' %}unix{% elif X %}x{% else %}win{% endif %}", "win"},
		{"{% if not X %}none{% endif %}", "none"},
		{"a   {%- if OS -%}   b   {%- endif %}", "ab"},
	} {
		tp, err := parseTemplate(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := tp.render(vars); got != c.want {
			t.Errorf("%q rendered %q, want %q", c.src, got, c.want)
		}
	}
}

// TestToolSetIsExact: the file's tools and nothing else, MCP included.
func TestToolSetIsExact(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"a.yaml": "version: 1\nagent:\n  extend: default\n  tools: [ReadFile, Glob]\n",
		"b.yaml": "version: 1\nagent:\n  extend: default\n  tools: [ReadFile, mcp__gh__issues]\n"})
	mcp := []tools.Tool{fakeTool("mcp__gh__issues"), fakeTool("mcp__gh__pulls")}
	all := tools.Default().WithSource(func() []tools.Tool { return mcp })
	a, err := LoadFile(filepath.Join(dir, "a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.ToolSet(all).Names(); !slices.Equal(got, []string{"ReadFile", "Glob", "mcp__gh__issues", "mcp__gh__pulls"}) {
		t.Errorf("a offers %v", got)
	}
	b, err := LoadFile(filepath.Join(dir, "b.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.ToolSet(all).Names(); !slices.Equal(got, []string{"ReadFile", "mcp__gh__issues"}) {
		t.Errorf("b offers %v", got)
	}
	if got := Default().ToolSet(tools.Default()).Names(); !slices.Equal(got, tools.Default().Names()) {
		t.Errorf("default narrows today's tools to %v", got)
	}
}

type fakeTool string

func (f fakeTool) Name() string            { return string(f) }
func (f fakeTool) Description() string     { return "" }
func (f fakeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f fakeTool) Call(context.Context, *tools.Env, json.RawMessage) tools.Result {
	return tools.Result{}
}

// TestProjectFileStaysInTheProject: a project's .rewind/agent.yaml cannot
// read a file outside the work dir into the prompt, directly or through a
// symlink; a built-in's name still extends.
func TestProjectFileStaysInTheProject(t *testing.T) {
	t.Parallel()
	outside := write(t, map[string]string{"secret.md": "TOP SECRET ${KIMI_NOW}\n"})
	work := write(t, map[string]string{
		".rewind/agent.yaml": "version: 1\nagent:\n  extend: default\n  system_prompt_path: " + filepath.Join(outside, "secret.md") + "\n",
		".rewind/ok.yaml":    "version: 1\nagent:\n  extend: default\n  name: proj\n  tools: [ReadFile]\n",
		".rewind/link.yaml":  "version: 1\nagent:\n  extend: default\n  system_prompt_path: ./link.md\n",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(work, ".rewind", "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"agent.yaml", "link.yaml"} {
		_, err := LoadProjectFile(filepath.Join(work, ".rewind", f), work)
		if err == nil || !strings.Contains(err.Error(), "outside the project") || !strings.Contains(err.Error(), f+":4:") {
			t.Errorf("%s: err = %v, want a refusal naming the line", f, err)
		}
		if _, err := LoadFile(filepath.Join(work, ".rewind", f)); err != nil {
			t.Errorf("%s given on the command line: %v", f, err)
		}
	}
	a, err := LoadProjectFile(filepath.Join(work, ".rewind", "ok.yaml"), work)
	if err != nil || a.Name != "proj" || a.Ref != filepath.Join(work, ".rewind", "ok.yaml") {
		t.Fatalf("project file extending default: %+v, %v", a, err)
	}
}

// TestBuiltinIsACopy: a built-in is loaded once per process; what a caller
// changes in the agent it got (its tools, its sub-agents' tools) is not in
// the next caller's.
func TestBuiltinIsACopy(t *testing.T) {
	t.Parallel()
	first := Default()
	tools, kids := slices.Clone(first.Tools), first.SubagentNames()
	coder, ok := first.Subagent("coder")
	if len(tools) == 0 || !ok || len(coder.Tools) == 0 {
		t.Fatalf("default agent: tools %v, sub-agents %v", tools, kids)
	}
	coderTools := slices.Clone(coder.Tools)
	first.Tools[0] = "Changed"
	first.Tools = append(first.Tools, "Added")
	first.Subagents = nil
	coder.Tools[0] = "Changed"

	again := Default()
	againCoder, _ := again.Subagent("coder")
	if !slices.Equal(again.Tools, tools) || !slices.Equal(again.SubagentNames(), kids) || !slices.Equal(againCoder.Tools, coderTools) {
		t.Fatalf("a caller's change reached the next load: tools %v, sub-agents %v, coder's tools %v", again.Tools, again.SubagentNames(), againCoder.Tools)
	}
}
