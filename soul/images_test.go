package soul

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
)

// writePNG writes a w×h PNG into the work dir and returns its bytes.
func writePNG(t *testing.T, dir, name string, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range w {
		img.Set(i, i%h, color.NRGBA{255, 0, 0, 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wireImages are the image_url URLs of each message of a request body, as
// the server received them.
func wireImages(t *testing.T, body []byte) map[string][]string {
	t.Helper()
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, m := range b.Messages {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			if p.Type == "image_url" {
				out[m.Role] = append(out[m.Role], p.ImageURL.URL)
			}
		}
	}
	return out
}

// ReadMediaFile's PNG reaches the model as an image_url part with the
// file's bytes as a data URL, in the tool result, and again in every later
// request (rehydrated from the blob the store keeps).
func TestReadMediaFileSendsThePNGAsADataURL(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{set: tools.NewSet(append(tools.Default().All(), &tools.ReadMediaFile{})...)},
		llmtest.Calls(llmtest.Call("c1", "ReadMediaFile", map[string]any{"path": "pic.png"})),
		llmtest.Text("a red diagonal"), llmtest.Text("still red"))
	data := writePNG(t, h.work, "pic.png", 64, 48)
	h.mustRun("what is in pic.png?")
	h.mustRun("and now?")
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs[1:] {
		if got := wireImages(t, r.Body)["tool"]; len(got) != 1 || got[0] != want {
			t.Fatalf("request %d: tool images %.60q, want the PNG", i+2, got)
		}
	}
	res := h.eventsOf("ToolResult")
	if len(res) != 1 {
		t.Fatalf("%d results", len(res))
	}
	if imgs := res[0].(ToolResult).Images; len(imgs) != 1 || imgs[0].Label() != "[image pic.png · 64×48 PNG · "+sizeOf(data)+"]" {
		t.Fatalf("result images %+v", imgs)
	}
}

// "@pic.png" in a prompt attaches the image to the user's message; the
// text stays as typed.
func TestPromptAttachesAtImage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Text("a picture"))
	data := writePNG(t, h.work, "pic.png", 20, 10)
	h.mustRun("describe @pic.png please")
	r := h.srv.Requests()[0]
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	if got := wireImages(t, r.Body)["user"]; len(got) != 1 || got[0] != want {
		t.Fatalf("user images %.60q", got)
	}
	if !strings.Contains(string(r.Body), `"text":"describe @pic.png please"`) {
		t.Fatalf("the prompt's text is not sent as typed: %.300s", r.Body)
	}
	ev := h.eventsOf("PromptImages")
	if len(ev) != 1 || ev[0].(PromptImages).Images[0].Label() != "[image pic.png · 20×10 PNG · "+sizeOf(data)+"]" {
		t.Fatalf("events %+v", ev)
	}
}

// A pasted absolute path (as a terminal types a dropped file, spaces
// escaped) attaches too; a name that is no file stays text.
func TestPromptAttachesAPastedPath(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Text("ok"))
	writePNG(t, h.work, "my shot.png", 4, 4)
	abs := filepath.Join(h.work, "my shot.png")
	h.mustRun("compare " + strings.ReplaceAll(abs, " ", `\ `) + " with @missing.png")
	if got := wireImages(t, h.srv.Requests()[0].Body)["user"]; len(got) != 1 {
		t.Fatalf("%d images", len(got))
	}
}

// A model declared without image_in is refused the image before anything
// is saved or sent, in one line.
func TestPromptImageRefusedWithoutImageIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{NoImages: true}})
	writePNG(t, h.work, "pic.png", 4, 4)
	err := h.run("look @pic.png")
	var ae *AttachError
	if !errors.As(err, &ae) || !errors.Is(err, ErrNotSaved) || !strings.Contains(err.Error(), `"image_in"`) {
		t.Fatalf("err = %v", err)
	}
	if n := len(h.srv.Requests()); n != 0 || len(h.messages()) != 0 {
		t.Fatalf("%d requests, %d messages", n, len(h.messages()))
	}
}

// A server that refuses images fails the step in one line naming the
// capability and the config key.
func TestServerRejectingAnImageNamesImageIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.HTTPError(400, "Invalid request: image input is not supported by this model"))
	writePNG(t, h.work, "pic.png", 4, 4)
	err := h.run("look @pic.png")
	var le *llm.Error
	if !errors.As(err, &le) || le.Rejected != llm.CapImageIn {
		t.Fatalf("err = %v", err)
	}
	if msg := le.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "image_in") || !strings.Contains(msg, "capabilities") {
		t.Fatalf("message %q", msg)
	}
}

func sizeOf(b []byte) string { return words.Size(int64(len(b))) }

// A model without image_in is not offered ReadMediaFile, and a call of it
// anyway is an unknown tool; SetImageIn(true) (a /model switch) offers it.
func TestReadMediaFileFollowsImageIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{NoImages: true}, set: tools.NewSet(append(tools.Default().All(), &tools.ReadMediaFile{})...)},
		llmtest.Calls(llmtest.Call("c1", "ReadMediaFile", map[string]any{"path": "pic.png"})),
		llmtest.Text("no image"), llmtest.Text("now I can"))
	writePNG(t, h.work, "pic.png", 4, 4)
	h.mustRun("look")
	reqs := h.srv.Requests()
	if slices.Contains(reqs[0].ToolNames(), "ReadMediaFile") {
		t.Fatalf("offered %v", reqs[0].ToolNames())
	}
	if len(wireImages(t, reqs[1].Body)["tool"]) != 0 || !strings.Contains(string(reqs[1].Body), `Tool \"ReadMediaFile\" does not exist`) {
		t.Fatalf("the hidden tool ran: %.300s", reqs[1].Body)
	}
	h.soul.SetImageIn(true)
	h.mustRun("again")
	if names := h.srv.Requests()[2].ToolNames(); !slices.Contains(names, "ReadMediaFile") {
		t.Fatalf("after SetImageIn(true): %v", names)
	}
}
