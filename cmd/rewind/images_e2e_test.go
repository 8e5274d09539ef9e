package main

// Images end to end: `rewind -p` with @pic.png, ReadMediaFile on offer
// only for a model that takes images, a server that refuses them.

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

func (e *env) writePNG(name string, w, h int) []byte {
	e.t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.workDir, name), b.Bytes(), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return b.Bytes()
}

// userImageURLs are the image_url URLs of the user messages a request sent.
func userImageURLs(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	var out []string
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, p := range m.Content.Parts {
			if u := p.ImageURL(); u != "" {
				out = append(out, u)
			}
		}
	}
	return out
}

func TestPrintModeAttachesAtImageAndOffersReadMediaFile(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("A grey square."))
	e := newEnv(t).withServer(srv)
	data := e.writePNG("pic.png", 32, 32)
	r := e.run("-p", "what is in @pic.png?")
	if r.code != 0 || r.stdout != "A grey square.\n" {
		t.Fatalf("%s", r)
	}
	req := srv.Requests()[0]
	if got := userImageURLs(t, req); len(got) != 1 || got[0] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(data) {
		t.Fatalf("user images %.80q", got)
	}
	if !slices.Contains(req.ToolNames(), "ReadMediaFile") {
		t.Fatalf("tools %v: a model that declares nothing is assumed to read images", req.ToolNames())
	}
	// The stored session holds a blob reference, not the base64; show
	// prints the image's label.
	id := e.onlySession()
	if strings.Contains(e.look("show", id, "--json").stdout, base64.StdEncoding.EncodeToString(data)[:32]) {
		t.Fatal("the image's base64 is in the stored record")
	}
	if out := e.mustOK("show", id).stdout; !strings.Contains(out, "[image pic.png · 32×32 PNG · ") || strings.Contains(out, "<image") {
		t.Fatalf("show:\n%s", out)
	}
}

func TestPrintModeWithoutImageIn(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("ok"))
	e := newEnv(t).withServer(srv)
	writeFile(t, filepath.Join(e.home, "config.toml"), "capabilities = [\"thinking\"]\n")
	e.writePNG("pic.png", 4, 4)
	e.mustOK("-p", "hello")
	if names := srv.Requests()[0].ToolNames(); slices.Contains(names, "ReadMediaFile") {
		t.Fatalf("tools %v offered ReadMediaFile to a model without image_in", names)
	}
	expectError(t, e.run("-p", "look at @pic.png"), 1, "cannot attach pic.png", `"image_in"`, "nothing was sent")
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests: the refused prompt was sent", n)
	}
}

// A server that refuses images ends the run in one line that names the
// capability and the config key.
func TestPrintModeServerRefusesTheImage(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(400, "this model does not support image input"))
	e := newEnv(t).withServer(srv)
	e.writePNG("pic.png", 4, 4)
	expectError(t, e.run("-p", "look at @pic.png"), 1, "rejected an image", "image_in", "capabilities")
}
