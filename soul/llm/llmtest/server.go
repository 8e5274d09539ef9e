package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rewind-agent/rewind/store/message"
)

// TB is the part of testing.TB the server uses; *testing.T and *testing.B
// satisfy it. It is an interface so that non-test code (rewind demo) can
// use the server without importing package testing.
type TB interface {
	Cleanup(func())
}

// Server is a fake OpenAI-compatible chat completions server.
type Server struct {
	hs *httptest.Server

	mu                  sync.Mutex
	queue               []Reply
	handler             func(Request) Reply
	requests            []Request
	rejectStreamOptions bool
}

// NewServer starts a server on a local port. With a non-nil t it is closed
// by t.Cleanup; otherwise call Close.
func NewServer(t TB) *Server {
	s := &Server{}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serve))
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// URL is the base URL to configure a client with (it ends in /v1; the
// server answers POST {URL}/chat/completions).
func (s *Server) URL() string { return s.hs.URL + "/v1" }

// Close shuts the server down, cutting open connections.
func (s *Server) Close() {
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// Enqueue appends replies to the queue. Queued replies are used first, in
// order, one per request.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	s.queue = append(s.queue, replies...)
	s.mu.Unlock()
}

// Handle sets the function that answers requests when the queue is empty
// (see Script). With neither, a request gets HTTP 400 "no reply scripted".
func (s *Server) Handle(f func(Request) Reply) {
	s.mu.Lock()
	s.handler = f
	s.mu.Unlock()
}

// RejectStreamOptions makes the server answer any request carrying
// stream_options with HTTP 400, as some OpenAI-compatible servers do.
// Such a request is recorded but consumes no reply.
func (s *Server) RejectStreamOptions(on bool) {
	s.mu.Lock()
	s.rejectStreamOptions = on
	s.mu.Unlock()
}

// Requests returns a copy of every request received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pending is the number of queued replies not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// wireRequest is the JSON of a chat completions request, as far as the
// server cares.
type wireRequest struct {
	Model         string            `json:"model"`
	Stream        bool              `json:"stream"`
	StreamOptions json.RawMessage   `json:"stream_options"`
	Messages      []message.Message `json:"messages"`
	Tools         []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, Reply{Status: http.StatusNotFound, ErrorMessage: "llmtest: no such endpoint " + r.Method + " " + r.URL.Path, ErrorType: "not_found_error"})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		writeError(w, HTTPError(http.StatusBadRequest, "llmtest: request is not valid JSON: "+err.Error()))
		return
	}
	req := Request{Model: wr.Model, Stream: wr.Stream, Messages: wr.Messages, Header: r.Header.Clone(), Body: body}
	if len(wr.StreamOptions) > 0 && string(wr.StreamOptions) != "null" {
		req.HasStreamOptions = true
		var so struct {
			IncludeUsage bool `json:"include_usage"`
		}
		_ = json.Unmarshal(wr.StreamOptions, &so)
		req.IncludeUsage = so.IncludeUsage
	}
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}

	s.mu.Lock()
	s.requests = append(s.requests, req)
	reject := s.rejectStreamOptions && req.HasStreamOptions
	var reply Reply
	var ok bool
	if !reject {
		if len(s.queue) > 0 {
			reply, s.queue, ok = s.queue[0], s.queue[1:], true
		} else if s.handler != nil {
			h := s.handler
			s.mu.Unlock()
			reply, ok = h(req), true
			s.mu.Lock()
		}
	}
	s.mu.Unlock()

	switch {
	case reject:
		writeError(w, HTTPError(http.StatusBadRequest, "Unrecognized request argument supplied: stream_options"))
	case !ok:
		writeError(w, HTTPError(http.StatusBadRequest, fmt.Sprintf("llmtest: no reply scripted for request %d (last message %.60q)", len(s.Requests()), req.LastText())))
	case reply.Status != 0:
		writeError(w, reply)
	case reply.Page != "":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, reply.Page)
	case req.Stream:
		s.stream(w, r, req, reply)
	default:
		s.json(w, r, req, reply)
	}
}

