package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rewind-agent/rewind/internal/media"
	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/internal/words"
)

//go:embed read_media_file.md
var readMediaFileDescription string

// readMediaFileArgs are ReadMediaFile's arguments.
type readMediaFileArgs struct {
	Path string `json:"path" jsonschema:"The image file to read (relative to the work dir, or absolute)."`
}

func (readMediaFileArgs) About() About {
	return About{Name: "ReadMediaFile", Description: readMediaFileDescription, ReadOnly: true}
}

func (a readMediaFileArgs) Label() string { return a.Path }

// ReadMediaFile gives the model an image, as kimi-cli's tool of that name:
// the result carries it as an image part (Result.Images). It is offered
// only to a model that takes images (capability image_in).
type ReadMediaFile struct{ Typed[readMediaFileArgs] }

func (t *ReadMediaFile) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	if strings.TrimSpace(a.Path) == "" {
		return invalidArgs(t.Name(), "the path is empty.")
	}
	tg, res, ok := resolveForRead(ctx, env, t.Name(), a.Path, "Read")
	if !ok {
		return res
	}
	info, err := os.Stat(tg.Real)
	if err != nil {
		return statErr(tg.Display, err)
	}
	if info.IsDir() {
		return errorResult("is a directory", "%s is a directory; use ListDir to list it.", tg.Display)
	}
	img, err := media.Load(ctx, tg.Real, tg.Display)
	var notRegular *regfile.NotRegularError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return errorResult("interrupted", "Reading %s was interrupted.", tg.Display)
	case errors.As(err, &notRegular):
		return errorResult("not a regular file", "%s is %s, not a regular file; ReadMediaFile reads regular files only.", tg.Display, notRegular.Kind)
	case errors.Is(err, media.ErrNotImage):
		return errorResult("not an image", "%v. Use ReadFile for text files.", err)
	case errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission):
		return statErr(tg.Display, err)
	default:
		return errorResult("not read", "%v.", err)
	}
	img.Path = tg.Display
	out := fmt.Sprintf("Loaded image %s (%s, %d×%d, %s).", tg.Display, img.MIME(), img.Width, img.Height, words.Size(int64(len(img.Data))))
	if img.Resized() {
		out = fmt.Sprintf("Loaded image %s (%s), downscaled to %d×%d (%s) from its original size %d×%d (%s %s): give coordinates relative to the image, or scale them to the original size.",
			tg.Display, img.MIME(), img.Width, img.Height, words.Size(int64(len(img.Data))), img.OrigWidth, img.OrigHeight, strings.ToUpper(img.OrigFormat), words.Size(img.OrigBytes))
	}
	return Result{
		Output: out,
		Brief:  fmt.Sprintf("read image %s (%d×%d)", tg.Display, img.Width, img.Height),
		Images: []media.Image{img},
	}
}
