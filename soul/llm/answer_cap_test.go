package llm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm"
)

// cappedProvider is rawProvider with the answer and tool-arguments caps set.
func cappedProvider(t *testing.T, url string, stream bool, answer, args int) *llm.Provider {
	t.Helper()
	p, err := llm.New(llm.Config{BaseURL: url + "/v1", APIKey: "k", Model: "m", Stream: stream, MaxRetries: 2,
		InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxAnswerBytes: answer, MaxToolArgsBytes: args})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// manyLines streams lines of delta each (content, reasoning or a tool
// call's arguments), each far under the line cap, until the client goes
// away or n lines were sent; requests counts the requests.
func manyLines(t *testing.T, kind string, size, n int, requests *atomic.Int64) string {
	block := strings.Repeat("a", size)
	return streamServer(t, func(w http.ResponseWriter, flush func()) {
		requests.Add(1)
		for i := range n {
			var line string
			switch kind {
			case "content", "reasoning_content":
				line = fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{%q:%q}}]}`, kind, block)
			case "args":
				name := ""
				if i == 0 {
					name = `"id":"c1","type":"function","function":{"name":"Shell","arguments":""}`
					if _, err := fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,%s}]}}]}\n\n", name); err != nil {
						return
					}
				}
				line = fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}}]}`, block)
			}
			if _, err := w.Write([]byte(line + "\n\n")); err != nil {
				return
			}
			flush()
		}
		w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	}).URL
}

// TestLongAnswerAcrossLinesFailsTheStep: an answer, reasoning or tool
// call's arguments that grows past its cap over many stream lines, each
// under the line cap, fails the call at once with ErrAnswerTooLarge, not
// retried, its message one line naming the config key. On the old code
// only a single line was capped: 40 lines of 12 MiB took 10 GB.
func TestLongAnswerAcrossLinesFailsTheStep(t *testing.T) {
	t.Parallel()
	const line = 64 << 10
	for _, tc := range []struct {
		kind, key string
	}{
		{"content", "answer_size_cap"},
		{"reasoning_content", "answer_size_cap"},
		{"args", "tool_args_size_cap"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int64
			p := cappedProvider(t, manyLines(t, tc.kind, line, 200, &requests), true, 1<<20, 1<<20)
			var streamed int
			_, err := p.Chat(context.Background(), hi, llm.Callbacks{
				OnContent:       func(s string) { streamed += len(s) },
				OnReasoning:     func(s string) { streamed += len(s) },
				OnToolCallDelta: func(_ int, _, _, d string) { streamed += len(d) },
			})
			var le *llm.Error
			if !errors.As(err, &le) || !errors.Is(err, llm.ErrAnswerTooLarge) || le.Temporary {
				t.Fatalf("error: %v, want a permanent ErrAnswerTooLarge", err)
			}
			if !strings.Contains(le.Message, "1 MiB") || !strings.Contains(le.Message, tc.key) || strings.Contains(le.Message, "\n") {
				t.Errorf("message %q: want one line naming 1 MiB and %s", le.Message, tc.key)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("%d requests: an answer over the cap is not retried", n)
			}
			if streamed > 1<<20 {
				t.Errorf("%d bytes handed on past a 1 MiB cap", streamed)
			}
		})
	}
}

// TestAnswerCapsDefaultToEightMiB: without a setting each cap is 8 MiB, and
// an answer just under it passes.
func TestAnswerCapsDefaultToEightMiB(t *testing.T) {
	t.Parallel()
	if llm.DefaultMaxAnswerBytes != 8<<20 || llm.DefaultMaxToolArgsBytes != 8<<20 {
		t.Fatalf("defaults %d, %d", llm.DefaultMaxAnswerBytes, llm.DefaultMaxToolArgsBytes)
	}
	var requests atomic.Int64
	p := rawProvider(t, manyLines(t, "content", 1<<20, 7, &requests), time.Minute)
	resp, err := p.Chat(context.Background(), hi, llm.Callbacks{})
	if err != nil || len(resp.Message.Content.PlainText()) != 7<<20 {
		t.Fatalf("a 7 MiB answer: %v", err)
	}
	p = rawProvider(t, manyLines(t, "content", 1<<20, 9, &requests), time.Minute)
	if _, err := p.Chat(context.Background(), hi, llm.Callbacks{}); !errors.Is(err, llm.ErrAnswerTooLarge) {
		t.Fatalf("a 9 MiB answer: %v", err)
	}
}

// TestLongJSONAnswerFailsTheStep: a non-streamed answer over the cap fails
// the same way.
func TestLongJSONAnswerFailsTheStep(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("b"), 2<<20)
	body := fmt.Sprintf(`{"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`, big)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	p := cappedProvider(t, srv.URL, false, 1<<20, 1<<20)
	if _, err := p.Chat(context.Background(), hi, llm.Callbacks{}); !errors.Is(err, llm.ErrAnswerTooLarge) {
		t.Fatalf("a 2 MiB JSON answer over a 1 MiB cap: %v", err)
	}
}
