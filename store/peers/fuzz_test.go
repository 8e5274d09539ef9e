package peers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// fuzzParser checks a parser on any input: it never fails or panics, it
// consumes whole lines only, and the records of a prefix cut at a line end
// are the first records of the whole (what a grown-file import relies on).
func fuzzParser(f *testing.F, origin string) {
	for _, fx := range fixtures {
		if fx.origin != origin {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", fx.path))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint16(len(data)/3))
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i := 0; i+3 <= len(lines); i += 3 {
			f.Add(bytes.Join(lines[i:i+3], nil), uint16(len(lines[i])))
		}
	}
	f.Add([]byte("{\"type\":\"compacted\"}\nnot json\n{\"type\":\"user\",\"uuid\":\"a\",\"message\":{\"content\":\"hi\"}}"), uint16(5))
	f.Fuzz(func(t *testing.T, data []byte, at uint16) {
		whole, err := Parse(bytes.NewReader(data), origin, "f.jsonl", nil)
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		if whole.Consumed > int64(len(data)) {
			t.Fatalf("consumed %d of %d bytes", whole.Consumed, len(data))
		}
		cut := bytes.LastIndexByte(data[:min(int(at), len(data))], '\n') + 1
		part, err := Parse(bytes.NewReader(data[:cut]), origin, "f.jsonl", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(part.Gens) > len(whole.Gens) {
			t.Fatalf("the first %d bytes give %d generations, the whole %d", cut, len(part.Gens), len(whole.Gens))
		}
		for gi, g := range part.Gens {
			w := whole.Gens[gi].Records
			if len(g.Records) > len(w) || gi < len(part.Gens)-1 && len(g.Records) != len(w) {
				t.Fatalf("generation %d: %d records from the first %d bytes, %d from the whole", gi, len(g.Records), cut, len(w))
			}
			for i, r := range g.Records {
				if !sameRecord(r, w[i]) {
					t.Fatalf("generation %d record %d differs: %s vs %s", gi, i, r.Body, w[i].Body)
				}
			}
		}
	})
}

func sameRecord(a, b store.Record) bool {
	return a.Kind == b.Kind && a.Role == b.Role && a.CheckpointID == b.CheckpointID && a.TokenCount == b.TokenCount &&
		bytes.Equal(a.Body, b.Body) && a.CreatedAt.Equal(b.CreatedAt)
}

func FuzzCodex(f *testing.F)  { fuzzParser(f, store.OriginCodex) }
func FuzzClaude(f *testing.F) { fuzzParser(f, store.OriginClaude) }
