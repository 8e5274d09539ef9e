// Command streambench measures a terminal coding agent streaming one long
// answer, as a user's terminal sees it: the agent runs in tmux (160x48 by
// default) under script(1), which records every byte it writes to the
// terminal, against an in-process OpenAI-compatible server that streams a
// markdown answer of -tokens tokens at -rate tokens a second.
//
// It reports, for each quarter of the stream, the agent's CPU time (utime
// + stime of its processes from /proc, so other load on the machine does
// not count) and the bytes written to the terminal, and the time from the
// server writing the last token to that token's bytes reaching the
// terminal.
//
//	go build -o /tmp/rewind ./cmd/rewind
//	go run ./cmd/streambench -client rewind -bin /tmp/rewind
//	go run ./cmd/streambench -client crush -bin /path/to/crush
//
// See views/BENCHMARKS.md.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rewind-agent/rewind/internal/benchtext"
)

// promptMarker is in the prompt typed; a request holding it and tools is
// the agent's turn, anything else (a title) gets a short answer.
const promptMarker = "STREAMBENCH"

var captures = new(bool)

// endMarker is the answer's last token, found in the terminal's bytes.
const endMarker = "ZQXENDMARKQZ"

func main() {
	client := flag.String("client", "rewind", "rewind or crush")
	bin := flag.String("bin", "", "the agent's binary")
	tokens := flag.Int("tokens", 20000, "tokens in the answer")
	rate := flag.Int("rate", 2000, "tokens a second")
	cols := flag.Int("cols", 160, "terminal columns")
	rows := flag.Int("rows", 48, "terminal rows")
	keep := flag.String("dir", "", "keep the typescript and homes here (default: a temporary dir, removed)")
	flag.BoolVar(captures, "screens", false, "save the screen at the end of each quarter in -dir (screen-qN.txt)")
	flag.Parse()
	if *bin == "" {
		fail("streambench: give the agent's binary with -bin")
	}
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "streambench")
		if err != nil {
			fail("streambench: %v", err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	res, err := run(*client, *bin, dir, *tokens, *rate, *cols, *rows)
	if err != nil {
		fail("streambench: %v", err)
	}
	res.print(os.Stdout)
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
	os.Exit(1)
}

// answer is the streamed markdown, token by token (benchtext.Answer, which
// the views' frame benchmarks draw too), then endMarker.
func answer(n int) []string {
	return append(benchtext.Answer(n-1), "\n\n"+endMarker)
}

// server is the fake model.
type server struct {
	served atomic.Bool // the long answer is served once
	toks   []string
	rate   int
	// onToken is called after token i is flushed.
	onToken func(i int, at time.Time)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"bench","object":"model","owned_by":"bench"}]}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if f := os.Getenv("STREAMBENCH_REQUESTS"); f != "" { // debugging a client's requests
		if w, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(w, "%s %s\n%s\n", r.Method, r.URL.Path, body)
			w.Close()
		}
	}
	var req struct {
		Stream bool            `json:"stream"`
		Tools  json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	long := bytes.Contains(body, []byte(promptMarker)) && len(req.Tools) > 2 && !s.served.Swap(true)
	toks := []string{"Streaming ", "bench"}
	if long {
		toks = s.toks
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "b", "object": "chat.completion", "created": time.Now().Unix(), "model": "bench",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": strings.Join(toks, "")}}},
			"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": len(toks), "total_tokens": 10 + len(toks)},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	chunk := func(delta map[string]any, finish any) []byte {
		b, _ := json.Marshal(map[string]any{
			"id": "b", "object": "chat.completion.chunk", "created": 1, "model": "bench",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		return append(append([]byte("data: "), b...), "\n\n"...)
	}
	w.Write(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	interval := time.Second / time.Duration(s.rate)
	start := time.Now()
	var buf []byte
	for sent := 0; sent < len(toks); {
		due := min(len(toks), int(time.Since(start)/interval)+1)
		if !long {
			due = len(toks)
		}
		if due <= sent {
			time.Sleep(time.Until(start.Add(time.Duration(sent) * interval)))
			continue
		}
		buf = buf[:0]
		for _, t := range toks[sent:due] {
			buf = append(buf, chunk(map[string]any{"content": t}, nil)...)
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		at := time.Now()
		if long && s.onToken != nil {
			for i := sent; i < due; i++ {
				s.onToken(i, at)
			}
		}
		sent = due
	}
	w.Write(chunk(map[string]any{}, "stop"))
	b, _ := json.Marshal(map[string]any{"id": "b", "object": "chat.completion.chunk", "created": 1, "model": "bench", "choices": []any{},
		"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": len(toks), "total_tokens": 10 + len(toks)}})
	w.Write(append(append([]byte("data: "), b...), "\n\ndata: [DONE]\n\n"...))
	if fl != nil {
		fl.Flush()
	}
}

// sample is the agent's CPU time and the terminal's byte count at a moment.
type sample struct {
	at    time.Time
	cpu   time.Duration
	bytes int64
}

type result struct {
	client     string
	tokens     int
	cols, rows int
	quarters   [5]sample // the first token, then the end of each quarter
	settled    sample    // one second after the last token
	lastToken  time.Time // the server wrote the last token
	onScreen   time.Time // its bytes reached the terminal
	total      int64     // bytes the whole run wrote (start-up included)
}

func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "%s: %d tokens at %dx%d\n", r.client, r.tokens, r.cols, r.rows)
	fmt.Fprintf(w, "%-8s %10s %10s %12s %10s %12s\n", "quarter", "wall", "CPU", "CPU/wall", "bytes", "µs CPU/token")
	q := r.tokens / 4
	for i := 1; i <= 4; i++ {
		a, b := r.quarters[i-1], r.quarters[i]
		wall, cpu := b.at.Sub(a.at), b.cpu-a.cpu
		fmt.Fprintf(w, "%-8d %10s %10s %11.1f%% %10d %12.1f\n", i, wall.Round(time.Millisecond), cpu.Round(time.Millisecond),
			100*cpu.Seconds()/wall.Seconds(), b.bytes-a.bytes, float64(cpu.Microseconds())/float64(q))
	}
	a, b := r.quarters[0], r.quarters[4]
	wall, cpu := b.at.Sub(a.at), b.cpu-a.cpu
	fmt.Fprintf(w, "stream: %s wall, %s CPU (%.1f%% of a core), %d bytes to the terminal (%.2f MB; %d more until a second after the last token showed)\n",
		wall.Round(time.Millisecond), cpu.Round(time.Millisecond), 100*cpu.Seconds()/wall.Seconds(), b.bytes-a.bytes,
		float64(b.bytes-a.bytes)/1e6, r.settled.bytes-b.bytes)
	q1 := r.quarters[1].cpu - r.quarters[0].cpu
	q4 := r.quarters[4].cpu - r.quarters[3].cpu
	if q1 > 0 {
		fmt.Fprintf(w, "CPU last quarter / first quarter: %.2f\n", q4.Seconds()/q1.Seconds())
	}
	if r.onScreen.IsZero() {
		fmt.Fprintf(w, "last token on screen: not within 30 s\n")
	} else {
		fmt.Fprintf(w, "last token on screen: %s after the server wrote it\n", r.onScreen.Sub(r.lastToken).Round(time.Millisecond))
	}
	fmt.Fprintf(w, "whole run: %d bytes to the terminal\n", r.total)
}

func run(client, bin, dir string, ntok, rate, cols, rows int) (*result, error) {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	base := "http://" + ln.Addr().String() + "/v1"
	typescript := filepath.Join(dir, "typescript")
	work := filepath.Join(dir, "work")
	home := filepath.Join(dir, "home")
	for _, d := range []string{work, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"OPENAI_API_KEY=bench-key", "OPENAI_BASE_URL=" + base}
	switch client {
	case "rewind":
		env = append(env, "REWIND_HOME="+filepath.Join(home, "rewind"), "REWIND_MODEL=bench")
	case "crush":
		env = append(env, "CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1", "CRUSH_DISABLE_METRICS=1", "DO_NOT_TRACK=1")
		cfg := fmt.Sprintf(`{"providers":{"bench":{"type":"openai-compat","base_url":%q,"api_key":"bench-key","models":[{"id":"bench","name":"bench","context_window":200000,"default_max_tokens":50000}]}},
"models":{"large":{"model":"bench","provider":"bench"},"small":{"model":"bench","provider":"bench"}},
"options":{"disable_provider_auto_update":true,"disable_metrics":true}}`, base)
		if err := os.WriteFile(filepath.Join(work, "crush.json"), []byte(cfg), 0o600); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown client %q (rewind or crush)", client)
	}

	res := &result{client: client, tokens: ntok, cols: cols, rows: rows}
	sock := fmt.Sprintf("streambench-%d", os.Getpid())
	var mu sync.Mutex
	var pids []int // the agent's processes (under script)
	sampleNow := func() sample {
		s := sample{at: time.Now()}
		mu.Lock()
		s.cpu = cpuOf(pids)
		mu.Unlock()
		if st, err := os.Stat(typescript); err == nil {
			s.bytes = st.Size()
		}
		return s
	}
	q := ntok / 4
	srv := &server{toks: answer(ntok), rate: rate}
	lastDone := make(chan struct{})
	srv.onToken = func(i int, at time.Time) {
		switch {
		case i == 0:
			res.quarters[0] = sampleNow()
		case (i+1)%q == 0 && (i+1)/q <= 4:
			k := (i + 1) / q
			res.quarters[k] = sampleNow()
			if *captures {
				go func() {
					out, _ := exec.Command("tmux", "-L", sock, "capture-pane", "-p", "-t", "bench").Output()
					os.WriteFile(filepath.Join(dir, fmt.Sprintf("screen-q%d.txt", k)), out, 0o600)
				}()
			}
		}
		if i == ntok-1 {
			res.lastToken = at
			close(lastDone)
		}
	}
	go http.Serve(ln, srv)

	tmux := func(args ...string) ([]byte, error) {
		return exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
	}
	defer tmux("kill-server")
	var cmd strings.Builder
	fmt.Fprintf(&cmd, "cd %s && exec env", shellQuote(work))
	for _, e := range env {
		cmd.WriteString(" " + shellQuote(e))
	}
	fmt.Fprintf(&cmd, " script -q -f -c %s %s", shellQuote(shellQuote(bin)), shellQuote(typescript))
	if out, err := tmux("new-session", "-d", "-s", "bench", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), cmd.String()); err != nil {
		return nil, fmt.Errorf("tmux: %v: %s", err, out)
	}
	out, err := tmux("display", "-p", "-t", "bench", "#{pane_pid}")
	if err != nil {
		return nil, fmt.Errorf("tmux: %v: %s", err, out)
	}
	scriptPID, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	// script(1) outlives tmux's kill-server (it ignores the hangup) and
	// keeps the agent's terminal open: end it, and the agent gets its
	// hangup (deferred calls run last-in first-out: this before kill-server).
	defer syscall.Kill(scriptPID, syscall.SIGTERM)

	// Wait for the agent to start and its screen to settle.
	deadline := time.Now().Add(30 * time.Second)
	var size int64 = -1
	stable := time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		st, err := os.Stat(typescript)
		if err != nil {
			continue
		}
		if st.Size() != size {
			size, stable = st.Size(), time.Now()
		} else if size > 500 && time.Since(stable) > 2*time.Second {
			break
		}
	}
	mu.Lock()
	pids = descendants(scriptPID)
	mu.Unlock()
	if len(pids) == 0 {
		return nil, fmt.Errorf("the agent did not start (see %s)", typescript)
	}

	// Watch the terminal's bytes for the end marker.
	seen := make(chan time.Time, 1)
	go watchFor(typescript, []byte(endMarker), seen)

	tmux("send-keys", "-t", "bench", "-l", "please stream a long answer "+promptMarker)
	time.Sleep(300 * time.Millisecond)
	tmux("send-keys", "-t", "bench", "Enter")

	select {
	case <-lastDone:
	case <-time.After(time.Duration(ntok/rate)*time.Second + 60*time.Second):
		return nil, fmt.Errorf("the stream did not finish (see %s)", typescript)
	}
	end := res.lastToken
	select {
	case t := <-seen:
		res.onScreen, end = t, t
	case <-time.After(30 * time.Second):
	}
	time.Sleep(time.Until(end.Add(time.Second)))
	res.settled = sampleNow()
	res.total = res.settled.bytes
	return res, nil
}

// watchFor reads the growing file and sends the time marker first shows.
func watchFor(path string, marker []byte, seen chan<- time.Time) {
	var f *os.File
	for f == nil {
		f, _ = os.Open(path)
		time.Sleep(time.Millisecond)
	}
	defer f.Close()
	var tail []byte
	buf := make([]byte, 1<<16)
	for {
		n, _ := f.Read(buf)
		if n == 0 {
			time.Sleep(time.Millisecond)
			continue
		}
		tail = append(tail, buf[:n]...)
		if bytes.Contains(tail, marker) {
			seen <- time.Now()
			return
		}
		if len(tail) > len(marker) {
			tail = append(tail[:0], tail[len(tail)-len(marker):]...)
		}
	}
}

// descendants are the processes under pid (not pid itself).
func descendants(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(p); len(f) > 1 {
			pp, _ := strconv.Atoi(f[1])
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// statFields are /proc/PID/stat's fields after the command name.
func statFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// cpuOf is the user+system CPU time of the processes.
func cpuOf(pids []int) time.Duration {
	var ticks int64
	for _, p := range pids {
		f := statFields(p)
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + s
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
