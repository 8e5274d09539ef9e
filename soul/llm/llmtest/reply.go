package llmtest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// Failure is a way for a reply to go wrong on the wire.
type Failure int

const (
	// FailNone: the reply is delivered normally.
	FailNone Failure = iota
	// FailReset: after FailAfter chunks (streaming) or at once (JSON) the
	// connection is hijacked and closed with a TCP reset.
	FailReset
	// FailTruncate: after FailAfter chunks the stream just ends, with no
	// finish_reason and no [DONE]. A JSON reply is cut in half.
	FailTruncate
	// FailStreamError: after FailAfter chunks the server sends an error
	// object (`data: {"error":{…}}`) in the 200 stream; a JSON reply is a
	// 200 body holding only the error object. ErrorMessage, ErrorType and
	// ErrorCode fill it.
	FailStreamError
	// FailMalformed: after FailAfter chunks the server sends a chunk that
	// is not valid JSON; a JSON reply is not valid JSON.
	FailMalformed
	// FailHang: after FailAfter chunks the server stops sending and waits
	// for the client to go away (for interrupt tests).
	FailHang
)

// ToolCall is a tool call the fake model makes.
type ToolCall struct {
	ID, Name string
	Args     string // the raw arguments string, valid JSON or not
}

// Usage is what the server reports. A nil *Usage in a Reply means none.
type Usage struct{ PromptTokens, CompletionTokens, TotalTokens int }

// Reply is one scripted answer. The zero Reply is an empty answer (no
// content, no tool calls, finish_reason "stop"), which a client should treat
// as a temporary failure.
type Reply struct {
	Content   string
	Reasoning string     // streamed as reasoning_content before the content
	ToolCalls []ToolCall // streamed after the content, interleaved by index
	Usage     *Usage     // sent in the last chunk when the client asked for include_usage, and in JSON replies
	// FinishReason defaults to "tool_calls" when there are tool calls,
	// else "stop".
	FinishReason string

	// ChunkSize is the number of runes (content, reasoning) or bytes (tool
	// arguments) per streamed delta; default 4, about one token.
	ChunkSize int
	// ChunkDelay is slept before each streamed chunk: time.Second/N
	// simulates N tokens per second (see WithRate).
	ChunkDelay time.Duration
	// Hold, when not nil, stops the stream after HoldAfter chunks until it
	// is closed (or the client leaves): a test sees the answer in flight
	// for as long as it needs, then lets it finish (see WithHold).
	Hold      <-chan struct{}
	HoldAfter int

	// Status, when not 0, makes the reply an HTTP error with a JSON body
	// {"error":{"message":ErrorMessage,"type":ErrorType,"code":ErrorCode}}.
	Status     int
	RetryAfter string // Retry-After header value for an error reply

	Fail      Failure
	FailAfter int // chunks sent before the failure (streaming)

	ErrorMessage string
	ErrorType    string
	ErrorCode    any

	// Header is added to the response.
	Header http.Header

	// Page, when set, is sent instead of an answer as a 200 text/html body:
	// what a base URL pointing at a web site gets.
	Page string
}

// Text is a plain answer.
func Text(s string) Reply { return Reply{Content: s} }

// Calls is an answer made of tool calls.
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls} }

// Call builds a ToolCall; args that are not a string are JSON-encoded.
func Call(id, name string, args any) ToolCall {
	s, ok := args.(string)
	if !ok {
		b, _ := json.Marshal(args)
		s = string(b)
	}
	return ToolCall{ID: id, Name: name, Args: s}
}

// HTTPError is an error reply with the given status and message.
func HTTPError(status int, message string) Reply {
	return Reply{Status: status, ErrorMessage: message, ErrorType: errorType(status)}
}

// Reset drops the connection after n chunks.
func Reset(n int) Reply {
	return Reply{Content: "partial answer that never ends", Fail: FailReset, FailAfter: n}
}

// Truncated ends the stream after n chunks without finish_reason or [DONE].
func Truncated(n int) Reply {
	return Reply{Content: "partial answer that never ends", Fail: FailTruncate, FailAfter: n}
}

// StreamError sends an error object inside the 200 stream after n chunks.
func StreamError(n int, message, typ string, code any) Reply {
	return Reply{Content: "partial answer that never ends", Fail: FailStreamError, FailAfter: n,
		ErrorMessage: message, ErrorType: typ, ErrorCode: code}
}

// Malformed sends a chunk that is not JSON after n chunks.
func Malformed(n int) Reply {
	return Reply{Content: "partial answer that never ends", Fail: FailMalformed, FailAfter: n}
}

// Hang streams n chunks of content and then waits for the client to leave.
func Hang(n int) Reply {
	return Reply{Content: "an answer that stalls after a few words", Fail: FailHang, FailAfter: n}
}

// HTMLPage is a 200 answer that is a web page titled title, not the API.
func HTMLPage(title string) Reply {
	return Reply{Page: "<!DOCTYPE html>\n<html><head><title>" + title + "</title></head><body><h1>" + title + "</h1></body></html>\n"}
}

// Empty is an answer with no content and no tool calls.
func Empty() Reply { return Reply{} }

// WithUsage sets the reported usage (total = prompt + completion).
func (r Reply) WithUsage(prompt, completion int) Reply {
	r.Usage = &Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return r
}

// WithReasoning sets the reasoning streamed before the answer.
func (r Reply) WithReasoning(s string) Reply { r.Reasoning = s; return r }

// WithRetryAfter sets the Retry-After header of an error reply.
func (r Reply) WithRetryAfter(v string) Reply { r.RetryAfter = v; return r }

// WithRate streams about tokensPerSecond chunks per second.
func (r Reply) WithRate(tokensPerSecond int) Reply {
	if tokensPerSecond > 0 {
		r.ChunkDelay = time.Second / time.Duration(tokensPerSecond)
	}
	return r
}

// WithHold streams after chunks, then waits until release is closed
// before the rest.
func (r Reply) WithHold(after int, release <-chan struct{}) Reply {
	r.Hold, r.HoldAfter = release, after
	return r
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// Request is a request the server received, decoded.
type Request struct {
	Model            string
	Stream           bool
	HasStreamOptions bool // the request carried stream_options
	IncludeUsage     bool // stream_options.include_usage
	Messages         []message.Message
	Tools            []Tool
	Header           http.Header
	Body             []byte // the raw JSON body
}

// Tool is a tool offered in a request.
type Tool struct {
	Name, Description string
	Parameters        json.RawMessage
}

// Last returns the last message whose role is one of roles (any role when
// none is given), and whether there was one.
func (r Request) Last(roles ...string) (message.Message, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if len(roles) == 0 {
			return m, true
		}
		for _, role := range roles {
			if m.Role == role {
				return m, true
			}
		}
	}
	return message.Message{}, false
}

// LastText is the text of the last user or tool message ("" if none).
func (r Request) LastText() string {
	m, _ := r.Last("user", "tool")
	return m.Content.PlainText()
}

// ToolNames lists the names of the tools on offer.
func (r Request) ToolNames() []string {
	out := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}
