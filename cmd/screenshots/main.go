package main

import (
	"context"
	"flag"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"

	"github.com/rewind-agent/rewind/themes"
)

func main() {
	out := flag.String("o", "screenshots", "directory to write the PNGs to")
	w := flag.Int("w", 150, "terminal width in cells")
	h := flag.Int("h", 44, "terminal height in cells")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: screenshots [-o DIR] [-w COLS] [-h ROWS]")
		os.Exit(2)
	}
	files, err := render(context.Background(), *out, *w, *h)
	if err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Println("wrote", f)
	}
}

// render draws every scene into dir (created if needed) and returns the
// files written.
func render(ctx context.Context, dir string, w, h int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "rewind-screenshots-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	th := themes.Default()
	pal := Palette{Foreground: rgba(th.Text, color.RGBA{0xdd, 0xdd, 0xdd, 0xff}), Background: rgba(th.Background, color.RGBA{0x1e, 0x1e, 0x2e, 0xff})}
	var files []string
	err = playScenes(ctx, tmp, w, h, func(name string, fr frame) error {
		img, err := RenderScreen(fr, pal)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, name+".png")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := png.Encode(f, img); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		files = append(files, path)
		return nil
	})
	return files, err
}
