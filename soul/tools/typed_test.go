package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/rewind-agent/rewind/internal/words"
)

// TestBrokenArgumentsNeverPanic calls every tool directly (not through
// Set.Call, which would hide a panic) with garbage.
func TestBrokenArgumentsNeverPanic(t *testing.T) {
	t.Parallel()
	garbage := []string{
		``, ` `, `null`, `{`, `}`, `[]`, `[1,2]`, `"str"`, `42`, `true`, `{"a":}`,
		`{}`, `{"path":null}`, `{"path":42}`, `{"path":["a"]}`, `{"path":{"x":1}}`,
		`{"command":null}`, `{"command":7}`, `{"command":"true","timeout":"5"}`, `{"command":"true","timeout":1.5}`, `{"command":"true","timeout":-3}`,
		`{"path":"x","line_offset":"1"}`, `{"path":"x","n_lines":-1}`, `{"path":"x","n_lines":1e30}`,
		`{"path":"x","content":null}`, `{"path":"x","content":5}`, `{"path":"x","content":"c","mode":1}`, `{"path":"x","content":"c","mode":"nope"}`,
		`{"path":"x","old":1,"new":2}`, `{"path":"x","old":"a"}`, `{"path":"x","old":"a","new":"b","replace_all":"yes"}`,
		`{"pattern":null}`, `{"pattern":[]}`, `{"pattern":"(","glob":3}`, `{"pattern":"a","ignore_case":"true"}`, `{"pattern":"**","directory":5}`,
		`{"thought":null}`, `{"thought":{}}`,
		`{"todos":null}`, `{"todos":"a"}`, `{"todos":[1]}`, `{"todos":[null]}`, `{"todos":[{"title":1}]}`, `{"todos":[{"title":"a","status":"later"}]}`, `{"todos":[{}]}`,
		`{"message":null,"checkpoint_id":1}`, `{"message":"m","checkpoint_id":"1"}`, `{"message":"m","checkpoint_id":-1}`, `{"message":"m","checkpoint_id":1.5}`, `{"message":"m"}`,
		`{"path":"\u0000"}`, `{"path":"` + strings.Repeat("a/", 3000) + `"}`, "{\"path\":\"\xff\xfe\"}",
	}
	for _, tool := range Default().All() {
		for _, g := range garbage {
			t.Run(tool.Name()+"/"+words.Clip(g, 40), func(t *testing.T) {
				env, _ := newEnv(t)
				env.DMail = func(string, int) error { return nil }
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				var res Result
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s panicked on %q: %v", tool.Name(), g, r)
						}
					}()
					res = tool.Call(ctx, env, json.RawMessage(g))
				}()
				if res.IsError && strings.TrimSpace(res.Output) == "" {
					t.Fatalf("%s: empty error output for %q", tool.Name(), g)
				}
			})
		}
	}
}

