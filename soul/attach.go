package soul

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/rewind-agent/rewind/internal/media"
	"github.com/rewind-agent/rewind/store/message"
)

// A prompt carries images as codex and Claude Code let it: "@pic.png"
// names one (relative to the work dir, or absolute), and a pasted path of
// an image file (what a terminal types when a file is dropped on it:
// absolute, ~/…, file://…, quoted or with escaped spaces) attaches it. A
// name that is no file stays plain text; a file that cannot be sent
// stops the prompt before anything is saved.

// maxPromptImages bounds the images of one prompt.
const maxPromptImages = 10

// AttachError is an image a prompt names that cannot be attached; the
// prompt was not saved (errors.Is(err, ErrNotSaved)).
type AttachError struct {
	Path string
	Err  error
}

func (e *AttachError) Error() string   { return fmt.Sprintf("cannot attach %s: %v", e.Path, e.Err) }
func (e *AttachError) Unwrap() []error { return []error{ErrNotSaved, e.Err} }

// errNoImageIn: the model is declared without image_in.
var errNoImageIn = errors.New(`the model is declared without "image_in" in its capabilities; remove the image or use a model that reads images`)

// promptImages finds and reads the images input names. noImages: the
// model takes none.
func promptImages(ctx context.Context, workDir, input string, noImages bool) ([]media.Image, error) {
	var out []media.Image
	seen := map[string]bool{}
	for _, tok := range promptTokens(input) {
		p, ok := imagePath(tok)
		if !ok {
			continue
		}
		abs := p
		if strings.HasPrefix(p, "~/") {
			home, err := os.UserHomeDir()
			if err != nil {
				continue
			}
			abs = filepath.Join(home, p[2:])
		} else if !filepath.IsAbs(p) {
			abs = filepath.Join(workDir, p)
		}
		abs = filepath.Clean(abs)
		if seen[abs] {
			continue
		}
		if _, err := os.Stat(abs); err != nil {
			continue // not a file: plain text
		}
		seen[abs] = true
		display := abs
		if rel, err := filepath.Rel(workDir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			display = rel
		}
		if noImages {
			return nil, &AttachError{Path: display, Err: errNoImageIn}
		}
		if len(out) == maxPromptImages {
			return nil, &AttachError{Path: display, Err: fmt.Errorf("a prompt takes at most %d images", maxPromptImages)}
		}
		img, err := media.Load(ctx, abs, display)
		if err != nil {
			return nil, &AttachError{Path: display, Err: trimPath(err, display)}
		}
		img.Path = display
		out = append(out, img)
	}
	return out, nil
}

// trimPath drops a leading "display " from an error that names the file,
// which AttachError names already.
func trimPath(err error, display string) error {
	if s, ok := strings.CutPrefix(err.Error(), display+" "); ok {
		return errors.New(s)
	}
	return err
}

// imagePath is the image path a prompt token names: "@pic.png", or a
// pasted absolute, ~/ or file:// path ending like an image.
func imagePath(tok string) (string, bool) {
	tok = strings.TrimRight(tok, ".,;:!?)]}")
	var p string
	switch {
	case strings.HasPrefix(tok, "@"):
		p = tok[1:]
	case strings.HasPrefix(tok, "file://"):
		p = tok[len("file://"):]
	case strings.HasPrefix(tok, "/"), strings.HasPrefix(tok, "~/"):
		p = tok
	default:
		return "", false
	}
	if p == "" || !media.HasImageExt(p) {
		return "", false
	}
	return p, true
}

// promptTokens splits input at white space as a shell would a pasted
// path: quotes group, a backslash escapes the next character.
func promptTokens(input string) []string {
	var toks []string
	var cur strings.Builder
	var quote rune
	escaped, in := false, false
	flush := func() {
		if in {
			toks = append(toks, cur.String())
		}
		cur.Reset()
		in = false
	}
	for _, r := range input {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, in = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"') && !in:
			quote, in = r, true
		case quote == 0 && unicode.IsSpace(r):
			flush()
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	return toks
}

// promptMessage is the user's message: the text, then each image as
// kimi-cli wraps it.
func promptMessage(input string, imgs []media.Image) message.Message {
	if len(imgs) == 0 {
		return message.NewText("user", input)
	}
	parts := []message.Part{{Type: "text", Text: input}}
	for _, im := range imgs {
		parts = append(parts, message.ImageParts(im.Path, im.DataURL())...)
	}
	return message.Message{Role: "user", Content: message.Content{Parts: parts}}
}

// imageInfos is what the conversation shows of imgs.
func imageInfos(imgs []media.Image) []message.ImageInfo {
	out := make([]message.ImageInfo, len(imgs))
	for i, im := range imgs {
		out[i] = message.ImageInfo{Name: im.Path, Format: im.Format, Width: im.Width, Height: im.Height, Size: int64(len(im.Data))}
	}
	return out
}
