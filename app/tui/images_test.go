package tui

import (
	"bytes"
	"context"
	"image"
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
	"github.com/rewind-agent/rewind/views"
)

func writeTestPNG(t *testing.T, dir, name string, w, h int) int {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}

// A prompt's @pic.png shows as one label line under the prompt, live and
// when the session is read back; a ReadMediaFile result shows its image
// the same way. The tags that wrap an image never show as text.
func TestImagesShowAsLabels(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 100, h: 30, mutate: func(o *Options) {
		o.Tools = tools.NewSet(append(tools.Default().All(), &tools.ReadMediaFile{})...)
	}},
		llmtest.Text("A black square."),
		llmtest.Calls(llmtest.Call("c1", "ReadMediaFile", map[string]any{"path": "two.png"})),
		llmtest.Text("Wider."))
	n1 := writeTestPNG(t, h.work, "pic.png", 64, 48)
	n2 := writeTestPNG(t, h.work, "two.png", 30, 10)
	prompt := "[image pic.png · 64×48 PNG · " + words.Size(int64(n1)) + "]"
	tool := "[image two.png · 30×10 PNG · " + words.Size(int64(n2)) + "]"
	h.submit("describe @pic.png")
	h.waitFor(prompt, "A black square.")
	h.waitUntil("the first run to end", h.idle) // the answer shows before its step commits
	h.submit("and two.png?")
	h.waitFor(tool, "Wider.")
	if strings.Contains(h.text(), "<image") {
		t.Fatalf("a wrapping tag shows:\n%s", h.text())
	}

	v, err := h.db.View(context.Background(), h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	var user, call views.Item
	for _, it := range viewItems(v) {
		switch {
		case it.Kind == views.ItemUser && it.Text == "describe @pic.png":
			user = it
		case it.Kind == views.ItemTool && it.ToolName == "ReadMediaFile":
			call = it
		}
	}
	if !slices.Equal(user.Images, []string{prompt}) || !slices.Equal(call.Images, []string{tool}) {
		t.Fatalf("read back: prompt images %q, call images %q", user.Images, call.Images)
	}
	if strings.Contains(call.Result, "<image") || !strings.Contains(call.Result, "Loaded image two.png") {
		t.Fatalf("call result %q", call.Result)
	}
}

// /model to a model declared without image_in stops offering ReadMediaFile
// at the next step, and back to one with it offers it again.
func TestModelSwitchFollowsImageIn(t *testing.T) {
	t.Parallel()
	other := llmtest.NewServer(t)
	other.Enqueue(llmtest.Text("text only"))
	h := newHarness(t, hopts{w: 120, h: 40, mutate: func(o *Options) {
		o.Tools = tools.NewSet(append(tools.Default().All(), &tools.ReadMediaFile{})...)
		o.Models = func() []string { return []string{"fake-model", "lab/text-model"} }
		o.ImageIn = func(model string) bool { return model != "lab/text-model" }
		o.SwitchModel = func(name string) (llm.Client, string, error) {
			cl, err := llm.New(llm.Config{BaseURL: other.URL(), APIKey: "k2", Model: "text-model", Stream: true})
			return cl, name, err
		}
	}}, llmtest.Text("sees images"))
	h.submit("one")
	h.waitFor("sees images")
	h.waitUntil("the run to end", h.idle)
	if names := h.srv.Requests()[0].ToolNames(); !slices.Contains(names, "ReadMediaFile") {
		t.Fatalf("first model's tools %v", names)
	}
	h.submit("/model lab/text-model")
	h.waitFor("model lab/text-model: the next answer comes from it")
	h.submit("two")
	h.waitFor("text only")
	if names := other.Requests()[0].ToolNames(); slices.Contains(names, "ReadMediaFile") {
		t.Fatalf("a model without image_in was offered ReadMediaFile: %v", names)
	}
}
