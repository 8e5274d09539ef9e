package soul

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/shellenv"
	"github.com/rewind-agent/rewind/store/message"
)

const canaryKey = "sk-canary-5f1d0c9e7b"

func canaryRedactor() *shellenv.Redactor {
	return shellenv.NewRedactor([]shellenv.Secret{{Value: canaryKey, Placeholder: shellenv.APIKeyPlaceholder}})
}

// assertNoKeyAnywhere fails when the key is in an event, in the database
// file (or its WAL), or in a request sent to the model.
func (h *harness) assertNoKeyAnywhere() {
	h.t.Helper()
	h.mu.Lock()
	events := append([]Event(nil), h.events...)
	h.mu.Unlock()
	for _, e := range events {
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), canaryKey) {
			h.t.Errorf("event %s carries the key: %s", e.EventType(), b)
		}
	}
	for i, r := range h.srv.Requests() {
		if strings.Contains(string(r.Body), canaryKey) {
			h.t.Errorf("request %d sent the key to the model", i+1)
		}
	}
	db := filepath.Join(filepath.Dir(h.work), "rewind.db")
	for _, f := range []string{db, db + "-wal"} {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			h.t.Fatal(err)
		}
		if strings.Contains(string(data), canaryKey) {
			h.t.Errorf("%s holds the key", filepath.Base(f))
		}
	}
}

// TestToolOutputNeverCarriesTheKey: a Shell command that prints the key
// (from a file, and cut in two by a pause, as reading /proc/$PPID/environ
// may) shows, stores and sends it redacted.
func TestToolOutputNeverCarriesTheKey(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true, Redact: canaryRedactor()}},
		llmtest.Calls(shellCall("c1", `cat leak.txt; printf 'sk-canary-'; sleep 0.2; printf '5f1d0c9e7b\n'`)),
		llmtest.Text("done"),
	)
	if err := os.WriteFile(filepath.Join(h.work, "leak.txt"), []byte("OPENAI_API_KEY="+canaryKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.mustRun("print the key")
	var live strings.Builder
	for _, e := range h.eventsOf("ToolOutput") {
		live.WriteString(e.(ToolOutput).Text)
	}
	if want := "OPENAI_API_KEY=[API key redacted]\n[API key redacted]\n"; live.String() != want {
		t.Errorf("live output %q, want %q", live.String(), want)
	}
	if got, _ := h.srv.Requests()[1].Last("tool"); !strings.Contains(got.Content.PlainText(), "OPENAI_API_KEY=[API key redacted]") {
		t.Errorf("the model was sent %q", got.Content.PlainText())
	}
	h.assertNoKeyAnywhere()
}

// TestModelTextNeverCarriesTheKey: an answer, its reasoning and a tool
// call's arguments holding the key (streamed in 4-character deltas, so the
// key is cut across several) are shown, stored and run redacted; so is a
// prompt that holds it.
func TestModelTextNeverCarriesTheKey(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true, Redact: canaryRedactor()}},
		llmtest.Calls(shellCall("c1", "echo "+canaryKey+" > sent.txt")),
		llmtest.Text("Your key is "+canaryKey+".").WithReasoning("It is "+canaryKey),
	)
	h.mustRun("my key is " + canaryKey)
	var shown strings.Builder
	for _, e := range h.eventsOf("ContentPart") {
		shown.WriteString(e.(ContentPart).Text)
	}
	if shown.String() != "Your key is [API key redacted]." {
		t.Errorf("shown %q", shown.String())
	}
	data, err := os.ReadFile(filepath.Join(h.work, "sent.txt"))
	if err != nil || strings.Contains(string(data), canaryKey) {
		t.Errorf("the tool ran with the key: %q %v", data, err)
	}
	msgs := h.messages()
	if last := msgs[len(msgs)-1].Content.PlainText(); last != "Your key is [API key redacted]." {
		t.Errorf("stored answer %q", last)
	}
	h.assertNoKeyAnywhere()
}

// TestKeyStoredBeforeIsNotSent: a session that stored the key before
// redaction existed (an older rewind) never sends it to the model.
func TestKeyStoredBeforeIsNotSent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Redact: canaryRedactor()}}, llmtest.Text("ok"))
	if _, err := h.db.StartTurn(h.ctx, h.sid, false, message.NewText("user", "old prompt with "+canaryKey)); err != nil {
		t.Fatal(err)
	}
	h.mustRun("go on")
	if body := string(h.srv.Requests()[0].Body); strings.Contains(body, canaryKey) || !strings.Contains(body, "old prompt with [API key redacted]") {
		t.Errorf("request: %s", body)
	}
}

// TestHeldReasoningTailComesBeforeTheAnswer: reasoning that ends in what
// could start the key is held, and shown before the answer begins.
func TestHeldReasoningTailComesBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Redact: canaryRedactor()}},
		llmtest.Text("the answer").WithReasoning("thinking about sk-"))
	h.mustRun("hi")
	var reasoning strings.Builder
	sawContent := false
	for _, e := range h.events {
		switch ev := e.(type) {
		case ReasoningPart:
			if sawContent {
				t.Errorf("reasoning %q after the answer began", ev.Text)
			}
			reasoning.WriteString(ev.Text)
		case ContentPart:
			sawContent = true
		}
	}
	if reasoning.String() != "thinking about sk-" {
		t.Errorf("reasoning shown %q", reasoning.String())
	}
}
