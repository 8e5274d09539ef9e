package llm_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	stdpng "image/png"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// recorder collects callbacks.
type recorder struct {
	mu        sync.Mutex
	content   strings.Builder
	reasoning strings.Builder
	deltas    []delta
	retries   []retry
}

type delta struct {
	index          int
	id, name, args string
}

type retry struct {
	attempt, max int
	wait         time.Duration
	reason       string
}

func (r *recorder) callbacks() llm.Callbacks {
	return llm.Callbacks{
		OnContent:   func(s string) { r.mu.Lock(); r.content.WriteString(s); r.mu.Unlock() },
		OnReasoning: func(s string) { r.mu.Lock(); r.reasoning.WriteString(s); r.mu.Unlock() },
		OnToolCallDelta: func(i int, id, name, args string) {
			r.mu.Lock()
			r.deltas = append(r.deltas, delta{i, id, name, args})
			r.mu.Unlock()
		},
		OnRetry: func(a, m int, w time.Duration, reason string) {
			r.mu.Lock()
			r.retries = append(r.retries, retry{a, m, w, reason})
			r.mu.Unlock()
		},
	}
}

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// newProvider returns a provider for srv whose backoff waits are recorded,
// not slept, and whose jitter is fixed at 0 (wait = half the nominal).
func newProvider(t *testing.T, srv *llmtest.Server, stream bool) (*llm.Provider, *sleeps) {
	t.Helper()
	p, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "test-key", Model: "m1", Stream: stream})
	if err != nil {
		t.Fatal(err)
	}
	sl := &sleeps{}
	llm.SetTestHooks(p, sl.sleep, func() float64 { return 0 }, 0)
	return p, sl
}

func userReq(text string) llm.Request {
	return llm.Request{Messages: []message.Message{message.NewText("system", "be brief"), message.NewText("user", text)}}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	_, err := llm.New(llm.Config{Model: "m"})
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") || !strings.Contains(err.Error(), "KIMI_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
	_, err = llm.New(llm.Config{APIKey: "k"})
	if err == nil || !strings.Contains(err.Error(), "REWIND_MODEL") || !strings.Contains(err.Error(), "--model") {
		t.Fatalf("missing model: %v", err)
	}
	_, err = llm.New(llm.Config{APIKey: "k", Model: "m", BaseURL: "localhost:8080"})
	if err == nil {
		t.Fatal("bad base URL accepted")
	}
	p, err := llm.New(llm.Config{APIKey: "k", Model: "m"})
	if err != nil || p.Model() != "m" {
		t.Fatalf("New: %v", err)
	}
}

func TestStreamText(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("Hello, world! This is streamed.").WithUsage(11, 7))
	p, _ := newProvider(t, srv, true)
	var rec recorder
	resp, err := p.Chat(context.Background(), userReq("hi"), rec.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.Content.Text; got != "Hello, world! This is streamed." || resp.Message.Content.Parts != nil {
		t.Fatalf("content %q parts %v", got, resp.Message.Content.Parts)
	}
	if resp.Message.Role != "assistant" || resp.FinishReason != "stop" {
		t.Fatalf("role %q finish %q", resp.Message.Role, resp.FinishReason)
	}
	if rec.content.String() != "Hello, world! This is streamed." {
		t.Fatalf("callbacks saw %q", rec.content.String())
	}
	if resp.Usage != (llm.Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].Stream || !reqs[0].IncludeUsage || reqs[0].Model != "m1" {
		t.Fatalf("request %+v", reqs)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer test-key" {
		t.Fatalf("auth header %q", got)
	}
	if len(reqs[0].Messages) != 2 || reqs[0].Messages[1].Content.Text != "hi" {
		t.Fatalf("messages sent %+v", reqs[0].Messages)
	}
}

