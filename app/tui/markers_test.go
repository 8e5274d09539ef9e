package tui

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/views"
)

// TestSoulMarkersShowAsTheirKind drives the real soul through a failing
// tool call, a D-Mail and a compaction, then converts every generation it
// left in the store. The UI must label each thing the soul wrote by what it
// is: a reworded prompt or error prefix that the UI did not follow would
// show up here as a user prompt or a successful call.
func TestSoulMarkersShowAsTheirKind(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{mutate: func(o *Options) { o.Soul.Yolo = true }},
		llmtest.Calls(llmtest.Call("r1", "ReadFile", map[string]any{"path": "missing.txt"})),
		llmtest.Text("There is no missing.txt."),
		llmtest.Calls(llmtest.Call("d1", "SendDMail", map[string]any{"message": "skip the flaky test", "checkpoint_id": 0})),
		llmtest.Text("Starting over as my future self said."),
		llmtest.Text("third answer"),
		llmtest.Text("fourth answer"),
		llmtest.Text("SUMMARY: the user asked four times."))
	h.submit("read missing.txt")
	h.waitUntil("the first run to end", h.idle)
	h.submit("go back in time")
	h.waitFor("[k] Keep") // the D-Mail discarded prompts: keep it
	h.typeText("k", false)
	h.waitGone("[k] Keep")
	h.waitUntil("the second run to end", h.idle)
	for _, p := range []string{"three", "four"} {
		h.submit(p)
		h.waitUntil("the run to end", h.idle)
	}
	h.submit("/compact")
	h.waitUntil("compaction to end", h.idle)

	gens, err := h.db.Generations(h.ctx, h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range gens {
		v, err := h.db.GenerationView(h.ctx, h.sessionID(), g.Gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range viewItems(v) {
			switch it.Kind {
			case views.ItemUser:
				got = append(got, "user: "+it.Text)
			case views.ItemBanner:
				got = append(got, "banner: "+strings.SplitN(it.Text, "\n", 2)[0])
			case views.ItemTool:
				if it.ToolName == "ReadFile" {
					got = append(got, map[views.ToolStatus]string{views.ToolOK: "ReadFile ok", views.ToolFailed: "ReadFile failed"}[it.Status])
				}
			}
		}
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"ReadFile failed",
		"banner: D-Mail from the future: skip the flaky test",
		"banner: Compacted context — the earlier conversation (kept in an archived generation) is summarised:",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among the items:\n%s", want, all)
		}
	}
	for _, line := range got {
		if strings.HasPrefix(line, "user: ") && strings.Contains(line, "<system>") {
			t.Errorf("soul-written text shown as a user prompt: %q", line)
		}
	}
}
