package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSchemasMatchGolden pins the schema the model sees for every built-in
// tool: testdata/schemas holds the schemas as declared before they were
// derived from the argument structs, so this proves they are equivalent
// (same names, types, required, descriptions, enums, defaults, minimums).
func TestSchemasMatchGolden(t *testing.T) {
	t.Parallel()
	all := Default().All()
	files, _ := filepath.Glob("testdata/schemas/*.json")
	if len(files) != len(all) {
		t.Errorf("%d golden schemas for %d tools", len(files), len(all))
	}
	for _, tool := range all {
		t.Run(tool.Name(), func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join("testdata", "schemas", tool.Name()+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			if err := json.Unmarshal(golden, &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(tool.Schema(), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("schema changed:\n got %s\nwant %s", tool.Schema(), golden)
			}
		})
	}
}

// TestArgTagsMatchConstants: a struct tag cannot name a constant, so the
// limits written in the tags are checked against the ones the tools enforce.
func TestArgTagsMatchConstants(t *testing.T) {
	t.Parallel()
	find := func(spec argSpec, name string) param {
		for _, p := range spec.params {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no argument %q", name)
		return param{}
	}
	nLines := find(readFileArgsSpec, "n_lines")
	if nLines.Default != readMaxLines || !strings.Contains(nLines.Description, fmt.Sprintf("at most %d", readMaxLines)) {
		t.Errorf("ReadFile n_lines = %+v, want default and bound %d", nLines, readMaxLines)
	}
	timeout := find(shellArgsSpec, "timeout")
	if timeout.Default != shellDefaultTimeout || !strings.Contains(timeout.Description, fmt.Sprintf("at most %d", shellMaxTimeout)) {
		t.Errorf("Shell timeout = %+v, want default %d and bound %d", timeout, shellDefaultTimeout, shellMaxTimeout)
	}
}

// TestArgsOfDefaultsFillAbsentArguments: decodeArgs fills absent and null
// optional arguments from the `default` tags.
func TestArgsOfDefaultsFillAbsentArguments(t *testing.T) {
	t.Parallel()
	var a readFileArgs
	if res, ok := decodeArgs("ReadFile", json.RawMessage(`{"path":"x","n_lines":null}`), readFileArgsSpec, &a); !ok {
		t.Fatal(res.Output)
	}
	if a.LineOffset != 1 || a.NLines != readMaxLines {
		t.Errorf("args = %+v, want line_offset 1 and n_lines %d", a, readMaxLines)
	}
}
