package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestDefaultSetNamesAndSchemas(t *testing.T) {
	t.Parallel()
	want := []string{"Shell", "ReadFile", "WriteFile", "StrReplaceFile", "Glob", "Grep", "ListDir", "Think", "SetTodoList", "SendDMail", "FetchURL", "EnterPlanMode", "ExitPlanMode"}
	s := Default()
	if got := strings.Join(s.Names(), ","); got != strings.Join(want, ",") {
		t.Fatalf("names = %s, want %s", got, strings.Join(want, ","))
	}
	wantArgs := map[string][]string{
		"Shell":          {"command", "timeout"},
		"ReadFile":       {"path", "line_offset", "n_lines"},
		"WriteFile":      {"path", "content", "mode"},
		"StrReplaceFile": {"path", "old", "new", "replace_all"},
		"Glob":           {"pattern", "directory"},
		"Grep":           {"pattern", "path", "glob", "ignore_case"},
		"ListDir":        {"path"},
		"Think":          {"thought"},
		"SetTodoList":    {"todos"},
		"SendDMail":      {"message", "checkpoint_id"},
		"FetchURL":       {"url"},
		"EnterPlanMode":  {},
		"ExitPlanMode":   {"plan"},
	}
	for _, spec := range s.Specs() {
		if strings.TrimSpace(spec.Description) == "" {
			t.Errorf("%s: empty description", spec.Name)
		}
		var sch struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(spec.Parameters, &sch); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", spec.Name, err)
		}
		if sch.Type != "object" {
			t.Errorf("%s: schema type %q, required %v", spec.Name, sch.Type, sch.Required)
		}
		if len(sch.Properties) != len(wantArgs[spec.Name]) {
			t.Errorf("%s: properties %v, want %v", spec.Name, sch.Properties, wantArgs[spec.Name])
		}
		for _, a := range wantArgs[spec.Name] {
			if _, ok := sch.Properties[a]; !ok {
				t.Errorf("%s: schema lacks %q", spec.Name, a)
			}
		}
		for _, r := range sch.Required {
			if _, ok := sch.Properties[r]; !ok {
				t.Errorf("%s: required %q not in properties", spec.Name, r)
			}
		}
		if tool, ok := s.Get(spec.Name); !ok || tool.Name() != spec.Name {
			t.Errorf("Get(%s) = %v, %v", spec.Name, tool, ok)
		}
	}
}

func TestSetCallUnknownAndWithout(t *testing.T) {
	t.Parallel()
	s := Default()
	res := s.Call(context.Background(), &Env{WorkDir: t.TempDir()}, "Bash", json.RawMessage(`{}`))
	if !res.IsError || !strings.Contains(res.Output, `"Bash" does not exist`) || !strings.Contains(res.Output, "Shell") {
		t.Fatalf("unknown tool: %+v", res)
	}
	res = s.Call(context.Background(), nil, "Think", json.RawMessage(`{"thought":"hmm"}`))
	if res.IsError || res.Output != "Thought logged." {
		t.Fatalf("Think via Set with nil env: %+v", res)
	}
	w := s.Without("SendDMail")
	if w.Has("SendDMail") || len(w.All()) != len(s.All())-1 || !s.Has("SendDMail") {
		t.Fatalf("Without: %v (original %v)", w.Names(), s.Names())
	}
}

type panicTool struct{ Think }

func (*panicTool) Name() string { return "Boom" }
func (*panicTool) Call(context.Context, *Env, json.RawMessage) Result {
	panic("tool bug")
}

func TestSetCallRecoversPanic(t *testing.T) {
	t.Parallel()
	s := NewSet(&panicTool{})
	res := s.Call(context.Background(), nil, "Boom", nil)
	if !res.IsError || !strings.Contains(res.Output, "Tool Boom failed with an internal error: tool bug.") {
		t.Fatalf("panic not turned into a tool error: %+v", res)
	}
}

// TestReadOnlyTools pins which tools the soul may run in parallel: those
// that neither write nor execute.
func TestReadOnlyTools(t *testing.T) {
	t.Parallel()
	var got []string
	for _, tool := range Default().All() {
		if ro, ok := tool.(ReadOnlyTool); ok && ro.ReadOnly() {
			got = append(got, tool.Name())
		}
	}
	if s := strings.Join(got, " "); s != "ReadFile Glob Grep ListDir Think FetchURL" {
		t.Fatalf("read-only tools: %s", s)
	}
}

func TestSetWithSource(t *testing.T) {
	var extra []Tool
	s := NewSet(&Think{}, &Shell{}).WithSource(func() []Tool { return extra })
	if got := strings.Join(s.Names(), ","); got != "Think,Shell" {
		t.Fatalf("names before the source has tools = %s", got)
	}
	// Source tools come after the fixed ones, never shadow them, and are
	// seen at every lookup.
	extra = []Tool{&ReadFile{}, &Shell{MaxOutput: 1}, &ReadFile{}}
	if got := strings.Join(s.Names(), ","); got != "Think,Shell,ReadFile" {
		t.Errorf("names = %s", got)
	}
	if sh, _ := s.Get("Shell"); sh.(*Shell).MaxOutput != 0 {
		t.Error("a source tool shadowed a fixed one")
	}
	if len(s.Specs()) != 3 || !s.Has("ReadFile") {
		t.Errorf("specs %v, has ReadFile %v", s.Specs(), s.Has("ReadFile"))
	}
	if w := s.Without("ReadFile", "Think"); strings.Join(w.Names(), ",") != "Shell" {
		t.Errorf("Without = %v", w.Names())
	}
	extra = nil
	if res := s.Call(context.Background(), nil, "ReadFile", json.RawMessage(`{}`)); !res.IsError || !strings.Contains(res.Output, "does not exist") {
		t.Errorf("a tool gone from the source = %+v", res)
	}
}

func TestCapOutput(t *testing.T) {
	if got := CapOutput("short", 0); got != "short" {
		t.Errorf("short text = %q", got)
	}
	got := CapOutput("head-"+strings.Repeat("x", 1000)+"-tail", 100)
	if !strings.HasPrefix(got, "head-") || !strings.HasSuffix(got, "-tail") || !strings.Contains(got, "bytes elided") || len(got) > 200 {
		t.Errorf("capped = %q", got)
	}
}
