package llm_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm"
)

// rawServer answers every request with the given SSE body, as is.
func rawServer(t *testing.T, body string) *llm.Provider {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(hs.Close)
	p, err := llm.New(llm.Config{BaseURL: hs.URL, APIKey: "k", Model: "m", Stream: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWireVariants(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		content    string
		calls      string // "name:args;…"
		errLike    string
		temporary  bool
	}{
		{name: "keepalive comments, CRLF, no space after data:",
			body:    ": OPENROUTER PROCESSING\r\n\r\ndata:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\r\n\r\n: ping\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
			content: "hi"},
		{name: "finish_reason then EOF without [DONE] is complete",
			body:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n",
			content: "ok"},
		{name: "[DONE] without finish_reason is complete",
			body:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]",
			content: "ok"},
		{name: "OpenRouter reasoning field and usage inside the choice chunk",
			body:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"r\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\ndata: [DONE]\n\n",
			content: "a"},
		{name: "tool-call deltas without index continue the previous call",
			body: "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"Shell\",\"arguments\":\"{\\\"com\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"mand\\\":1}\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"c2\",\"function\":{\"name\":\"Glob\",\"arguments\":\"{}\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
			calls: `Shell:{"command":1};Glob:{};`},
		{name: "event: error",
			body:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\nevent: error\ndata: {\"message\":\"boom from upstream\",\"type\":\"server_error\"}\n\n",
			errLike: "boom from upstream", temporary: true},
		{name: "error next to other fields",
			body:    "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"error\":{\"message\":\"Provider returned error\",\"code\":502}}\n\n",
			errLike: "Provider returned error", temporary: true},
		{name: "bare JSON error line in a 200 stream",
			body:    "{\"error\":{\"message\":\"model not loaded\",\"type\":\"invalid_request_error\"}}\n",
			errLike: "model not loaded", temporary: false},
		{name: "no finish_reason and no [DONE]",
			body:    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n",
			errLike: "stream ended early", temporary: true},
		{name: "empty body",
			body:    "",
			errLike: "stream ended early", temporary: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := rawServer(t, c.body)
			var streamed strings.Builder
			resp, err := p.Chat(context.Background(), userReq("q"), llm.Callbacks{OnContent: func(s string) { streamed.WriteString(s) }})
			if c.errLike != "" {
				var e *llm.Error
				if !errors.As(err, &e) || !strings.Contains(e.Message, c.errLike) || e.Temporary != c.temporary {
					t.Fatalf("got %#v, want error like %q temporary=%v", err, c.errLike, c.temporary)
				}
				if strings.Contains(streamed.String(), c.errLike) {
					t.Fatal("error streamed as text")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content.PlainText() != c.content {
				t.Fatalf("content %q", resp.Message.Content.PlainText())
			}
			var calls strings.Builder
			for _, tc := range resp.Message.ToolCalls {
				calls.WriteString(tc.Name + ":" + tc.Args + ";")
			}
			if calls.String() != c.calls {
				t.Fatalf("calls %q, want %q", calls.String(), c.calls)
			}
			if strings.Contains(c.name, "usage") && (resp.Usage.TotalTokens != 5 || resp.Usage.Estimated || resp.Message.Content.Reasoning() != "r") {
				t.Fatalf("usage %+v reasoning %q", resp.Usage, resp.Message.Content.Reasoning())
			}
		})
	}
}

func TestJSONBodyToStreamingRequest(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"plain"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer hs.Close()
	p, err := llm.New(llm.Config{BaseURL: hs.URL, APIKey: "k", Model: "m", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Chat(context.Background(), userReq("q"), llm.Callbacks{})
	if err != nil || resp.Message.Content.Text != "plain" || resp.Usage.TotalTokens != 2 {
		t.Fatalf("%v %+v", err, resp)
	}
}

func TestNonJSONErrorBody(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>  gateway\n says no </html>", http.StatusForbidden)
	}))
	defer hs.Close()
	p, _ := llm.New(llm.Config{BaseURL: hs.URL, APIKey: "k", Model: "m"})
	_, err := p.Chat(context.Background(), userReq("q"), llm.Callbacks{})
	var e *llm.Error
	if !errors.As(err, &e) || e.Status != 403 || e.Message != "<html> gateway says no </html>" || e.Temporary {
		t.Fatalf("%#v", err)
	}
}