func TestArgumentErrorsAreClear(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	cases := []struct {
		tool Tool
		args string
		want string
	}{
		{&ReadFile{}, `{`, "not valid JSON"},
		{&ReadFile{}, `[1]`, "must be a JSON object"},
		{&ReadFile{}, `{}`, `missing required argument "path"`},
		{&ReadFile{}, `{"path":null}`, `missing required argument "path"`},
		{&ReadFile{}, `{"path":42}`, `"path" must be a string, got number`},
		{&ReadFile{}, `{"path":"x","n_lines":"10"}`, `"n_lines" must be an integer, got string`},
		{&Shell{}, `{"command":"true","timeout":1.5}`, `"timeout" must be an integer`},
		{&StrReplaceFile{}, `{"path":"x","old":"a"}`, `missing required argument "new"`},
		{&StrReplaceFile{}, `{"path":"x","old":"a","new":"b","replace_all":"yes"}`, `"replace_all" must be a boolean`},
		{&Grep{}, `{"pattern":"a","ignore_case":"true"}`, `"ignore_case" must be a boolean`},
		{&SetTodoList{}, `{"todos":"a"}`, `"todos" must be an array`},
		{&SetTodoList{}, `{"todos":[1]}`, `must be an object`},
		{&SetTodoList{}, `{"todos":[{"title":"a","status":"later"}]}`, `status "later"`},
		{&SetTodoList{}, `{"todos":[{"title":"a"}]}`, `has no status`},
		{&SendDMail{}, `{"message":"m","checkpoint_id":"1"}`, `"checkpoint_id" must be an integer, got string`},
		{&SendDMail{}, `{"message":"m","checkpoint_id":-1}`, `"checkpoint_id" must be at least 0`},
		{&WriteFile{}, `{"path":"x","content":"c","mode":"nope"}`, `"mode" must be one of`},
		// The tools' own checks after decoding.
		{&ReadFile{}, `{"path":"  "}`, "Invalid arguments for ReadFile: the path is empty."},
		{&WriteFile{}, `{"path":"","content":"c"}`, "Invalid arguments for WriteFile: the path is empty."},
		{&StrReplaceFile{}, `{"path":"","old":"a","new":"b"}`, "Invalid arguments for StrReplaceFile: the path is empty."},
		{&StrReplaceFile{}, `{"path":"x","old":"","new":"b"}`, "Invalid arguments for StrReplaceFile: old is empty. To create or rewrite a file use WriteFile."},
		{&Grep{}, `{"pattern":""}`, "Invalid arguments for Grep: the pattern is empty."},
		{&Glob{}, `{"pattern":" ./ "}`, "Invalid arguments for Glob: the pattern is empty."},
		{&Shell{}, `{"command":" "}`, "Invalid arguments for Shell: the command is empty."},
		{&Shell{}, `{"command":"true","timeout":601}`, "Invalid arguments for Shell: timeout 601 is too long; the maximum is 600 seconds."},
		{&SendDMail{}, `{"message":" ","checkpoint_id":0}`, "Invalid arguments for SendDMail: the message is empty;"},
		{&SetTodoList{}, `{"todos":[null]}`, "Invalid arguments for SetTodoList: todos[0] is null;"},
		{&SetTodoList{}, `{"todos":[{"title":" ","status":"done"}]}`, "Invalid arguments for SetTodoList: todos[0] has an empty title."},
		{&SetTodoList{}, `{"todos":[{"title":"a","status":"later"}]}`, `Invalid arguments for SetTodoList: todos[0] ("a") has status "later"; use pending, in_progress or done.`},
	}
	for _, c := range cases {
		res := call(t, c.tool, env, c.args)
		if !res.IsError || res.Brief != "invalid arguments" || !strings.Contains(res.Output, c.want) {
			t.Errorf("%s %s: got %q (brief %q), want an invalid-arguments error containing %q", c.tool.Name(), c.args, res.Output, res.Brief, c.want)
		}
		if !strings.Contains(res.Output, c.tool.Name()) {
			t.Errorf("%s %s: error does not name the tool: %q", c.tool.Name(), c.args, res.Output)
		}
	}
	// Unknown extra arguments and null optional ones are tolerated.
	writeFile(t, filepath.Join(env.WorkDir, "x"), "hello\n")
	res := call(t, &ReadFile{}, env, `{"path":"x","n_lines":null,"extra":true}`)
	mustOK(t, res)
}

func TestThink(t *testing.T) {
	t.Parallel()
	res := call(t, &Think{}, nil, `{"thought":"First, check the tests.\nThen fix."}`)
	if res.IsError || res.Output != "Thought logged." || res.Brief != "First, check the tests." {
		t.Fatalf("%+v", res)
	}
}

func TestSetTodoList(t *testing.T) {
	t.Parallel()
	// The list reaches the UI on the result (soul.ToolResult.Todos).
	res := call(t, &SetTodoList{}, nil, `{"todos":[{"title":"read code","status":"done"},{"title":"write tests","status":"in_progress"},{"title":"ship","status":"pending"}]}`)
	mustOK(t, res)
	want := []Todo{{"read code", TodoDone}, {"write tests", TodoInProgress}, {"ship", TodoPending}}
	if !slices.Equal(res.Todos, want) {
		t.Fatalf("todos %v", res.Todos)
	}
	if res.Output != "Todo list updated:\n- [x] read code\n- [~] write tests\n- [ ] ship" || res.Brief != "1/3 done" {
		t.Fatalf("%+v", res)
	}
	res = call(t, &SetTodoList{}, nil, `{"todos":[]}`)
	if res.IsError || len(res.Todos) != 0 || res.Output != "Todo list cleared." {
		t.Fatalf("clear: %+v", res)
	}
}

