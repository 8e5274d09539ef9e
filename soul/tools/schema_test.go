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

// TestArgDescriptionsMatchConstants: a description cannot name a constant,
// so the limits it states are checked against the ones the tools enforce
// (the schemas' defaults are the constants themselves).
func TestArgDescriptionsMatchConstants(t *testing.T) {
	t.Parallel()
	prop := func(tool Tool, name string) map[string]any {
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tool.Schema(), &s); err != nil || s.Properties[name] == nil {
			t.Fatalf("%s: no argument %q in %s (%v)", tool.Name(), name, tool.Schema(), err)
		}
		return s.Properties[name]
	}
	nLines := prop(&ReadFile{}, "n_lines")
	if nLines["default"] != float64(readMaxLines) || !strings.Contains(nLines["description"].(string), fmt.Sprintf("at most %d", readMaxLines)) {
		t.Errorf("ReadFile n_lines = %v, want default and bound %d", nLines, readMaxLines)
	}
	timeout := prop(&Shell{}, "timeout")
	if timeout["default"] != float64(shellDefaultTimeout) || !strings.Contains(timeout["description"].(string), fmt.Sprintf("at most %d", shellMaxTimeout)) {
		t.Errorf("Shell timeout = %v, want default %d and bound %d", timeout, shellDefaultTimeout, shellMaxTimeout)
	}
}

// TestDecodeFillsDefaults: Decode fills absent and null optional arguments
// from the schema's defaults.
func TestDecodeFillsDefaults(t *testing.T) {
	t.Parallel()
	a, res, ok := (&ReadFile{}).Decode(json.RawMessage(`{"path":"x","n_lines":null}`))
	if !ok {
		t.Fatal(res.Output)
	}
	if a.LineOffset != 1 || a.NLines != readMaxLines {
		t.Errorf("args = %+v, want line_offset 1 and n_lines %d", a, readMaxLines)
	}
}