func TestStreamReasoningKeptAsThinkPart(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("The answer is 4.").WithReasoning("2+2 is 4, obviously."))
	p, _ := newProvider(t, srv, true)
	var rec recorder
	resp, err := p.Chat(context.Background(), userReq("2+2?"), rec.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Message.Content
	if c.Reasoning() != "2+2 is 4, obviously." || c.PlainText() != "The answer is 4." {
		t.Fatalf("reasoning %q text %q", c.Reasoning(), c.PlainText())
	}
	if len(c.Parts) != 2 || c.Parts[0].Type != "think" {
		t.Fatalf("parts %+v", c.Parts)
	}
	if rec.reasoning.String() != "2+2 is 4, obviously." {
		t.Fatalf("OnReasoning saw %q", rec.reasoning.String())
	}
	// The stored message round-trips as kimi-cli JSON.
	b, err := json.Marshal(resp.Message)
	if err != nil || !strings.Contains(string(b), `{"type":"think","think":"2+2 is 4, obviously."}`) {
		t.Fatalf("stored form %s (%v)", b, err)
	}
	// Sending it back: reasoning goes as reasoning_content, never as content.
	srv.Enqueue(llmtest.Text("ok"))
	next := userReq("2+2?")
	next.Messages = append(next.Messages, resp.Message, message.NewText("user", "and 3+3?"))
	if _, err := p.Chat(context.Background(), next, llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[1]
	am := sent.Messages[2]
	if am.Content.Text != "The answer is 4." || strings.Contains(am.Content.Text, "obviously") {
		t.Fatalf("assistant content sent %+v", am.Content)
	}
	var rc string
	if err := json.Unmarshal(am.Extra["reasoning_content"], &rc); err != nil || rc != "2+2 is 4, obviously." {
		t.Fatalf("reasoning_content sent %q (%v)", am.Extra["reasoning_content"], err)
	}
}

func TestReasoningContentRejectedFallsBack(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(400, "reasoning_content is not allowed in messages"), llmtest.Text("ok"), llmtest.Text("ok2"))
	p, _ := newProvider(t, srv, true)
	req := userReq("x")
	req.Messages = append(req.Messages, message.Message{Role: "assistant", Content: message.Content{Parts: []message.Part{{Type: "think", Think: "hmm"}, {Type: "text", Text: "y"}}}}, message.NewText("user", "z"))
	var rec recorder
	if _, err := p.Chat(context.Background(), req, rec.callbacks()); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(context.Background(), req, rec.callbacks()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || len(rec.retries) != 0 {
		t.Fatalf("%d requests, %d retries", len(reqs), len(rec.retries))
	}
	for i, want := range []bool{true, false, false} {
		_, has := reqs[i].Messages[2].Extra["reasoning_content"]
		if has != want {
			t.Fatalf("request %d: reasoning_content present %v, want %v", i, has, want)
		}
	}
}

func TestStreamMultipleToolCallsByIndex(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	args0 := `{"path":"main.go","line_offset":1,"n_lines":200}`
	args1 := `{"command":"go test ./... && echo done","timeout":60}`
	args2 := `{"pattern":"**/*.go"}`
	srv.Enqueue(llmtest.Reply{
		Content:   "Let me look.",
		ToolCalls: []llmtest.ToolCall{llmtest.Call("call_a", "ReadFile", args0), llmtest.Call("call_b", "Shell", args1), llmtest.Call("call_c", "Glob", args2)},
		ChunkSize: 3,
	}.WithUsage(100, 40))
	p, _ := newProvider(t, srv, true)
	var rec recorder
	req := userReq("look around")
	req.Tools = []llm.ToolSpec{{Name: "ReadFile", Description: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "Shell"}}
	resp, err := p.Chat(context.Background(), req, rec.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls
	want := []message.ToolCall{{ID: "call_a", Type: "function", Name: "ReadFile", Args: args0}, {ID: "call_b", Type: "function", Name: "Shell", Args: args1}, {ID: "call_c", Type: "function", Name: "Glob", Args: args2}}
	if len(calls) != 3 {
		t.Fatalf("calls %+v", calls)
	}
	for i := range want {
		if calls[i].ID != want[i].ID || calls[i].Name != want[i].Name || calls[i].Args != want[i].Args || calls[i].Type != "function" {
			t.Fatalf("call %d = %+v, want %+v", i, calls[i], want[i])
		}
	}
	if resp.FinishReason != "tool_calls" || resp.Message.Content.PlainText() != "Let me look." {
		t.Fatalf("finish %q content %q", resp.FinishReason, resp.Message.Content.PlainText())
	}
	// The deltas really were interleaved, and reassemble per index.
	args := map[int]string{}
	ids := map[int]string{}
	switches := 0
	for i, d := range rec.deltas {
		args[d.index] += d.args
		if d.id != "" {
			ids[d.index] = d.id
		}
		if i > 0 && rec.deltas[i-1].index != d.index {
			switches++
		}
	}
	if args[0] != args0 || args[1] != args1 || args[2] != args2 || ids[0] != "call_a" || ids[2] != "call_c" {
		t.Fatalf("deltas reassembled %v %v", args, ids)
	}
	if switches < 6 {
		t.Fatalf("deltas not interleaved (%d switches)", switches)
	}
	sent := srv.Requests()[0]
	if got := sent.ToolNames(); len(got) != 2 || got[0] != "ReadFile" || got[1] != "Shell" {
		t.Fatalf("tools sent %v", got)
	}
	if string(sent.Tools[1].Parameters) != `{"type":"object","properties":{}}` {
		t.Fatalf("default parameters %s", sent.Tools[1].Parameters)
	}
}

func TestToolRoundTripSent(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("done"))
	p, _ := newProvider(t, srv, true)
	req := userReq("write it")
	req.Messages = append(req.Messages,
		message.Message{Role: "assistant", Content: message.Content{IsNull: true}, ToolCalls: []message.ToolCall{{ID: "c1", Type: "function", Name: "WriteFile", Args: `{"path":"a"}`}}},
		message.Message{Role: "tool", ToolCallID: "c1", Name: "WriteFile", Content: message.TextContent("Wrote a")})
	if _, err := p.Chat(context.Background(), req, llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	m := srv.Requests()[0].Messages
	if len(m) != 4 || len(m[2].ToolCalls) != 1 || m[2].ToolCalls[0].Args != `{"path":"a"}` || m[2].ToolCalls[0].ID != "c1" {
		t.Fatalf("assistant sent %+v", m[2])
	}
	if m[3].Role != "tool" || m[3].ToolCallID != "c1" || m[3].Name != "WriteFile" || m[3].Content.Text != "Wrote a" {
		t.Fatalf("tool result sent %+v", m[3])
	}
}

func TestUsageAbsentIsEstimated(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text(strings.Repeat("word ", 100)))
	p, _ := newProvider(t, srv, true)
	req := userReq(strings.Repeat("x", 400))
	resp, err := p.Chat(context.Background(), req, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	u := resp.Usage
	if !u.Estimated || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Fatalf("usage %+v", u)
	}
	// 400 bytes ≈ 100 tokens of prompt, 500 bytes ≈ 125 of completion.
	if u.PromptTokens < 100 || u.PromptTokens > 130 || u.CompletionTokens < 125 || u.CompletionTokens > 140 {
		t.Fatalf("estimate out of range: %+v", u)
	}
}

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	if llm.EstimateTokens(nil) != 0 {
		t.Fatal("empty")
	}
	one := llm.EstimateTokens([]message.Message{message.NewText("user", strings.Repeat("a", 396))})
	// 4 bytes of role + 396 = 400 bytes = 100 tokens, + 4 overhead + 3 priming.
	if one != 107 {
		t.Fatalf("got %d", one)
	}
	withCall := llm.EstimateTokens([]message.Message{{Role: "assistant", ToolCalls: []message.ToolCall{{ID: "c", Name: "Shell", Args: strings.Repeat("b", 100)}}}})
	if withCall < 30 {
		t.Fatalf("tool call args not counted: %d", withCall)
	}
}

