package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store/message"
)

// thinkingBody is what a request body says about thinking.
type thinkingBody struct {
	ReasoningEffort *string         `json:"reasoning_effort"`
	Thinking        json.RawMessage `json:"thinking"`
}

func thinkingProvider(t *testing.T, srv *llmtest.Server, style llm.ThinkingStyle) *llm.Provider {
	t.Helper()
	p, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "sk-thinking-test", Model: "m", Stream: true, MaxRetries: -1, ThinkingStyle: style})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestThinkingBodyPerStyle(t *testing.T) {
	t.Parallel()
	cases := []struct {
		style    llm.ThinkingStyle
		effort   llm.Effort
		effort2  string // reasoning_effort sent, "" = absent
		thinking string // thinking field sent, "" = absent
	}{
		{llm.StyleOpenAI, llm.EffortHigh, "high", ""},
		{llm.StyleOpenAI, llm.EffortLow, "low", ""},
		{llm.StyleOpenAI, llm.EffortOff, "", ""},
		{llm.StyleOpenAI, "", "", ""},
		{"", llm.EffortMedium, "medium", ""},
		{llm.StyleKimi, llm.EffortHigh, "", `{"type":"enabled"}`},
		{llm.StyleKimi, llm.EffortOff, "", `{"type":"disabled"}`},
		{llm.StyleKimi, "", "", `{"type":"disabled"}`},
		{llm.StyleNone, llm.EffortHigh, "", ""},
		{llm.StyleNone, llm.EffortOff, "", ""},
	}
	for _, tc := range cases {
		t.Run(string(tc.style)+"/"+string(tc.effort), func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Text("ok"))
			p := thinkingProvider(t, srv, tc.style)
			req := userReq("hi")
			req.Thinking = tc.effort
			if _, err := p.Chat(context.Background(), req, llm.Callbacks{}); err != nil {
				t.Fatal(err)
			}
			var b thinkingBody
			if err := json.Unmarshal(srv.Requests()[0].Body, &b); err != nil {
				t.Fatal(err)
			}
			got := ""
			if b.ReasoningEffort != nil {
				got = *b.ReasoningEffort
			}
			if got != tc.effort2 {
				t.Errorf("reasoning_effort = %q, want %q", got, tc.effort2)
			}
			if string(b.Thinking) != tc.thinking {
				t.Errorf("thinking = %s, want %s", b.Thinking, tc.thinking)
			}
		})
	}
}

func TestRejectedThinkingNamesTheSetting(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(http.StatusBadRequest, "Unrecognized request argument supplied: reasoning_effort"))
	p := thinkingProvider(t, srv, llm.StyleOpenAI)
	req := userReq("hi")
	req.Thinking = llm.EffortHigh
	_, err := p.Chat(context.Background(), req, llm.Callbacks{})
	var e *llm.Error
	if !errors.As(err, &e) || e.Rejected != llm.CapThinking {
		t.Fatalf("err = %v, want a rejected-thinking *llm.Error", err)
	}
	for _, want := range []string{"thinking", "/thinking off", "thinking_style"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("error %q does not mention %q", e.Error(), want)
		}
	}
	if strings.Contains(e.Error(), "\n") {
		t.Errorf("error is not one line: %q", e.Error())
	}
}

func TestRejectedImageNamesTheCapability(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(http.StatusBadRequest, "Invalid content type. image_url is only supported by certain models."))
	p := thinkingProvider(t, srv, llm.StyleNone)
	img := message.Message{Role: "user", Content: message.Content{Parts: []message.Part{
		{Type: "text", Text: "what is this"},
		{Type: "image_url", Raw: json.RawMessage(`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}`)},
	}}}
	_, err := p.Chat(context.Background(), llm.Request{Messages: []message.Message{img}}, llm.Callbacks{})
	var e *llm.Error
	if !errors.As(err, &e) || e.Rejected != llm.CapImageIn || !strings.Contains(e.Error(), "image_in") {
		t.Fatalf("err = %v, want a rejected-image *llm.Error naming image_in", err)
	}
}

func TestAnUnrelatedBadRequestIsNotACapability(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(http.StatusBadRequest, "messages: too many tokens"))
	p := thinkingProvider(t, srv, llm.StyleKimi)
	_, err := p.Chat(context.Background(), userReq("hi"), llm.Callbacks{})
	var e *llm.Error
	if !errors.As(err, &e) || e.Rejected != "" {
		t.Fatalf("err = %v, want a plain *llm.Error", err)
	}
}

func TestParseEffort(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]llm.Effort{"off": llm.EffortOff, "HIGH": llm.EffortHigh, " medium ": llm.EffortMedium, "low": llm.EffortLow} {
		if got, err := llm.ParseEffort(in); err != nil || got != want {
			t.Errorf("ParseEffort(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := llm.ParseEffort("max"); err == nil {
		t.Error("ParseEffort(max) accepted")
	}
}
