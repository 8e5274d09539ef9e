package live

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/shellenv"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// BenchmarkWriterToWatcher2000 publishes 2,000 ContentPart deltas per second
// for two seconds to one watcher over the unix socket and reports the
// writer-to-watcher latency (each delta carries its send time) and the
// process CPU share (writer and watcher, so an upper bound of either).
// Run: go test -run '^$' -bench WriterToWatcher -benchtime 1x ./app/live/
func BenchmarkWriterToWatcher2000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchLatency(b, 2000, 2*time.Second)
	}
}

func benchLatency(b *testing.B, tokPerSec int, d time.Duration) {
	h := home(b)
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	c, err := Dial(context.Background(), h, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	total := int(float64(tokPerSec) * d.Seconds())
	lat := make([]time.Duration, 0, total)
	got := make(chan struct{})
	go func() {
		defer close(got)
		for e := range c.Events() {
			cp, ok := e.(soul.ContentPart)
			if !ok {
				continue
			}
			sent, _ := strconv.ParseInt(cp.Text, 10, 64)
			lat = append(lat, time.Since(time.Unix(0, sent)))
			if len(lat) == total {
				return
			}
		}
	}()
	interval := time.Second / time.Duration(tokPerSec)
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	start := time.Now()
	b.ResetTimer()
	p.Publish(soul.StepBegin{N: 1})
	for i := range total {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait) // pacing: the stream's rate is the load measured, not a wait
		}
		p.Publish(soul.ContentPart{Text: strconv.FormatInt(time.Now().UnixNano(), 10)})
	}
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		b.Fatalf("the watcher got %d of %d deltas", len(lat), total)
	}
	wall := time.Since(start)
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
	slices.Sort(lat)
	q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu%")
}

// BenchmarkLongAnswer publishes answers of 2, 8 and 20 MB in 100-byte
// ContentPart deltas, then a watcher joins and reads the step's replay (the
// whole answer in one event); the time should grow with the answer's size,
// not its square. (A watcher connected throughout would be dropped: nothing
// paces these deltas as a model does, and a watcher never slows the writer.)
// Run: go test -run '^$' -bench LongAnswer -benchtime 1x ./app/live/
func BenchmarkLongAnswer(b *testing.B) {
	for _, mb := range []int{2, 8, 20} {
		b.Run(strconv.Itoa(mb)+"MB", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchLongAnswer(b, mb<<20, 100)
			}
		})
	}
}

func benchLongAnswer(b *testing.B, size, delta int) {
	h := home(b)
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: "long"}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	chunk := strings.Repeat("x", delta)
	start := time.Now()
	p.Publish(soul.StepBegin{N: 1})
	for range size / delta {
		p.Publish(soul.ContentPart{Text: chunk})
	}
	published := time.Since(start)
	c, err := Dial(context.Background(), h, "long")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for e := range c.Events() {
		if cp, ok := e.(soul.ContentPart); ok {
			if len(cp.Text) != size/delta*delta {
				b.Fatalf("replayed %d bytes", len(cp.Text))
			}
			break
		}
	}
	b.ReportMetric(published.Seconds(), "publish-s")
	b.ReportMetric(time.Since(start).Seconds(), "total-s")
}

// BenchmarkShellSeqOutput runs Shell `seq 1 N` through a real Soul (over
// SQLite, the fake model) that publishes to a Publisher, with the key
// redaction on, and reports the run's wall time: the command's output
// reaches the publisher as thousands of ToolOutput chunks.
// Run: go test -run '^$' -bench ShellSeqOutput -benchtime 1x ./app/live/
func BenchmarkShellSeqOutput(b *testing.B) {
	for _, n := range []int{1_000_000, 9_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchShellSeq(b, n)
			}
		})
	}
}

func benchShellSeq(b *testing.B, n int) {
	h := home(b)
	p, err := Listen(Options{Home: h, Hello: Hello{SessionID: "seq"}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	dir := b.TempDir()
	db := storetest.OpenAt(b, filepath.Join(dir, "rewind.db"), store.Options{})
	sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	srv := llmtest.NewServer(b)
	srv.Enqueue(llmtest.Calls(llmtest.Call("c1", "Shell", map[string]any{"command": "seq 1 " + strconv.Itoa(n), "timeout": 300})), llmtest.Text("done"))
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", Stream: true})
	if err != nil {
		b.Fatal(err)
	}
	redact := shellenv.NewRedactor([]shellenv.Secret{{Value: "sk-canary-5f1d0c9e7b", Placeholder: shellenv.APIKeyPlaceholder}})
	s := soul.New(soul.Config{Yolo: true, Redact: redact}, db, sess.ID, client, tools.Default(), dir, p.Publish)
	start := time.Now()
	if err := s.Run(ctx, "count"); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(time.Since(start).Seconds(), "s/run")
}