// TestEstimateTokensCountsImages: an image costs what a model bills for
// it, not the zero bytes of its text (a session of screenshots reached its
// context limit with the estimate far below it).
func TestEstimateTokensCountsImages(t *testing.T) {
	t.Parallel()
	var png bytes.Buffer
	if err := stdpng.Encode(&png, image.NewGray(image.Rect(0, 0, 1024, 1024))); err != nil {
		t.Fatal(err)
	}
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png.Bytes())
	parts := message.ImageParts("pic.png", url)
	withImage := message.Message{Role: "user", Content: message.Content{Parts: parts}}
	text := message.Message{Role: "user", Content: message.Content{Parts: []message.Part{parts[0], parts[2]}}}
	got := llm.EstimateTokens([]message.Message{withImage}) - llm.EstimateTokens([]message.Message{text})
	// 1024² → 768² → 2×2 tiles of 512: 4×170 + 85, as OpenAI bills it.
	if got != 765 {
		t.Fatalf("a 1024×1024 image adds %d tokens to the estimate; want 765", got)
	}
}

func TestNonStreamingWithToolCalls(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Content: "Reading.", Reasoning: "need the file", ToolCalls: []llmtest.ToolCall{llmtest.Call("c1", "ReadFile", `{"path":"x"}`), llmtest.Call("c2", "Glob", `{"pattern":"*`)}}.WithUsage(50, 10))
	p, _ := newProvider(t, srv, false)
	var rec recorder
	resp, err := p.Chat(context.Background(), userReq("read"), rec.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests()[0].Stream || srv.Requests()[0].HasStreamOptions {
		t.Fatal("non-streaming request asked to stream")
	}
	calls := resp.Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "c1" || calls[1].Args != `{"pattern":"*` {
		t.Fatalf("calls %+v", calls)
	}
	if resp.Usage != (llm.Usage{PromptTokens: 50, CompletionTokens: 10, TotalTokens: 60}) || resp.FinishReason != "tool_calls" {
		t.Fatalf("usage %+v finish %q", resp.Usage, resp.FinishReason)
	}
	if resp.Message.Content.Reasoning() != "need the file" || resp.Message.Content.PlainText() != "Reading." {
		t.Fatalf("content %+v", resp.Message.Content)
	}
	if rec.content.String() != "Reading." || len(rec.deltas) != 2 {
		t.Fatalf("callbacks content %q deltas %v", rec.content.String(), rec.deltas)
	}
}

