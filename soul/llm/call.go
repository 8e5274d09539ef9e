package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// maxErrorBody and maxJSONBody bound how much of a response is read.
const (
	maxErrorBody = 64 << 10
	maxJSONBody  = 64 << 20
)

// attempt makes one logical attempt. It hides the two request-shape
// fallbacks: a 400/422 naming stream_options (the server does not know
// include_usage) or reasoning_content (the server does not take reasoning
// back) is answered by resending without the field, at once and without
// counting as a retry, and the Provider remembers it.
func (p *Provider) attempt(ctx context.Context, req Request, cb Callbacks) (Response, error) {
	for {
		withSO := p.cfg.Stream && !p.noStreamOptions.Load()
		withR := !p.noReasoning.Load() && hasReasoning(req.Messages)
		resp, err := p.send(ctx, req, cb, withSO, withR)
		var e *Error
		if err != nil && errors.As(err, &e) {
			if r := rejectedCapability(e, p.sendsThinking(req), requestHasImage(req)); r != nil {
				return resp, r
			}
		}
		if err != nil && errors.As(err, &e) && (e.Status == http.StatusBadRequest || e.Status == http.StatusUnprocessableEntity) {
			low := strings.ToLower(e.Message)
			if withSO && strings.Contains(low, "stream_options") {
				p.noStreamOptions.Store(true)
				continue
			}
			if withR && strings.Contains(low, "reasoning_content") && !strings.Contains(low, "missing") && !strings.Contains(low, "required") {
				p.noReasoning.Store(true)
				continue
			}
		}
		return resp, err
	}
}

// send performs one HTTP exchange and reads the answer.
func (p *Provider) send(ctx context.Context, req Request, cb Callbacks, withStreamOptions, withReasoning bool) (Response, error) {
	body := openai.ChatCompletionRequest{
		Model:    p.cfg.Model,
		Messages: toOpenAIMessages(req.Messages, withReasoning),
		Tools:    toOpenAITools(req.Tools),
		Stream:   p.cfg.Stream,
	}
	if withStreamOptions {
		body.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	var payload any = body
	switch p.thinkingStyle() {
	case StyleOpenAI:
		if req.Thinking.On() {
			body.ReasoningEffort = string(req.Thinking)
			payload = body
		}
	case StyleKimi:
		payload = struct {
			openai.ChatCompletionRequest
			Thinking *kimiThinking `json:"thinking"`
		}{body, thinkingField(req.Thinking)}
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return Response{}, &Error{Message: "encoding request: " + err.Error(), Err: err}
	}

	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, p.endpoint, bytes.NewReader(data))
	if err != nil {
		return Response{}, &Error{Message: "building request: " + err.Error(), Err: err}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Authorization", "Bearer "+p.cfg.APIKey)
	hreq.Header.Set("User-Agent", "rewind")
	if p.cfg.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}

	hresp, err := p.hc.Do(hreq)
	if err != nil {
		return Response{}, ctxError(ctx, p.lookupError(transportError(err, "sending request")))
	}
	defer hresp.Body.Close()

	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		b, rerr := io.ReadAll(io.LimitReader(hresp.Body, maxErrorBody))
		if rerr != nil && ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		return Response{}, statusError(hresp, b)
	}

	ct := strings.ToLower(hresp.Header.Get("Content-Type"))
	if strings.HasPrefix(ct, "text/html") {
		b, _ := io.ReadAll(io.LimitReader(hresp.Body, maxErrorBody))
		return Response{}, htmlError(p.cfg.BaseURL, b)
	}
	if p.cfg.Stream && !strings.HasPrefix(ct, "application/json") {
		return p.readStream(ctx, cancel, hresp.Body, req, cb)
	}
	// Non-streaming mode, or a server that ignored stream=true.
	b, err := io.ReadAll(io.LimitReader(hresp.Body, maxJSONBody+1))
	if err != nil {
		return Response{}, ctxError(ctx, transportError(err, "reading response"))
	}
	if len(b) > maxJSONBody {
		return Response{}, tooLarge(fmt.Sprintf("the model's answer passed %s and was stopped: ask for a shorter answer", byteSize(maxJSONBody)))
	}
	if looksLikeHTML(b) {
		return Response{}, htmlError(p.cfg.BaseURL, b)
	}
	return p.decodeJSONResponse(b, req, cb)
}

func (p *Provider) thinkingStyle() ThinkingStyle {
	if p.cfg.ThinkingStyle == "" {
		return StyleOpenAI
	}
	return p.cfg.ThinkingStyle
}

// sendsThinking reports whether req's body mentions thinking at all.
func (p *Provider) sendsThinking(req Request) bool {
	switch p.thinkingStyle() {
	case StyleKimi:
		return true
	case StyleOpenAI:
		return req.Thinking.On()
	}
	return false
}

