package main

import (
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestRenderWritesDistinctImages runs the command's render function and
// checks every scene's PNG: it decodes, has the terminal's size in cells
// times the font's cell size, and is not uniform (more than two colours).
func TestRenderWritesDistinctImages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const w, h = 100, 32
	files, err := render(context.Background(), dir, w, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(sceneNames) {
		t.Fatalf("wrote %v, want one file per scene %v", files, sceneNames)
	}
	fc, err := loadFaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range sceneNames {
		path := filepath.Join(dir, name+".png")
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != w*fc.cellW || b.Dy() != h*fc.cellH {
			t.Errorf("%s: %v, want %d×%d", name, b, w*fc.cellW, h*fc.cellH)
		}
		if n := colours(img, 64); n <= 2 {
			t.Errorf("%s: only %d colours: blank or uniform", name, n)
		}
	}
}

// colours counts distinct colours, up to limit.
func colours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}