func TestStreamOptionsRejectedFallsBack(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.RejectStreamOptions(true)
	srv.Enqueue(llmtest.Text("one").WithUsage(5, 1), llmtest.Text("two"))
	p, _ := newProvider(t, srv, true)
	var rec recorder
	resp, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
	if err != nil || resp.Message.Content.Text != "one" {
		t.Fatalf("%v %+v", err, resp)
	}
	if !resp.Usage.Estimated {
		t.Fatalf("usage without include_usage should be estimated: %+v", resp.Usage)
	}
	if _, err := p.Chat(context.Background(), userReq("b"), rec.callbacks()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !reqs[0].HasStreamOptions || reqs[1].HasStreamOptions || reqs[2].HasStreamOptions {
		t.Fatalf("want rejected, retried without, remembered; got %d requests", len(reqs))
	}
	if len(rec.retries) != 0 {
		t.Fatalf("fallback counted as retry: %+v", rec.retries)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(429, "rate limited, slow down").WithRetryAfter("2"), llmtest.Text("ok"))
	p, sl := newProvider(t, srv, true)
	var rec recorder
	resp, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
	if err != nil || resp.Message.Content.Text != "ok" {
		t.Fatalf("%v %+v", err, resp)
	}
	if len(rec.retries) != 1 || rec.retries[0].wait != 2*time.Second || rec.retries[0].attempt != 1 || rec.retries[0].max != 3 {
		t.Fatalf("retries %+v", rec.retries)
	}
	if !strings.Contains(rec.retries[0].reason, "429") || !strings.Contains(rec.retries[0].reason, "rate limited") {
		t.Fatalf("reason %q", rec.retries[0].reason)
	}
	if len(sl.d) != 1 || sl.d[0] != 2*time.Second {
		t.Fatalf("slept %v", sl.d)
	}
}

func TestRetryAfterRealWait(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(503, "busy").WithRetryAfter("0.15"), llmtest.Text("ok"))
	p, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", Stream: true, InitialBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := p.Chat(context.Background(), userReq("a"), llm.Callbacks{}); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Fatalf("Retry-After 0.15 s not waited: %v", el)
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := map[string]time.Duration{
		"":    0,
		"3":   3 * time.Second,
		"0.5": 500 * time.Millisecond,
		"-1":  0,
		"abc": 0,
		"999": llm.MaxRetryAfter,
		now.Add(10 * time.Second).Format(http.TimeFormat): 10 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
		now.Add(time.Hour).Format(http.TimeFormat):        llm.MaxRetryAfter,
	}
	for in, want := range cases {
		if got := llm.ParseRetryAfter(in, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestBackoffExponentialCappedJittered(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	p, _ := newProvider(t, srv, true)
	// jitter 0: half the nominal wait.
	want := []time.Duration{150 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond, 2400 * time.Millisecond, 2500 * time.Millisecond, 2500 * time.Millisecond}
	for i, w := range want {
		if got := p.Backoff(i, 0); got != w {
			t.Errorf("attempt %d: %v, want %v", i, got, w)
		}
	}
	llm.SetTestHooks(p, nil, func() float64 { return 0.999999 }, 0)
	if got := p.Backoff(0, 0); got < 299*time.Millisecond || got > 300*time.Millisecond {
		t.Errorf("max jitter attempt 0: %v", got)
	}
	if got := p.Backoff(10, 0); got > 5*time.Second || got < 4990*time.Millisecond {
		t.Errorf("max jitter capped: %v", got)
	}
	if got := p.Backoff(0, 7*time.Second); got != 7*time.Second {
		t.Errorf("retry-after: %v", got)
	}
}

func TestServerErrorsRetryThenSucceed(t *testing.T) {
	t.Parallel()
	for _, status := range []int{408, 429, 500, 502, 503, 504, 520, 529} {
		srv := llmtest.NewServer(t)
		srv.Enqueue(llmtest.HTTPError(status, "transient"), llmtest.HTTPError(status, "transient"), llmtest.Text("ok"))
		p, sl := newProvider(t, srv, true)
		var rec recorder
		resp, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
		if err != nil || resp.Message.Content.Text != "ok" {
			t.Fatalf("status %d: %v", status, err)
		}
		if len(rec.retries) != 2 || rec.retries[1].attempt != 2 || len(sl.d) != 2 || sl.d[0] != 150*time.Millisecond || sl.d[1] != 300*time.Millisecond {
			t.Fatalf("status %d: retries %+v sleeps %v", status, rec.retries, sl.d)
		}
	}
}

func TestExhaustion(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	for i := 0; i < 4; i++ {
		srv.Enqueue(llmtest.HTTPError(503, "overloaded, try later"))
	}
	p, _ := newProvider(t, srv, true)
	var rec recorder
	_, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
	var e *llm.Error
	if !errors.As(err, &e) || !e.Temporary || !e.Exhausted || e.Status != 503 || e.Message != "overloaded, try later" {
		t.Fatalf("got %#v", err)
	}
	if len(srv.Requests()) != 4 || len(rec.retries) != 3 {
		t.Fatalf("%d requests, %d retries", len(srv.Requests()), len(rec.retries))
	}
	if !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("message %q", err)
	}
	// The last retry status and the final error count the same things.
	last := rec.retries[len(rec.retries)-1]
	if last.attempt != 3 || last.max != 3 || e.Retries() != 3 || !strings.Contains(err.Error(), "gave up after 3 retries") {
		t.Fatalf("last retry %d/%d, error %q (Retries %d)", last.attempt, last.max, err, e.Retries())
	}
}

func TestClientErrorsFailAtOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status int
		msg    string
	}{{400, "messages[3]: tool_call_id c9 has no matching call"}, {401, "Invalid API key provided"}, {404, "model m1 does not exist"}, {403, "forbidden region"}} {
		srv := llmtest.NewServer(t)
		srv.Enqueue(llmtest.HTTPError(c.status, c.msg), llmtest.Text("never"))
		p, _ := newProvider(t, srv, true)
		var rec recorder
		_, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
		var e *llm.Error
		if !errors.As(err, &e) || e.Temporary || e.Exhausted || e.Status != c.status || e.Message != c.msg {
			t.Fatalf("status %d: got %#v", c.status, err)
		}
		if len(srv.Requests()) != 1 || len(rec.retries) != 0 {
			t.Fatalf("status %d retried", c.status)
		}
	}
}