func requestHasImage(req Request) bool {
	for _, m := range req.Messages {
		if hasImage(m.Content.Parts) {
			return true
		}
	}
	return false
}

// lookupError rephrases a failed DNS lookup, the usual face of "no
// network" (or of a mistyped host), without the dialer's internals.
func (p *Provider) lookupError(e *Error) *Error {
	var dnsErr *net.DNSError
	if !errors.As(e, &dnsErr) {
		return e
	}
	e.Message = fmt.Sprintf("cannot look up %s (no network, or no such host)", dnsErr.Name)
	if p.cfg.BaseURL == DefaultBaseURL {
		e.Message += ": no base URL is set, so rewind used OpenAI's; set OPENAI_BASE_URL or base_url for another server, or check the network"
	} else {
		e.Message += ": check the base URL " + p.cfg.BaseURL + " and the network"
	}
	return e
}

// jsonResponse is the lenient shape of a non-streaming answer. The tool
// calls and usage are go-openai's types; content may be a string, null or a
// list of parts, and an "error" object may stand in for the answer.
type jsonResponse struct {
	Choices []struct {
		Message struct {
			Content          json.RawMessage   `json:"content"`
			ReasoningContent string            `json:"reasoning_content"`
			Reasoning        string            `json:"reasoning"`
			ToolCalls        []openai.ToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason openai.FinishReason `json:"finish_reason"`
	} `json:"choices"`
	Usage *openai.Usage   `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func (p *Provider) decodeJSONResponse(b []byte, req Request, cb Callbacks) (Response, error) {
	var r jsonResponse
	if err := json.Unmarshal(b, &r); err != nil {
		return Response{}, &Error{Temporary: true, Err: err, Message: fmt.Sprintf("malformed JSON response: %v (%s)", err, snippet(b))}
	}
	if len(r.Error) > 0 && string(r.Error) != "null" {
		return Response{}, streamError(r.Error)
	}
	if len(r.Choices) == 0 {
		return Response{}, &Error{Temporary: true, Err: ErrEmptyAnswer, Message: "empty response: no choices"}
	}
	ch := r.Choices[0]
	content := contentText(ch.Message.Content)
	reasoning := ch.Message.ReasoningContent
	if reasoning == "" {
		reasoning = ch.Message.Reasoning
	}
	acc := p.newAccumulator()
	acc.reasoning(reasoning, cb)
	acc.content(content, cb)
	for i, tc := range ch.Message.ToolCalls {
		idx := i
		tc.Index = &idx
		acc.toolCall(tc, cb)
	}
	if acc.err != nil {
		return Response{}, acc.err
	}
	acc.finish = trimFinish(ch.FinishReason)
	acc.usage = r.Usage
	return acc.response(req)
}

// contentText reads a message content that is a string, null, or a list of
// {"type":"text","text":…} parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "" {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// htmlError is a 2xx answer that is a web page: the base URL points at a
// site (or a login portal, or a proxy's page), not at the API. Retrying
// would not change it.
func htmlError(baseURL string, body []byte) *Error {
	msg := "the server at " + baseURL + " answered with an HTML page"
	if t := htmlTitle(body); t != "" {
		msg += fmt.Sprintf(" (%q)", t)
	}
	msg += ", not the OpenAI API: check the base URL (it usually ends in /v1)"
	return &Error{Message: msg, HTML: true}
}

func looksLikeHTML(b []byte) bool {
	head := strings.ToLower(strings.TrimSpace(string(b[:min(len(b), 512)])))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html")
}

// htmlTitle is the page's <title>, trimmed to a line's worth.
func htmlTitle(b []byte) string {
	s := string(b)
	low := strings.ToLower(s)
	i := strings.Index(low, "<title")
	if i < 0 {
		return ""
	}
	j := strings.Index(low[i:], ">")
	if j < 0 {
		return ""
	}
	rest := s[i+j+1:]
	k := strings.Index(strings.ToLower(rest), "</title>")
	if k < 0 {
		return ""
	}
	t := strings.Join(strings.Fields(rest[:k]), " ")
	if len(t) > 80 {
		t = t[:80] + "…"
	}
	return t
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// idleBody cancels the request when no bytes arrive for a while, so a
// stalled stream becomes a (temporary) timeout instead of a hang.
type idleBody struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
	fired atomic.Bool
}

func newIdleBody(r io.Reader, d time.Duration, cancel context.CancelFunc) *idleBody {
	b := &idleBody{r: r, d: d}
	b.timer = time.AfterFunc(d, func() {
		b.fired.Store(true)
		cancel()
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.timer.Reset(b.d)
	}
	return n, err
}

func (b *idleBody) stop() { b.timer.Stop() }
