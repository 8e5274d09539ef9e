package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noisy is a w×h image of random pixels: it does not compress, so its
// encoding is as large as its pixels.
func noisy(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.UintN(256))
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDecodeKeepsASmallImageAsItIs(t *testing.T) {
	t.Parallel()
	data := encodePNG(t, noisy(64, 48))
	img, err := Decode("pic.png", data)
	if err != nil {
		t.Fatal(err)
	}
	if img.Format != FormatPNG || img.Width != 64 || img.Height != 48 || !bytes.Equal(img.Data, data) || img.Resized() {
		t.Fatalf("got %s %d×%d resized=%v", img.Format, img.Width, img.Height, img.Resized())
	}
	if !strings.HasPrefix(img.DataURL(), "data:image/png;base64,iVBOR") {
		t.Fatalf("data URL %.40s", img.DataURL())
	}
}

// An image over the edge cap is downscaled to fit, keeping its aspect
// ratio; a JPEG stays a JPEG. (The caps are small here: the real ones are
// the same code with bigger numbers, and noise at their size takes
// seconds to make.)
func TestDecodeDownscalesOverTheEdgeCap(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, noisy(300, 150), nil); err != nil {
		t.Fatal(err)
	}
	img, err := decodeWithin("wide.jpg", b.Bytes(), sendCap{edge: 200, bytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if img.Width != 200 || img.Height != 100 || img.Format != FormatJPEG || img.OrigWidth != 300 || !img.Resized() {
		t.Fatalf("got %s %d×%d from %d×%d", img.Format, img.Width, img.Height, img.OrigWidth, img.OrigHeight)
	}
	if f, w, h := Config(img.Data); f != FormatJPEG || w != img.Width || h != img.Height {
		t.Fatalf("data is %s %d×%d", f, w, h)
	}
}

// A PNG within the edge cap but over the byte cap shrinks until it fits.
func TestDecodeDownscalesOverTheByteCap(t *testing.T) {
	t.Parallel()
	data := encodePNG(t, noisy(160, 100)) // ~64 KB of noise
	limit := sendCap{edge: 2048, bytes: 20 << 10}
	img, err := decodeWithin("noise.png", data, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(img.Data) > limit.bytes || img.Width >= 160 || img.Format != FormatPNG {
		t.Fatalf("got %s %d×%d, %d bytes", img.Format, img.Width, img.Height, len(img.Data))
	}
}

// The real caps: what OpenAI and Anthropic take.
func TestTheCapsAreWhatVisionAPIsTake(t *testing.T) {
	t.Parallel()
	if MaxEdge != 2048 || MaxSendBytes > 5<<20 {
		t.Fatalf("MaxEdge %d, MaxSendBytes %d", MaxEdge, MaxSendBytes)
	}
	img, err := Decode("big.png", encodePNG(t, image.NewGray(image.Rect(0, 0, 2100, 10))))
	if err != nil || img.Width != 2048 || img.Height != 10 {
		t.Fatalf("%d×%d %v", img.Width, img.Height, err)
	}
}

func TestDecodeReadsGIFAndWebP(t *testing.T) {
	t.Parallel()
	var g bytes.Buffer
	pal := image.NewPaletted(image.Rect(0, 0, 5, 7), color.Palette{color.Black, color.White})
	if err := gif.Encode(&g, pal, nil); err != nil {
		t.Fatal(err)
	}
	if img, err := Decode("a.gif", g.Bytes()); err != nil || img.Format != FormatGIF || img.Width != 5 || img.Height != 7 {
		t.Fatalf("gif: %+v %v", img.Format, err)
	}
	// The smallest lossless WebP: 1×1 (from libwebp's test images).
	webp := []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")
	if img, err := Decode("a.webp", webp); err != nil || img.Format != FormatWebP || img.Width != 1 || img.Height != 1 {
		t.Fatalf("webp: %q %d×%d %v", img.Format, img.Width, img.Height, err)
	}
}

func TestDecodeRefusesWhatIsNotAnImage(t *testing.T) {
	t.Parallel()
	for name, data := range map[string][]byte{
		"notes.png": []byte("just text\n"),
		"pic.bmp":   append([]byte("BM"), make([]byte, 60)...),
	} {
		if _, err := Decode(name, data); !errors.Is(err, ErrNotImage) || !strings.HasPrefix(err.Error(), name+" is not a PNG") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// A small file that claims a huge image is refused before it is decoded.
func TestDecodeRefusesTooManyPixels(t *testing.T) {
	t.Parallel()
	data := encodePNG(t, image.NewGray(image.Rect(0, 0, 8, 8)))
	// Patch the IHDR width and height to 10000×10000, and its CRC.
	copy(data[16:24], []byte{0, 0, 0x27, 0x10, 0, 0, 0x27, 0x10})
	binary.BigEndian.PutUint32(data[29:33], crc32.ChecksumIEEE(data[12:29]))
	if _, err := Decode("bomb.png", data); err == nil || !strings.Contains(err.Error(), "10000×10000 pixels") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadRefusesLargeAndEmptyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.png")
	big := filepath.Join(dir, "big.png")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Load(context.Background(), empty, "empty.png"); err == nil || err.Error() != "empty.png is empty" {
		t.Errorf("empty: %v", err)
	}
	if _, err := Load(context.Background(), big, "big.png"); err == nil || !strings.Contains(err.Error(), "images over 20 MB are not read") {
		t.Errorf("big: %v", err)
	}
}