// failureCase runs one failing reply followed by a good one and checks the
// failure was retried with a reason containing want.
func failureCase(t *testing.T, stream bool, bad llmtest.Reply, want string) {
	t.Helper()
	srv := llmtest.NewServer(t)
	srv.Enqueue(bad, llmtest.Text("recovered"))
	p, _ := newProvider(t, srv, stream)
	var rec recorder
	resp, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
	if err != nil {
		t.Fatalf("not recovered: %v", err)
	}
	if resp.Message.Content.Text != "recovered" {
		t.Fatalf("content %q (partial output leaked?)", resp.Message.Content.Text)
	}
	if len(rec.retries) != 1 || !strings.Contains(rec.retries[0].reason, want) {
		t.Fatalf("retries %+v, want reason with %q", rec.retries, want)
	}
}

func TestConnectionReset(t *testing.T) {
	t.Parallel()
	failureCase(t, true, llmtest.Reset(3), "reading stream")
	failureCase(t, true, llmtest.Reset(0), "")
	failureCase(t, false, llmtest.Reset(0), "")
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	url := srv.URL()
	srv.Close()
	p, err := llm.New(llm.Config{BaseURL: url, APIKey: "k", Model: "m", Stream: true, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	sl := &sleeps{}
	llm.SetTestHooks(p, sl.sleep, nil, 0)
	_, err = p.Chat(context.Background(), userReq("a"), llm.Callbacks{})
	var e *llm.Error
	if !errors.As(err, &e) || !e.Temporary || !e.Exhausted || !strings.Contains(e.Message, "refused") || len(sl.d) != 2 {
		t.Fatalf("got %v (sleeps %v)", err, sl.d)
	}
}

func TestTruncatedStream(t *testing.T) {
	t.Parallel()
	failureCase(t, true, llmtest.Truncated(4), "stream ended early")
	failureCase(t, false, llmtest.Truncated(0), "reading response")
}

func TestInStreamError(t *testing.T) {
	t.Parallel()
	failureCase(t, true, llmtest.StreamError(3, "upstream overloaded", "server_error", nil), "upstream overloaded")
	failureCase(t, true, llmtest.StreamError(0, "rate limit hit", "", 429), "rate limit hit")
	failureCase(t, false, llmtest.StreamError(0, "upstream overloaded", "server_error", nil), "upstream overloaded")

	// A permanent in-stream error fails at once with the server's message.
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.StreamError(2, "content policy violation", "invalid_request_error", "content_filter"), llmtest.Text("never"))
	p, _ := newProvider(t, srv, true)
	var rec recorder
	_, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
	var e *llm.Error
	if !errors.As(err, &e) || e.Temporary || !strings.Contains(e.Message, "content policy violation") || len(rec.retries) != 0 {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(rec.content.String(), "content policy") {
		t.Fatal("error delivered as text")
	}
}

func TestMalformedChunk(t *testing.T) {
	t.Parallel()
	failureCase(t, true, llmtest.Malformed(2), "malformed chunk")
	failureCase(t, false, llmtest.Malformed(0), "malformed JSON response")
}

func TestEmptyResponseRetried(t *testing.T) {
	t.Parallel()
	failureCase(t, true, llmtest.Empty(), "empty response")
	failureCase(t, false, llmtest.Empty(), "empty response")
	failureCase(t, true, llmtest.Empty().WithReasoning("I thought but said nothing"), "empty response")
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Hang(3))
	p, _ := newProvider(t, srv, true)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan struct{}, 1)
	cb := llm.Callbacks{OnContent: func(string) {
		select {
		case got <- struct{}{}:
		default:
		}
	}}
	type result struct {
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		_, err := p.Chat(ctx, userReq("a"), cb)
		done <- result{err, time.Now()}
	}()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("no content streamed")
	}
	cancelled := time.Now()
	cancel()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("err %v", r.err)
		}
		if d := r.at.Sub(cancelled); d > 500*time.Millisecond {
			t.Fatalf("returned %v after cancel", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Chat did not return after cancel")
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.HTTPError(429, "slow").WithRetryAfter("30"))
	p, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cb := llm.Callbacks{OnRetry: func(int, int, time.Duration, string) { cancel() }}
	start := time.Now()
	_, err = p.Chat(ctx, userReq("a"), cb)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

func TestStalledStreamTimesOut(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Hang(2), llmtest.Text("ok"))
	p, _ := newProvider(t, srv, true)
	llm.SetTestHooks(p, nil, nil, 100*time.Millisecond)
	var rec recorder
	resp, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
	if err != nil || resp.Message.Content.Text != "ok" {
		t.Fatalf("%v", err)
	}
	if len(rec.retries) != 1 || !strings.Contains(rec.retries[0].reason, "stalled") {
		t.Fatalf("retries %+v", rec.retries)
	}
}

