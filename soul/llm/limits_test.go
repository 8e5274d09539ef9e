package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store/message"
)

// streamServer serves every request with handle, as an event stream.
func streamServer(t *testing.T, handle func(w http.ResponseWriter, flush func())) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher)
		handle(w, f.Flush)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func rawProvider(t *testing.T, url string, callTimeout time.Duration) *llm.Provider {
	t.Helper()
	p, err := llm.New(llm.Config{BaseURL: url + "/v1", APIKey: "k", Model: "m", Stream: true, MaxRetries: 2,
		CallTimeout: callTimeout, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var hi = llm.Request{Messages: []message.Message{message.NewText("user", "hi")}}

func TestKeepAlivesForeverAreAbandoned(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, func(w http.ResponseWriter, flush func()) {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range tick.C {
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
			flush()
		}
	})
	p := rawProvider(t, srv.URL, 300*time.Millisecond)
	done := make(chan error, 1)
	go func() { _, err := p.Chat(context.Background(), hi, llm.Callbacks{}); done <- err }()
	select {
	case err := <-done:
		var le *llm.Error
		if !errors.As(err, &le) || !errors.Is(err, llm.ErrCallTimeout) || !le.Temporary || !strings.Contains(le.Message, "no complete answer within 300ms") {
			t.Fatalf("error: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a server sending only keep-alives was never abandoned")
	}
}

func TestEndlessStreamLineFailsTheCall(t *testing.T) {
	t.Parallel()
	srv := streamServer(t, func(w http.ResponseWriter, flush func()) {
		block := bytes.Repeat([]byte("a"), 1<<20)
		if _, err := w.Write([]byte(`data: {"choices":[{"index":0,"delta":{"content":"`)); err != nil {
			return
		}
		for range 3 * llm.MaxStreamLine >> 20 { // far past the cap, then give up
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	})
	p := rawProvider(t, srv.URL, time.Minute)
	_, err := p.Chat(context.Background(), hi, llm.Callbacks{})
	var le *llm.Error
	if !errors.As(err, &le) || le.Temporary || !strings.Contains(le.Message, "stream line longer than 16 MiB") {
		t.Fatalf("error: %v", err)
	}
}

// TestNonASCIIToolArgumentsArriveWhole: the argument deltas of a streamed
// tool call carry whole runes, so a command with U+2800 or accents reaches
// the approval dialog as sent, not as U+FFFD.
func TestNonASCIIToolArgumentsArriveWhole(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	cmd := "echo safe" + strings.Repeat("\u2800", 40) + "; echo café"
	srv.Enqueue(llmtest.Calls(llmtest.Call("c1", "Shell", map[string]any{"command": cmd})))
	p, _ := newProvider(t, srv, true)
	resp, err := p.Chat(context.Background(), hi, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	var args struct{ Command string }
	if len(resp.Message.ToolCalls) != 1 || json.Unmarshal([]byte(resp.Message.ToolCalls[0].Args), &args) != nil || args.Command != cmd {
		t.Fatalf("tool call: %+v", resp.Message.ToolCalls)
	}
}
