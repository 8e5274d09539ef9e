package kimi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A kimi-cli session with images (a pasted one and one ReadMediaFile read,
// the same picture) imports with the image kept once, no context row
// carrying its base64, and exports byte for byte as it came.
func TestImagesImportOnceAndExportUnchanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 40, 30))); err != nil {
		t.Fatal(err)
	}
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	lines := []string{
		`{"role": "_checkpoint", "id": 0}`,
		`{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"text","text":"<image path=\"/tmp/kimi/images/ab12.png\">"},{"type":"image_url","image_url":{"url":"` + url + `","id":null}},{"type":"text","text":"</image>"}]}`,
		`{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"ReadMediaFile:0","function":{"name":"ReadMediaFile","arguments":"{\"path\": \"shot.png\"}"}}]}`,
		`{"role":"tool","content":[{"type":"text","text":"<system>Loaded image file ` + "`shot.png`" + ` (image/png, 99 bytes).</system>"},{"type":"text","text":"<image path=\"shot.png\">"},{"type":"image_url","image_url":{"url":"` + url + `"}},{"type":"text","text":"</image>"}],"tool_call_id":"ReadMediaFile:0"}`,
		`{"role":"assistant","content":"A grey rectangle, twice."}`,
		`{"role": "_usage", "token_count": 1234}`,
	}
	want := strings.Join(lines, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "context.jsonl")
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := db.FileBlobStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ImportPath(ctx, db, path, "/w")
	if err != nil {
		t.Fatal(err)
	}
	after, err := db.FileBlobStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Count-before.Count != 1 {
		t.Fatalf("%d blobs for one image", after.Count-before.Count)
	}
	v, err := db.View(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(b.Bytes())
	for _, r := range v.Records {
		if bytes.Contains(r.Body, []byte(b64[:40])) {
			t.Fatalf("record %d holds the base64: %.200s", r.Seq, r.Body)
		}
	}
	m, err := v.Records[1].Message()
	if err != nil {
		t.Fatal(err)
	}
	if imgs := m.Content.Images(); len(imgs) != 1 || imgs[0].Name != "/tmp/kimi/images/ab12.png" || imgs[0].Width != 40 {
		t.Fatalf("images %+v", imgs)
	}
	if got := export(t, db, s.ID, -1); string(got) != compactLines(t, want) {
		t.Fatalf("export differs:\n got %.400s\nwant %.400s", got, compactLines(t, want))
	}
}

// compactLines is each line of s as compact JSON (what an export writes).
func compactLines(t *testing.T, s string) string {
	t.Helper()
	var out strings.Builder
	for _, l := range nonBlankLines([]byte(s)) {
		var c bytes.Buffer
		if err := json.Compact(&c, l); err != nil {
			t.Fatal(err)
		}
		out.Write(c.Bytes())
		out.WriteByte('\n')
	}
	return out.String()
}
