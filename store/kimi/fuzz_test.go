package kimi

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: a context.jsonl either parses, or fails with a *LineError
// naming a line of the file. One that parses exports to lines that parse
// again into the same records (import → export → import loses nothing).
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"single", "session", "cleared", "malformed"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.jsonl"))
		for _, name := range files {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(bytes.NewReader(data), "context.jsonl")
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || le.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error %v is not a *LineError on a line of the file", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteRecords(&out, file.Records); err != nil {
			t.Fatalf("parsed records do not export: %v", err)
		}
		again, err := Parse(bytes.NewReader(out.Bytes()), "context.jsonl")
		if err != nil {
			t.Fatalf("exported file does not parse: %v\n%s", err, out.Bytes())
		}
		var out2 bytes.Buffer
		if err := WriteRecords(&out2, again.Records); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), out2.Bytes()) {
			t.Fatalf("export drifts:\n1st %q\n2nd %q", out.Bytes(), out2.Bytes())
		}
	})
}
