package peers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-agent/rewind/internal/gen"
	"github.com/rewind-agent/rewind/store"
)

// TestParseAllocations: a line is decoded once, into the parser's own
// fields (message.Scanner), not through encoding/json's reflection, which
// decoded a line, then its message or payload, then its content blocks,
// each allocating as it went (about 30 allocations a record for Claude
// Code, 20 for codex). What is left is the records' own strings, bodies
// and decoded messages.
func TestParseAllocations(t *testing.T) {
	for _, c := range []struct {
		origin string
		write  func(string, int, int) (int, error)
		max    float64 // allocations per record
	}{
		{store.OriginCodex, gen.CodexHome, 12},
		{store.OriginClaude, gen.ClaudeHome, 12},
	} {
		home := filepath.Join(t.TempDir(), c.origin)
		records, err := c.write(home, 1, 200)
		if err != nil {
			t.Fatal(err)
		}
		d, ok, err := Detect(home)
		if err != nil || !ok || len(d.Sources) != 1 {
			t.Fatalf("Detect: %v %v", ok, err)
		}
		data, err := os.ReadFile(d.Sources[0].Path)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(5, func() {
			s, err := Parse(bytes.NewReader(data), c.origin, "f.jsonl", nil)
			if err != nil || s.Records() != records {
				t.Fatalf("Parse: %d records of %d, %v", s.Records(), records, err)
			}
		})
		if per := allocs / float64(records); per > c.max {
			t.Errorf("%s: %.1f allocations a record, want at most %.0f", c.origin, per, c.max)
		} else {
			t.Logf("%s: %.1f allocations a record", c.origin, per)
		}
	}
}
