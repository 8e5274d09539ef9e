// Package media reads the images rewind sends to a model: PNG, JPEG, GIF
// and WebP, recognised by their bytes, bounded in size, and downscaled
// when they are over the cap a model takes. ReadMediaFile and images
// attached to a prompt (@pic.png) both read them here. A leaf.
package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"strings"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/internal/words"
)

// The formats rewind reads, as image.DecodeConfig names them.
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
	FormatGIF  = "gif"
	FormatWebP = "webp"
)

// Limits. A file over MaxFileBytes or MaxPixels is refused (decoding a
// 20,000×20,000 image takes 1.6 GB); one over MaxEdge or MaxSendBytes is
// downscaled until it fits: what the common vision APIs take (OpenAI
// scales to 2048 px; Anthropic refuses images over 5 MB).
const (
	MaxFileBytes = 20_000_000
	MaxPixels    = 40_000_000
	MaxEdge      = 2048
	MaxSendBytes = 4_000_000
)

// Image is an image as it is sent to the model, and where it came from.
type Image struct {
	// Path is the file as the caller names it (relative to the work dir
	// when inside it).
	Path   string
	Format string // of Data: one of the Format constants
	Data   []byte
	Width  int
	Height int
	// The file as read, before any downscale.
	OrigFormat string
	OrigWidth  int
	OrigHeight int
	OrigBytes  int64
}

// MIME is the media type of Data.
func (i Image) MIME() string { return "image/" + i.Format }

// DataURL is Data as a data: URL, the form an image_url part carries.
func (i Image) DataURL() string {
	return "data:" + i.MIME() + ";base64," + base64.StdEncoding.EncodeToString(i.Data)
}

// Resized reports whether Data is a downscaled copy of the file.
func (i Image) Resized() bool { return i.Width != i.OrigWidth || i.Height != i.OrigHeight }

// Supported reports whether format is one rewind reads.
func Supported(format string) bool {
	switch format {
	case FormatPNG, FormatJPEG, FormatGIF, FormatWebP:
		return true
	}
	return false
}

// HasImageExt reports whether a file name ends like an image rewind reads
// (the extensions a prompt's @path or pasted path is recognised by).
func HasImageExt(name string) bool {
	low := strings.ToLower(name)
	for _, ext := range []string{".png", ".jpg", ".jpeg", ".gif", ".webp"} {
		if strings.HasSuffix(low, ext) {
			return true
		}
	}
	return false
}

// ErrNotImage is wrapped by the error for a file that is not a PNG, JPEG,
// GIF or WebP image.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// Config reads the format and size of an image from its first bytes; the
// format is "" for anything rewind does not read.
func Config(data []byte) (format string, width, height int) {
	cfg, f, err := decodeConfig(bytes.NewReader(data))
	if err != nil || !Supported(f) {
		return "", 0, 0
	}
	return f, cfg.Width, cfg.Height
}

// decodeConfig is image.DecodeConfig for the four formats, without
// registering decoders process-wide.
func decodeConfig(r io.ReadSeeker) (image.Config, string, error) {
	head := make([]byte, 16)
	n, _ := io.ReadFull(r, head)
	head = head[:n]
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return image.Config{}, "", err
	}
	switch f := sniff(head); f {
	case FormatPNG:
		c, err := png.DecodeConfig(r)
		return c, f, err
	case FormatJPEG:
		c, err := jpeg.DecodeConfig(r)
		return c, f, err
	case FormatGIF:
		c, err := gif.DecodeConfig(r)
		return c, f, err
	case FormatWebP:
		c, err := webp.DecodeConfig(r)
		return c, f, err
	}
	return image.Config{}, "", ErrNotImage
}

// sniff names the format of an image by its magic bytes.
func sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return FormatJPEG
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return FormatGIF
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return FormatWebP
	}
	return ""
}

