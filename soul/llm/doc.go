// Package llm is rewind's model provider: one Client interface and a
// Provider that talks to any OpenAI-compatible /chat/completions endpoint.
//
// It owns: converting message.Message to the wire and the answer back (the
// reasoning kept as a "think" part so it is stored), streaming with
// content, reasoning_content and tool-call deltas accumulated by index,
// usage (from the server, else EstimateTokens), the request-shape
// fallbacks (stream_options, reasoning_content), error classification and
// the retry policy (retryableStatus), and interrupt by context cancellation.
// It owns no state beyond the quirks it learns about the server.
//
// # go-openai
//
// The wire types are go-openai's (ChatCompletionRequest and its message,
// tool and stream-option types for the request; ToolCall, the stream delta
// and Usage when decoding). The HTTP exchange and the SSE reader are ours,
// because go-openai's client loses information the retry policy and the
// error rules need (checked in v1.43.0):
//
//   - its stream reader returns io.EOF both for "data: [DONE]" and for a
//     body that simply stops, so a truncated stream is indistinguishable
//     from a finished one;
//   - it recognises an in-stream error only when the line starts exactly
//     with `data: {"error":`; an `event: error` event, other spacing or an
//     error next to other fields is decoded as an empty chunk and lost;
//   - SSE comments (keep-alives) count towards its empty-message limit and
//     can kill a long, slow stream;
//   - its APIError/RequestError carry the status but not the response
//     headers, so Retry-After cannot be honoured.
//
// Our reader treats each data: line as one event (as go-openai does; no
// OpenAI-compatible server splits a chunk over several data lines), ignores
// comments, honours `event: error`, and accepts a bare JSON line (an error
// body sent into a 200 stream).
//
// # Errors and retries
//
// Each failure becomes an *Error. Temporary, retried with exponential
// backoff (InitialBackoff doubling to MaxBackoff, equal jitter; a
// Retry-After header, seconds or HTTP date, replaces the wait, capped at
// MaxRetryAfter): connection errors (refused, reset, EOF, broken pipe),
// timeouts (including a stream idle for DefaultStreamIdleTimeout), HTTP 408,
// 429, 500, 502, 503, 504, 520–529, an empty answer (no content and no tool
// calls), a stream that ends without [DONE] and without finish_reason, a
// malformed chunk or body (a garbled transmission), and an in-stream error
// object whose code/type says rate limit, overload, timeout or server
// error. Everything else fails at once with the server's message: other
// 4xx, other in-stream errors, TLS and unknown-host errors. When retries run
// out the *Error has Temporary and Exhausted set.
//
// Callbacks fire live for every attempt; nothing is buffered. A stream
// that trickles in is read at most about once per StreamReadPace (10 ms):
// the chunks a fast model sent meanwhile are decoded and handed to the
// callbacks together, instead of the reader waking per token (pacedBody
// in stream.go). When an
// attempt fails and is retried, OnRetry is called before the wait: it tells
// the caller that the output streamed so far is void (the soul resets its
// step state and shows a StepRetry event). A stream_options or
// reasoning_content rejection is not a retry: it fails before anything is
// streamed and is resent at once.
//
// Cancelling the context aborts the request or stream immediately and Chat
// returns ctx.Err() (errors.Is(err, context.Canceled)); a cancelled backoff
// wait returns the same way.
package llm
