package llm

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	openai "github.com/sashabaranov/go-openai"
)

// chunk is one streamed chat.completion.chunk. The delta is go-openai's
// type plus "reasoning" (OpenRouter's name for reasoning_content); "error"
// catches an error object sent in place of a chunk.
type chunk struct {
	Choices []chunkChoice   `json:"choices"`
	Usage   *openai.Usage   `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chunkChoice struct {
	Index int `json:"index"`
	Delta struct {
		openai.ChatCompletionStreamChoiceDelta
		Reasoning string `json:"reasoning"`
	} `json:"delta"`
	FinishReason openai.FinishReason `json:"finish_reason"`
}

var (
	dataPrefix  = []byte("data:")
	eventPrefix = []byte("event:")
	doneMarker  = []byte("[DONE]")
)

// readStream reads an SSE body to the end. See doc.go for why this is our
// own reader rather than go-openai's ChatCompletionStream.
func (p *Provider) readStream(ctx context.Context, cancel context.CancelFunc, body io.Reader, req Request, cb Callbacks) (Response, error) {
	ib := newIdleBody(body, p.idleTimeout, cancel)
	defer ib.stop()
	pb := newPacedBody(ctx, ib, p.readPace)
	defer func() {
		pb.stop()
		if p.onStreamRead != nil {
			p.onStreamRead(pb.reads, pb.pauses)
		}
	}()
	br := bufio.NewReaderSize(pb, 32<<10)
	acc := p.newAccumulator()
	dec := newChunkDecoder()
	var (
		event string
		long  []byte // a line longer than the buffer
		c     chunk
	)
	for {
		line, rerr := br.ReadSlice('\n')
		if errors.Is(rerr, bufio.ErrBufferFull) {
			if len(long)+len(line) > p.maxLine {
				return Response{}, &Error{Message: fmt.Sprintf("the server sent a stream line longer than %s; the answer was abandoned", byteSize(p.maxLine))}
			}
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		line = bytes.TrimRight(line, "\r\n")
		var payload []byte
		switch {
		case len(line) == 0:
			event = ""
		case line[0] == ':': // SSE comment / keep-alive
		case bytes.HasPrefix(line, dataPrefix):
			payload = bytes.TrimSpace(line[len(dataPrefix):])
		case bytes.HasPrefix(line, eventPrefix):
			event = string(bytes.TrimSpace(line[len(eventPrefix):]))
		case line[0] == '{':
			// A bare JSON line: some servers put an error body into a
			// 200 event stream without the data: prefix.
			payload = bytes.TrimSpace(line)
		}
		if len(payload) > 0 {
			if bytes.Equal(payload, doneMarker) {
				acc.done = true
				return acc.response(req)
			}
			if event == "error" {
				return Response{}, streamError(errorField(payload))
			}
			if err := dec.decode(payload, &c); err != nil {
				return Response{}, &Error{Temporary: true, Err: err, Message: fmt.Sprintf("malformed chunk in stream: %v (%s)", err, snippet(payload))}
			}
			if len(c.Error) > 0 && string(c.Error) != "null" {
				return Response{}, streamError(c.Error)
			}
			acc.chunk(&c, cb)
			if acc.err != nil {
				return Response{}, acc.err
			}
		}
		if rerr != nil {
			if rerr != io.EOF {
				if ctx.Err() != nil {
					return Response{}, ctx.Err()
				}
				if ib.fired.Load() {
					return Response{}, &Error{Temporary: true, Err: rerr, Message: fmt.Sprintf("stream stalled: no data for %s", p.idleTimeout)}
				}
				return Response{}, transportError(rerr, "reading stream")
			}
			if acc.finish == "" {
				return Response{}, &Error{Temporary: true, Err: io.ErrUnexpectedEOF, Message: "stream ended early (no [DONE] and no finish_reason)"}
			}
			return acc.response(req)
		}
	}
}

// pacedBody reads a stream that trickles at most once per pace: a read
// that had to wait for the network is followed by a pause until pace has
// passed since it returned, so the chunks a fast model sends meanwhile
// (one per token, ~2,000 a second) are read, decoded and shown together.
// Each read that waits parks the goroutine and wakes it (and the
// runtime's monitor) again: per token that was a third of the agent's CPU
// while streaming. A read that did not wait (the data was there: a burst,
// a server that buffers) is not paced, so a fast body is read at full
// speed. The pause adds at most pace to a token's way to the screen,
// which the UI's 20 Hz frames (50 ms) hide.
type pacedBody struct {
	ctx    context.Context
	r      io.Reader
	pace   time.Duration
	waited bool      // the last read waited for the network
	last   time.Time // when it returned
	timer  *time.Timer

	reads, pauses int // tests: the reads made, the pauses taken
}

// readWaited is how long a read must take to count as having waited for
// the network: one served from a buffer or the socket's queue takes a few
// microseconds.
const readWaited = 200 * time.Microsecond

func newPacedBody(ctx context.Context, r io.Reader, pace time.Duration) *pacedBody {
	return &pacedBody{ctx: ctx, r: r, pace: pace}
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if b.waited && b.pace > 0 {
		if wait := b.pace - time.Since(b.last); wait > 0 {
			if b.timer == nil {
				b.timer = time.NewTimer(wait)
			} else {
				b.timer.Reset(wait)
			}
			b.pauses++
			select {
			case <-b.timer.C:
			case <-b.ctx.Done():
				return 0, b.ctx.Err()
			}
		}
	}
	b.reads++
	start := time.Now()
	n, err := b.r.Read(p)
	b.last = time.Now()
	b.waited = b.last.Sub(start) >= readWaited
	return n, err
}

func (b *pacedBody) stop() {
	if b.timer != nil {
		b.timer.Stop()
	}
}

// chunkDecoder decodes the data payloads of one stream into a reused chunk
// with one json.Decoder. This is the per-token path: json.Unmarshal would
// allocate a fresh decoder state, scanner stack and error context for every
// chunk, and a fresh chunk would reallocate its Choices.
type chunkDecoder struct {
	r   bytes.Reader
	dec *json.Decoder
}

func newChunkDecoder() *chunkDecoder {
	d := &chunkDecoder{}
	d.dec = json.NewDecoder(&d.r)
	return d
}

// decode replaces *c with payload, which must be exactly one JSON value.
// It accepts and rejects what json.Unmarshal does, with the same errors.
func (d *chunkDecoder) decode(payload []byte, c *chunk) error {
	if decodeFast(payload, c) {
		return nil
	}
	return d.decodeJSON(payload, c)
}

// decodeJSON is decode with encoding/json.
func (d *chunkDecoder) decodeJSON(payload []byte, c *chunk) error {
	choices := c.Choices[:cap(c.Choices)]
	clear(choices) // the decoder does not zero the slice elements it reuses
	*c = chunk{Choices: choices[:0]}
	d.r.Reset(payload)
	start := d.dec.InputOffset()
	if err := d.dec.Decode(c); err == nil && d.dec.InputOffset()-start == int64(len(payload)) {
		return nil
	}
	// A malformed payload or trailing data: let Unmarshal give the verdict
	// and its message, and start over with a clean decoder.
	d.dec = json.NewDecoder(&d.r)
	*c = chunk{}
	return json.Unmarshal(payload, c)
}

// errorField returns payload's "error" member when it has one, else payload.
func errorField(payload []byte) json.RawMessage {
	var obj struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(payload, &obj) == nil && len(obj.Error) > 0 {
		return obj.Error
	}
	return payload
}

// accumulator assembles an answer from deltas and forwards each delta to
// the callbacks, up to the answer's caps: a delta past one is dropped and
// err set, and the caller stops reading.
type accumulator struct {
	text, think strings.Builder
	calls       map[int]*callAcc
	last        int // index of the call that received the last delta
	finish      string
	usage       *openai.Usage
	done        bool

	maxAnswer, maxArgs int
	args               int // bytes of every call's arguments so far
	err                error
}

type callAcc struct {
	index    int
	id, name string
	typ      string
	args     strings.Builder
}

func (p *Provider) newAccumulator() *accumulator {
	return &accumulator{last: -1, maxAnswer: p.cfg.MaxAnswerBytes, maxArgs: p.cfg.MaxToolArgsBytes}
}

// fits reports whether n more bytes of text and reasoning stay under the
// cap, and sets err when they do not.
func (a *accumulator) fits(n int) bool {
	if a.err != nil {
		return false
	}
	if a.text.Len()+a.think.Len()+n > a.maxAnswer {
		a.err = tooLarge(fmt.Sprintf("the model's answer passed %s (answer_size_cap) and was stopped: ask for a shorter answer, or raise answer_size_cap in the config", byteSize(a.maxAnswer)))
		return false
	}
	return true
}

func tooLarge(msg string) *Error { return &Error{Err: ErrAnswerTooLarge, Message: msg} }

func (a *accumulator) content(s string, cb Callbacks) {
	if s == "" || !a.fits(len(s)) {
		return
	}
	a.text.WriteString(s)
	if cb.OnContent != nil {
		cb.OnContent(s)
	}
}

func (a *accumulator) reasoning(s string, cb Callbacks) {
	if s == "" || !a.fits(len(s)) {
		return
	}
	a.think.WriteString(s)
	if cb.OnReasoning != nil {
		cb.OnReasoning(s)
	}
}

func (a *accumulator) chunk(c *chunk, cb Callbacks) {
	if c.Usage != nil {
		a.usage = c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // we ask for one choice
		}
		r := ch.Delta.ReasoningContent
		if r == "" {
			r = ch.Delta.Reasoning
		}
		a.reasoning(r, cb)
		a.content(ch.Delta.Content, cb)
		for _, tc := range ch.Delta.ToolCalls {
			a.toolCall(tc, cb)
		}
		if f := trimFinish(ch.FinishReason); f != "" {
			a.finish = f
		}
	}
}

// toolCall merges one tool-call delta. Calls are keyed by their index; the
// id, type and name arrive on a call's first delta (later repeats are
// ignored) and argument fragments are concatenated. A delta without an index
// (some older servers) continues the previous call unless it carries a new
// id.
func (a *accumulator) toolCall(tc openai.ToolCall, cb Callbacks) {
	if a.err != nil {
		return
	}
	if a.args += len(tc.Function.Arguments); a.args > a.maxArgs {
		a.err = tooLarge(fmt.Sprintf("the model's tool call arguments passed %s (tool_args_size_cap) and the answer was stopped: ask for smaller edits, or raise tool_args_size_cap in the config", byteSize(a.maxArgs)))
		return
	}
	if a.calls == nil {
		a.calls = map[int]*callAcc{}
	}
	var idx int
	switch {
	case tc.Index != nil:
		idx = *tc.Index
	case a.last >= 0 && (tc.ID == "" || a.calls[a.last].id == tc.ID):
		idx = a.last
	default:
		idx = len(a.calls)
		for a.calls[idx] != nil {
			idx++
		}
	}
	c := a.calls[idx]
	if c == nil {
		c = &callAcc{index: idx}
		a.calls[idx] = c
	}
	a.last = idx
	var newID, newName string
	if c.id == "" && tc.ID != "" {
		c.id, newID = tc.ID, tc.ID
	}
	if c.name == "" && tc.Function.Name != "" {
		c.name, newName = tc.Function.Name, tc.Function.Name
	}
	if c.typ == "" && tc.Type != "" {
		c.typ = string(tc.Type)
	}
	c.args.WriteString(tc.Function.Arguments)
	if cb.OnToolCallDelta != nil && (newID != "" || newName != "" || tc.Function.Arguments != "") {
		cb.OnToolCallDelta(idx, newID, newName, tc.Function.Arguments)
	}
}

// response checks the assembled answer and builds the Response.
func (a *accumulator) response(req Request) (Response, error) {
	calls := a.toolCalls()
	content := a.text.String()
	if content == "" && len(calls) == 0 {
		msg := "empty response: no content and no tool calls"
		if a.finish != "" {
			msg += " (finish_reason " + a.finish + ")"
		}
		return Response{}, &Error{Temporary: true, Err: ErrEmptyAnswer, Message: msg}
	}
	msg := assistantMessage(content, a.think.String(), calls)
	resp := Response{Message: msg, FinishReason: a.finish}
	if u := a.usage; u != nil && (u.TotalTokens > 0 || u.PromptTokens > 0 || u.CompletionTokens > 0) {
		resp.Usage = Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
		if resp.Usage.TotalTokens == 0 {
			resp.Usage.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
	} else {
		resp.Usage = estimateUsage(req, msg)
	}
	if resp.FinishReason == "" {
		if len(calls) > 0 {
			resp.FinishReason = "tool_calls"
		} else {
			resp.FinishReason = "stop"
		}
	}
	return resp, nil
}

// toolCalls returns the calls in index order. A call the server sent
// without an id gets a generated one so its result can refer to it.
func (a *accumulator) toolCalls() []message.ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	idxs := make([]int, 0, len(a.calls))
	for i := range a.calls {
		idxs = append(idxs, i)
	}
	sort.Ints(idxs)
	out := make([]message.ToolCall, 0, len(idxs))
	for _, i := range idxs {
		c := a.calls[i]
		id := c.id
		if id == "" {
			id = newCallID()
		}
		typ := c.typ
		if typ == "" {
			typ = "function"
		}
		out = append(out, message.ToolCall{ID: id, Type: typ, Name: c.name, Args: c.args.String()})
	}
	return out
}

func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

// byteSize formats a power-of-two size for messages ("16 MiB").
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