// Load reads the image file at path (display names it in errors and is
// the Image's Path). Each read is bounded in time and by ctx, as ReadFile's.
func Load(ctx context.Context, path, display string) (Image, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return Image{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Image{}, err
	}
	if info.Size() == 0 {
		return Image{}, fmt.Errorf("%s is empty", display)
	}
	if info.Size() > MaxFileBytes {
		return Image{}, fmt.Errorf("%s is %s; images over %s are not read", display, words.Size(info.Size()), words.Size(MaxFileBytes))
	}
	data, err := io.ReadAll(io.LimitReader(regfile.NewReader(ctx, f, display), MaxFileBytes+1))
	if err != nil {
		return Image{}, err
	}
	return Decode(display, data)
}

// Decode checks data is an image rewind reads and returns it as it is
// sent: unchanged when it is within MaxEdge and MaxSendBytes, else
// downscaled (a JPEG stays a JPEG, the others become PNG).
func Decode(display string, data []byte) (Image, error) {
	return decodeWithin(display, data, sendCap{MaxEdge, MaxSendBytes})
}

// sendCap is the largest image sent: its longest side and its bytes.
type sendCap struct {
	edge  int
	bytes int
}

func decodeWithin(display string, data []byte, limit sendCap) (Image, error) {
	cfg, format, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		if errors.Is(err, ErrNotImage) {
			return Image{}, fmt.Errorf("%s is %w", display, ErrNotImage)
		}
		return Image{}, fmt.Errorf("%s is not a readable %s image: %v", display, strings.ToUpper(format), err)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > MaxPixels || cfg.Width <= 0 || cfg.Height <= 0 {
		return Image{}, fmt.Errorf("%s is %d×%d pixels; images over %d megapixels are not read", display, cfg.Width, cfg.Height, MaxPixels/1_000_000)
	}
	img := Image{Path: display, Format: format, Data: data, Width: cfg.Width, Height: cfg.Height,
		OrigFormat: format, OrigWidth: cfg.Width, OrigHeight: cfg.Height, OrigBytes: int64(len(data))}
	if max(cfg.Width, cfg.Height) <= limit.edge && len(data) <= limit.bytes {
		return img, nil
	}
	return downscale(img, limit)
}

// downscale fits img within the edge cap, then shrinks it further until
// its encoding is within the byte cap.
func downscale(img Image, limit sendCap) (Image, error) {
	src, err := decode(img.OrigFormat, img.Data)
	if err != nil {
		return Image{}, fmt.Errorf("%s is not a readable %s image: %v", img.Path, strings.ToUpper(img.OrigFormat), err)
	}
	scale := math.Min(1, float64(limit.edge)/float64(max(img.OrigWidth, img.OrigHeight)))
	out := FormatPNG
	if img.OrigFormat == FormatJPEG {
		out = FormatJPEG
	}
	for range 8 {
		w := max(1, int(math.Round(float64(img.OrigWidth)*scale)))
		h := max(1, int(math.Round(float64(img.OrigHeight)*scale)))
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		var buf bytes.Buffer
		if out == FormatJPEG {
			err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
		} else {
			err = png.Encode(&buf, dst)
		}
		if err != nil {
			return Image{}, fmt.Errorf("downscale %s: %w", img.Path, err)
		}
		if buf.Len() <= limit.bytes {
			img.Format, img.Data, img.Width, img.Height = out, buf.Bytes(), w, h
			return img, nil
		}
		// Shrink by what the bytes are over, and a little more.
		scale *= math.Min(0.9, math.Sqrt(float64(limit.bytes)/float64(buf.Len())))
	}
	return Image{}, fmt.Errorf("%s does not fit in %s even downscaled", img.Path, words.Size(int64(limit.bytes)))
}

func decode(format string, data []byte) (image.Image, error) {
	r := bytes.NewReader(data)
	switch format {
	case FormatPNG:
		return png.Decode(r)
	case FormatJPEG:
		return jpeg.Decode(r)
	case FormatGIF:
		return gif.Decode(r) // the first frame
	case FormatWebP:
		return webp.Decode(r)
	}
	return nil, ErrNotImage
}
