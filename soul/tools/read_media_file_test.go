package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/internal/media"
)

// pngBytes is a w×h PNG with a pattern.
func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadMediaFileReturnsThePNGAsAnImage(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	data := pngBytes(t, 64, 48)
	writeFile(t, filepath.Join(env.WorkDir, "shots", "pic.png"), string(data))
	res := call(t, &ReadMediaFile{}, env, map[string]any{"path": "shots/pic.png"})
	mustOK(t, res)
	if len(res.Images) != 1 {
		t.Fatalf("%d images", len(res.Images))
	}
	img := res.Images[0]
	if img.Path != "shots/pic.png" || img.Format != media.FormatPNG || img.Width != 64 || img.Height != 48 || !bytes.Equal(img.Data, data) {
		t.Fatalf("image %s %s %d×%d", img.Path, img.Format, img.Width, img.Height)
	}
	if !strings.Contains(res.Output, "shots/pic.png (image/png, 64×48") {
		t.Fatalf("output %q", res.Output)
	}
	if len(rec.approvals) != 0 {
		t.Fatalf("asked %v inside the work dir", rec.approvals)
	}
}

func TestReadMediaFileSaysWhenItDownscaled(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, "wide.png"), string(pngBytes(t, 2100, 30)))
	res := call(t, &ReadMediaFile{}, env, map[string]any{"path": "wide.png"})
	mustOK(t, res)
	if img := res.Images[0]; img.Width != media.MaxEdge || !strings.Contains(res.Output, "original size 2100×30") {
		t.Fatalf("%d×%d: %s", img.Width, img.Height, res.Output)
	}
}

// Outside the work dir, directly or through a symlink, it asks first, as
// ReadFile does; a rejection reads nothing.
func TestReadMediaFileOutsideAsksFirst(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pic := filepath.Join(outside, "pic.png")
	writeFile(t, pic, string(pngBytes(t, 8, 8)))
	if err := os.Symlink(outside, filepath.Join(env.WorkDir, "link")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	rec.decide = func(Approval) Decision { return Decision{} }
	for _, p := range []string{pic, "link/pic.png"} {
		res := call(t, &ReadMediaFile{}, env, map[string]any{"path": p})
		if !res.Rejected || len(res.Images) != 0 {
			t.Fatalf("%s: %+v", p, res)
		}
	}
	if len(rec.approvals) != 2 || rec.approvals[0].Action != ActionAccessOutside || !strings.Contains(rec.approvals[1].Description, "a symlink to") {
		t.Fatalf("approvals %+v", rec.approvals)
	}
	rec.decide = nil
	mustOK(t, call(t, &ReadMediaFile{}, env, map[string]any{"path": pic}))
}

func TestReadMediaFileRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, "notes.txt"), "hello\n")
	mustErr(t, call(t, &ReadMediaFile{}, env, map[string]any{"path": "notes.txt"}), "not a PNG, JPEG, GIF or WebP image", "ReadFile")
	mustErr(t, call(t, &ReadMediaFile{}, env, map[string]any{"path": "missing.png"}), "does not exist")
	mustErr(t, call(t, &ReadMediaFile{}, env, map[string]any{"path": "."}), "is a directory")
}