func TestSendDMail(t *testing.T) {
	t.Parallel()
	var sent []string
	env := &Env{DMail: func(msg string, id int) error {
		if id > 3 {
			return fmt.Errorf("checkpoint %d does not exist", id)
		}
		if len(sent) > 0 {
			return errors.New("a D-Mail is already pending")
		}
		sent = append(sent, fmt.Sprintf("%d:%s", id, msg))
		return nil
	}}
	d := &SendDMail{}
	res := call(t, d, env, `{"message":"skip the big log","checkpoint_id":2}`)
	if res.IsError || res.Output != DMailNotDelivered || res.Brief != "D-Mail to checkpoint 2" || !slices.Equal(sent, []string{"2:skip the big log"}) {
		t.Fatalf("%+v %v", res, sent)
	}
	mustErr(t, call(t, d, env, `{"message":"again","checkpoint_id":1}`), "already pending")
	mustErr(t, call(t, d, env, `{"message":"far","checkpoint_id":9}`), "checkpoint 9 does not exist")
	mustErr(t, call(t, d, env, `{"message":"  ","checkpoint_id":1}`), "message is empty")
	mustErr(t, call(t, d, &Env{}, `{"message":"m","checkpoint_id":0}`), "not available")
	desc := d.Description()
	for _, w := range []string{"past self", "checkpoint", "discarded", "CHECKPOINT"} {
		if !strings.Contains(desc, w) {
			t.Errorf("description lacks %q", w)
		}
	}
}

// TestSchemaWithLeavesTheToolsSchema: what a tool changes for one setup
// (the Agent tool's types) never reaches the schema its type declares.
func TestSchemaWithLeavesTheToolsSchema(t *testing.T) {
	t.Parallel()
	g := &Grep{}
	before := string(g.Schema())
	adjusted := g.SchemaWith(func(s *jsonschema.Schema) {
		delete(s.Properties, "glob")
		s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(k string) bool { return k == "glob" })
		s.Properties["path"].Enum = []any{"a", "b"}
	})
	if strings.Contains(string(adjusted), "glob") || !strings.Contains(string(adjusted), `"enum":["a","b"]`) {
		t.Errorf("adjusted schema %s", adjusted)
	}
	if after := string(g.Schema()); after != before {
		t.Errorf("the declared schema changed:\n%s\n%s", before, after)
	}
	if _, res, ok := g.Decode(json.RawMessage(`{"pattern":"x","path":"c"}`)); !ok {
		t.Errorf("Decode checks the declared schema, not the adjusted one: %s", res.Output)
	}
}

// noArgs is a tool's argument struct with no arguments.
type noArgs struct{}

func (noArgs) About() About  { return About{Name: "NoArgs"} }
func (noArgs) Label() string { return "" }

// TestNoArgumentsStillNamesProperties: a tool without arguments says so
// with an empty "properties" (some servers refuse an object schema without
// it; jsonschema-go omits an empty one), and takes {} or nothing.
func TestNoArgumentsStillNamesProperties(t *testing.T) {
	t.Parallel()
	var tool Typed[noArgs]
	var got map[string]any
	if err := json.Unmarshal(tool.Schema(), &got); err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"type": "object", "properties": map[string]any{}}; !reflect.DeepEqual(got, want) {
		t.Errorf("schema %s", tool.Schema())
	}
	for _, args := range []string{``, `{}`, `{"extra":1}`} {
		if _, res, ok := tool.Decode(json.RawMessage(args)); !ok {
			t.Errorf("%q: %s", args, res.Output)
		}
	}
}