func writeError(w http.ResponseWriter, r Reply) {
	for k, v := range r.Header {
		w.Header()[k] = v
	}
	if r.RetryAfter != "" {
		w.Header().Set("Retry-After", r.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": errorObject(r)})
}

func errorObject(r Reply) map[string]any {
	msg := r.ErrorMessage
	if msg == "" {
		msg = http.StatusText(r.Status)
		if msg == "" {
			msg = "error"
		}
	}
	obj := map[string]any{"message": msg, "type": r.ErrorType}
	if r.ErrorCode != nil {
		obj["code"] = r.ErrorCode
	}
	return obj
}

// resetConn hijacks the connection and closes it with a TCP RST.
func resetConn(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		return // not an HTTP/1 connection: the body just ends
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// Wire shapes of the answer.
type wireCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireDelta struct {
	Role             string     `json:"role,omitempty"`
	Content          string     `json:"content,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	ToolCalls        []wireCall `json:"tool_calls,omitempty"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireChunk struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage,omitempty"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (r Reply) finish() string {
	if r.FinishReason != "" {
		return r.FinishReason
	}
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (r Reply) usage() *wireUsage {
	if r.Usage == nil {
		return nil
	}
	u := wireUsage{r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.TotalTokens}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return &u
}

// deltas splits the reply into the deltas of its stream: reasoning, then
// content, then tool calls (each call's first delta carries id, type and
// name; the argument pieces of all calls are interleaved round-robin, so a
// client must accumulate by index).
func (r Reply) deltas() []wireDelta {
	size := r.ChunkSize
	if size <= 0 {
		size = 4
	}
	out := []wireDelta{{Role: "assistant"}}
	for _, p := range splitRunes(r.Reasoning, size) {
		out = append(out, wireDelta{ReasoningContent: p})
	}
	for _, p := range splitRunes(r.Content, size) {
		out = append(out, wireDelta{Content: p})
	}
	pieces := make([][]string, len(r.ToolCalls))
	for i, c := range r.ToolCalls {
		// Whole runes per piece: each delta is a JSON string, which cannot
		// hold half a UTF-8 sequence (the encoder would turn it into U+FFFD).
		pieces[i] = splitRunes(c.Args, size)
		idx := i
		wc := wireCall{Index: &idx, ID: c.ID, Type: "function"}
		wc.Function.Name = c.Name
		out = append(out, wireDelta{ToolCalls: []wireCall{wc}})
	}
	for more := true; more; {
		more = false
		for i := range pieces {
			if len(pieces[i]) == 0 {
				continue
			}
			more = true
			idx := i
			wc := wireCall{Index: &idx}
			wc.Function.Arguments = pieces[i][0]
			pieces[i] = pieces[i][1:]
			out = append(out, wireDelta{ToolCalls: []wireCall{wc}})
		}
	}
	return out
}

func splitRunes(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i, k := 0, 0
		for i < len(s) && k < n {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	for k, v := range reply.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	ch := wireChunk{ID: "chatcmpl-llmtest", Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: req.Model}
	var buf bytes.Buffer
	send := func(payload []byte) bool {
		buf.Reset()
		buf.WriteString("data: ")
		buf.Write(payload)
		buf.WriteString("\n\n")
		if _, err := w.Write(buf.Bytes()); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	sendChunk := func(choices []wireChoice, u *wireUsage) bool {
		ch.Choices, ch.Usage = choices, u
		b, _ := json.Marshal(&ch)
		return send(b)
	}
	var timer *time.Timer
	wait := func() bool {
		if reply.ChunkDelay <= 0 {
			return r.Context().Err() == nil
		}
		if timer == nil {
			timer = time.NewTimer(reply.ChunkDelay)
		} else {
			timer.Reset(reply.ChunkDelay)
		}
		select {
		case <-r.Context().Done():
			return false
		case <-timer.C:
			return true
		}
	}

	deltas := reply.deltas()
	choice := []wireChoice{{}}
	for i, d := range deltas {
		if reply.Fail != FailNone && i >= reply.FailAfter {
			s.fail(w, r, reply, send)
			return
		}
		if reply.Hold != nil && i == reply.HoldAfter {
			select {
			case <-reply.Hold:
			case <-r.Context().Done():
				return
			}
		}
		if !wait() {
			return
		}
		choice[0] = wireChoice{Delta: d}
		if !sendChunk(choice, nil) {
			return
		}
	}
	if reply.Fail != FailNone {
		s.fail(w, r, reply, send)
		return
	}
	fin := reply.finish()
	choice[0] = wireChoice{FinishReason: &fin}
	if !sendChunk(choice, nil) {
		return
	}
	if u := reply.usage(); u != nil && req.IncludeUsage {
		if !sendChunk([]wireChoice{}, u) {
			return
		}
	}
	send([]byte("[DONE]"))
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, reply Reply, send func([]byte) bool) {
	switch reply.Fail {
	case FailReset:
		resetConn(w)
	case FailTruncate:
		// return: the chunked body ends cleanly, without [DONE].
	case FailStreamError:
		b, _ := json.Marshal(map[string]any{"error": errorObject(reply)})
		send(b)
	case FailMalformed:
		send([]byte(`{"id":"chatcmpl-llmtest","choices":[{"index":0,"delta":{"content":"oops`))
	case FailHang:
		<-r.Context().Done()
	}
}

func (s *Server) json(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	type wireMessage struct {
		Role             string     `json:"role"`
		Content          *string    `json:"content"`
		ReasoningContent string     `json:"reasoning_content,omitempty"`
		ToolCalls        []wireCall `json:"tool_calls,omitempty"`
	}
	msg := wireMessage{Role: "assistant", ReasoningContent: reply.Reasoning}
	if reply.Content != "" || len(reply.ToolCalls) == 0 {
		c := reply.Content
		msg.Content = &c
	}
	for _, c := range reply.ToolCalls {
		wc := wireCall{ID: c.ID, Type: "function"}
		wc.Function.Name, wc.Function.Arguments = c.Name, c.Args
		msg.ToolCalls = append(msg.ToolCalls, wc)
	}
	fin := reply.finish()
	body, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": fin}},
		"usage":   reply.usage(),
	})
	for k, v := range reply.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	switch reply.Fail {
	case FailReset:
		resetConn(w)
		return
	case FailTruncate:
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:len(body)/2])
		resetConn(w)
		return
	case FailStreamError:
		b, _ := json.Marshal(map[string]any{"error": errorObject(reply)})
		_, _ = w.Write(b)
		return
	case FailMalformed:
		_, _ = w.Write([]byte(`{"id":"chatcmpl-llmtest","choices":[{"message":`))
		return
	case FailHang:
		<-r.Context().Done()
		return
	}
	_, _ = w.Write(body)
}
