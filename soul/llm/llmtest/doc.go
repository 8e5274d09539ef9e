// Package llmtest is a fake OpenAI-compatible chat completions server on
// net/http/httptest, for tests, benchmarks and `rewind demo`.
//
// It owns: scripting answers (a queue of Replies, a handler function, or a
// Script keyed on the last user/tool message), putting them on the wire the
// way real servers do (SSE chunks with content, reasoning_content and
// tool-call deltas interleaved by index, usage in a final chunk when
// stream_options.include_usage was asked for, [DONE]; or one JSON body when
// the request has stream=false), simulating failures (HTTP errors with a
// JSON body and Retry-After, connection resets, truncated streams, error
// objects inside a 200 stream, malformed chunks, empty answers, stalls,
// servers that reject stream_options), and recording every request decoded
// so tests can check what the model was sent.
//
//	srv := llmtest.NewServer(t)
//	srv.Enqueue(
//		llmtest.HTTPError(429, "slow down").WithRetryAfter("0.01"),
//		llmtest.Calls(llmtest.Call("call_1", "ReadFile", `{"path":"a.go"}`)).WithUsage(120, 8),
//		llmtest.Text("It is a Go file.").WithRate(2000),
//	)
//	p, _ := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", Stream: true})
//	… srv.Requests()[1].Messages …
//
// The package does not import testing; NewServer takes anything with a
// Cleanup method (or nil, then call Close).
package llmtest