// TestHTMLPageIsNotTheAPI: a 200 web page (base URL pointing at a site)
// fails at once, saying so, in both modes; it is not retried as if the
// server were unreachable.
func TestHTMLPageIsNotTheAPI(t *testing.T) {
	for _, stream := range []bool{true, false} {
		srv := llmtest.NewServer(t)
		srv.Enqueue(llmtest.HTMLPage("Welcome to nginx!"), llmtest.Text("never"))
		p, _ := newProvider(t, srv, stream)
		var rec recorder
		_, err := p.Chat(context.Background(), userReq("a"), rec.callbacks())
		var e *llm.Error
		if !errors.As(err, &e) || !e.HTML || e.Temporary || len(rec.retries) != 0 {
			t.Fatalf("stream=%v: got %#v, %d retries", stream, err, len(rec.retries))
		}
		if !strings.Contains(e.Message, "HTML page") || !strings.Contains(e.Message, "Welcome to nginx!") {
			t.Errorf("stream=%v: message %q", stream, e.Message)
		}
	}
}

// TestNoNetworkWithDefaultBaseURL: with no base URL set and no network, the
// error says which host could not be looked up and how to point elsewhere.
func TestNoNetworkWithDefaultBaseURL(t *testing.T) {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "api.openai.com", IsNotFound: true}}
	}
	p, err := llm.New(llm.Config{APIKey: "sk-test-key", Model: "m", MaxRetries: -1, HTTPClient: &http.Client{Transport: &http.Transport{DialContext: dial}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Chat(context.Background(), userReq("a"), llm.Callbacks{})
	msg := fmt.Sprint(err)
	for _, w := range []string{"cannot look up api.openai.com", "no base URL is set", "OPENAI_BASE_URL"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	if strings.Contains(msg, "dial tcp") {
		t.Errorf("raw dialer text: %q", msg)
	}
}
