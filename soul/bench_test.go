package soul

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// benchAnswer is 10,000 runes, streamed 4 runes per chunk: 2,500 deltas.
var benchAnswer = strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 180)[:10000]

type benchRig struct {
	db     *store.DB
	srv    *llmtest.Server
	client *llm.Provider
	work   string
}

func newBenchRig(b *testing.B) *benchRig {
	b.Helper()
	dir := b.TempDir()
	db := storetest.OpenAt(b, filepath.Join(dir, "rewind.db"), store.Options{})
	srv := llmtest.NewServer(b)
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "bench", Stream: true, MaxRetries: -1})
	if err != nil {
		b.Fatal(err)
	}
	return &benchRig{db: db, srv: srv, client: client, work: dir}
}

// runOnce runs one prompt in a fresh session (so the view does not grow
// across iterations) and returns the number of events.
func (r *benchRig) runOnce(b *testing.B, reply llmtest.Reply) int {
	b.StopTimer()
	sess, err := r.db.CreateSession(context.Background(), store.NewSession{WorkDir: r.work, Model: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	r.srv.Enqueue(reply)
	n := 0
	s := New(Config{}, r.db, sess.ID, r.client, tools.Default(), r.work, func(Event) { n++ })
	b.StartTimer()
	if err := s.Run(context.Background(), "write a long answer"); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkRunStreaming measures the whole path — HTTP from the fake server,
// SSE decoding in soul/llm, the loop, the event sink, the SQLite commit — with
// the server streaming a 10,000-rune answer as fast as it can.
func BenchmarkRunStreaming(b *testing.B) {
	r := newBenchRig(b)
	reply := llmtest.Text(benchAnswer)
	events := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		events += r.runOnce(b, reply)
	}
	b.StopTimer()
	elapsed := b.Elapsed()
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/run")
}

// BenchmarkRunStreaming2000 streams at 2,000 tokens/s (one token per
// delta) and reports the CPU time the process (fake server included) spent
// per streamed token.
func BenchmarkRunStreaming2000(b *testing.B) {
	r := newBenchRig(b)
	reply := llmtest.Text(benchAnswer[:4000]).WithRate(2000) // 1,000 tokens, ~0.5 s
	var before, after syscall.Rusage
	tokens := 0
	b.ResetTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for i := 0; i < b.N; i++ {
		r.runOnce(b, reply)
		tokens += 1000
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	b.StopTimer()
	cpu := tv(after.Utime) + tv(after.Stime) - tv(before.Utime) - tv(before.Stime)
	b.ReportMetric(float64(cpu.Microseconds())/float64(tokens), "cpu-µs/token")
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}
