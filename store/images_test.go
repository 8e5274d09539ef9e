package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"testing"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store/message"
)

func tinyPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func imageMessage(role, text, path string, data []byte) message.Message {
	parts := []message.Part{{Type: "text", Text: text}}
	parts = append(parts, message.ImageParts(path, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(data))...)
	return message.Message{Role: role, Content: message.Content{Parts: parts}}
}

// The same image sent twice is one blob; no context row holds its base64;
// ExpandImages gives back the message exactly as it was appended.
func TestImagesAreStoredOnceByContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	s := newSession(t, db, "", "/w")
	data := tinyPNG(t, 640, 480)
	b64 := base64.StdEncoding.EncodeToString(data)
	before, err := db.FileBlobStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for _, text := range []string{"look at this", "and again"} {
		m := imageMessage("user", text, "pic.png", data)
		b, _ := json.Marshal(m)
		want = append(want, b)
		if _, err := db.AppendMessage(ctx, s.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	after, err := db.FileBlobStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Count-before.Count != 1 || after.RawBytes-before.RawBytes != int64(len(data)) {
		t.Fatalf("blobs %+v → %+v, want one more of %d bytes", before, after, len(data))
	}
	var rows, inline int
	if err := db.reader.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(instr(body, ?) > 0), 0) FROM context WHERE session_key = (SELECT key FROM sessions WHERE id = ?)`, b64[:40], s.ID).Scan(&rows, &inline); err != nil {
		t.Fatal(err)
	}
	if rows != 2 || inline != 0 {
		t.Fatalf("%d rows, %d with the base64 inline", rows, inline)
	}
	v, err := db.View(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range v.Records {
		m, err := r.Message()
		if err != nil {
			t.Fatal(err)
		}
		imgs := m.Content.Images()
		if len(imgs) != 1 || imgs[0].Label() != "[image pic.png · 640×480 PNG · "+words.Size(int64(len(data)))+"]" {
			t.Fatalf("record %d images %+v", i, imgs)
		}
		got, err := db.ExpandImages(ctx, r.Body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[i]) {
			t.Fatalf("record %d expanded:\n%s\nwant\n%s", i, got, want[i])
		}
	}
}
