package llm_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestTricklingStreamIsReadInBatches: a stream that trickles in at 2,000
// chunks a second is read about once per StreamReadPace, not once per
// chunk (each read that waits for the network wakes the reader: per
// token, that was a third of the agent's CPU while a fast model
// streamed), and nothing is lost.
func TestTricklingStreamIsReadInBatches(t *testing.T) {
	t.Parallel()
	const tokens = 600 // 0.3 s at 2,000 a second
	srv := llmtest.NewServer(t)
	answer := strings.Repeat("abcd", tokens)
	srv.Enqueue(llmtest.Text(answer).WithRate(2000))
	p, _ := newProvider(t, srv, true)
	var reads, pauses atomic.Int64
	llm.CountStreamReads(p, &reads, &pauses)
	var rec recorder
	start := time.Now()
	resp, err := p.Chat(context.Background(), userReq("q"), rec.callbacks())
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if got := rec.content.String(); got != answer || resp.Message.Content.PlainText() != answer {
		t.Fatalf("streamed %d bytes, answer %d; want %d", len(got), len(resp.Message.Content.PlainText()), len(answer))
	}
	// A read after each pause and one that waits for the next chunk
	// after it: about two per StreamReadPace (60 here when the server
	// keeps its rate; one per chunk was 600). A starved server sends
	// slower and the bound grows with the time it took. The bound is
	// three a pace: a read that finds data is not paced, and on a loaded
	// machine what the server wrote in one pace can arrive in two TCP
	// segments, read one after the other (151 reads in 70 paces, 60
	// pauses, at load 9); a read per chunk is twenty a pace.
	if n, most := reads.Load(), 3*int64(took/llm.StreamReadPace)+10; n > most {
		t.Fatalf("%d reads for %d chunks trickling in over %v (%d pauses), want at most %d: the stream is read per chunk", n, tokens, took, pauses.Load(), most)
	}
}
