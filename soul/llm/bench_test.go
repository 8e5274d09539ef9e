package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// BenchmarkStream2000Tokens streams a 2,000-token answer (one ~4-byte
// content delta per SSE chunk, flushed per chunk, as real servers do) from
// the fake server as fast as it goes, through Chat with an OnContent
// callback. ns/token and tokens/s include the fake server's own work on
// the same machine; allocs are per Chat call.
func BenchmarkStream2000Tokens(b *testing.B) {
	const tokens = 2000
	srv := llmtest.NewServer(b)
	reply := llmtest.Text(strings.Repeat("abcd", tokens-1)+"end.").WithUsage(100, tokens)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return reply })
	p, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", Stream: true})
	if err != nil {
		b.Fatal(err)
	}
	req := userReq("go")
	n := 0
	cb := llm.Callbacks{OnContent: func(string) { n++ }}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := p.Chat(context.Background(), req, cb); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start)
	if n != b.N*tokens {
		b.Fatalf("%d content events, want %d", n, b.N*tokens)
	}
	b.ReportMetric(float64(el.Nanoseconds())/float64(b.N*tokens), "ns/token")
	b.ReportMetric(float64(b.N*tokens)/el.Seconds(), "tokens/s")
}

// BenchmarkToolCallDeltas: 4 interleaved tool calls, 2 KB of arguments each,
// in 4-byte pieces (≈2,000 deltas per call).
func BenchmarkToolCallDeltas(b *testing.B) {
	srv := llmtest.NewServer(b)
	var calls []llmtest.ToolCall
	for i := 0; i < 4; i++ {
		calls = append(calls, llmtest.Call("c"+string(rune('0'+i)), "WriteFile", `{"path":"f","content":"`+strings.Repeat("x", 2000)+`"}`))
	}
	reply := llmtest.Calls(calls...)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return reply })
	p, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", Stream: true})
	if err != nil {
		b.Fatal(err)
	}
	req := userReq("go")
	deltas := 0
	cb := llm.Callbacks{OnToolCallDelta: func(int, string, string, string) { deltas++ }}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		resp, err := p.Chat(context.Background(), req, cb)
		if err != nil || len(resp.Message.ToolCalls) != 4 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(deltas), "ns/delta")
}
