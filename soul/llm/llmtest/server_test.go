package llmtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

func post(t *testing.T, s *llmtest.Server, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestScriptMatchesLastUserOrToolMessage(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer(t)
	sc := llmtest.NewScript().
		On("write", llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]string{"path": "a"})), llmtest.Text("again")).
		On("Wrote", llmtest.Text("done")).
		Otherwise(llmtest.Text("?"))
	s.Handle(sc.Reply)
	msgs := func(ms ...message.Message) string {
		b, _ := json.Marshal(map[string]any{"model": "m", "messages": ms})
		return string(b)
	}
	_, body := post(t, s, msgs(message.NewText("user", "please write a")))
	if !strings.Contains(body, `"name":"WriteFile"`) || !strings.Contains(body, `"arguments":"{\"path\":\"a\"}"`) {
		t.Fatalf("first: %s", body)
	}
	_, body = post(t, s, msgs(message.NewText("user", "please write a"), message.Message{Role: "tool", ToolCallID: "c1", Content: message.TextContent("Wrote a")}))
	if !strings.Contains(body, `"content":"done"`) {
		t.Fatalf("tool turn: %s", body)
	}
	for i := 0; i < 2; i++ { // the last reply of a rule repeats
		_, body = post(t, s, msgs(message.NewText("user", "write more")))
		if !strings.Contains(body, `"content":"again"`) {
			t.Fatalf("repeat %d: %s", i, body)
		}
	}
	_, body = post(t, s, msgs(message.NewText("user", "hello")))
	if !strings.Contains(body, `"content":"?"`) {
		t.Fatalf("otherwise: %s", body)
	}
	reqs := s.Requests()
	if len(reqs) != 5 || reqs[1].LastText() != "Wrote a" || reqs[1].Messages[1].ToolCallID != "c1" {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestQueueBeforeHandlerAndNoReply(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer(t)
	s.Enqueue(llmtest.Text("queued"))
	_, body := post(t, s, `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	if !strings.Contains(body, "queued") || s.Pending() != 0 {
		t.Fatalf("%s", body)
	}
	resp, body := post(t, s, `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	if resp.StatusCode != 400 || !strings.Contains(body, "no reply scripted") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, _ = post(t, s, `not json`)
	if resp.StatusCode != 400 {
		t.Fatalf("bad JSON: %d", resp.StatusCode)
	}
}

func TestStreamWireShape(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer(t)
	s.Enqueue(llmtest.Text("héllo wörld").WithReasoning("hm").WithUsage(3, 4))
	resp, body := post(t, s, `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := strings.Split(strings.TrimSpace(body), "\n\n")
	if events[len(events)-1] != "data: [DONE]" {
		t.Fatalf("last event %q", events[len(events)-1])
	}
	var text, reasoning strings.Builder
	var finish string
	var usage int
	for _, ev := range events[:len(events)-1] {
		var c struct {
			Choices []struct {
				Delta struct {
					Content          string `json:"content"`
					ReasoningContent string `json:"reasoning_content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(ev, "data: ")), &c); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
			reasoning.WriteString(ch.Delta.ReasoningContent)
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			usage = c.Usage.TotalTokens
		}
	}
	if text.String() != "héllo wörld" || reasoning.String() != "hm" || finish != "stop" || usage != 7 {
		t.Fatalf("text %q reasoning %q finish %q usage %d", text.String(), reasoning.String(), finish, usage)
	}
	if !s.Requests()[0].IncludeUsage {
		t.Fatal("include_usage not recorded")
	}
}

func TestErrorReply(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer(t)
	s.Enqueue(llmtest.HTTPError(429, "slow down").WithRetryAfter("7"))
	resp, body := post(t, s, `{"model":"m","messages":[]}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || !strings.Contains(body, `"message":"slow down"`) || !strings.Contains(body, "rate_limit_error") {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
	}
}
