package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

const crashEnv = "REWIND_STORE_CRASH_CHILD"

// crashStep is a step with n tool calls, each answered.
func crashStep(i, n int) Step {
	asst := message.Message{Role: "assistant", Content: message.TextContent(fmt.Sprintf("step %d", i))}
	var results []message.Message
	for k := 0; k < n; k++ {
		id := fmt.Sprintf("call-%d-%d", i, k)
		asst.ToolCalls = append(asst.ToolCalls, message.ToolCall{ID: id, Name: "Shell", Args: `{"command":"echo"}`})
		results = append(results, message.Message{Role: "tool", ToolCallID: id, Content: message.TextContent(strings.Repeat("output ", 50))})
	}
	return Step{Assistant: asst, ToolResults: results, TokenCount: 1000 + i}
}

// TestCrashChild is the child of TestCrashKill9: it commits steps until it is
// killed, printing each committed record's seq after the commit returns.
func TestCrashChild(t *testing.T) {
	t.Parallel()
	spec := os.Getenv(crashEnv)
	if spec == "" {
		t.Skip("run by TestCrashKill9")
	}
	path, sid, _ := strings.Cut(spec, "|")
	db, err := Open(context.Background(), path)
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		if _, err := db.Checkpoint(bg, sid, true); err != nil {
			fmt.Println("ERR", err)
			os.Exit(3)
		}
		recs, err := db.CommitStep(bg, sid, crashStep(i, 1+i%3))
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(3)
		}
		for _, r := range recs {
			fmt.Fprintln(out, "SEQ", r.Seq)
		}
		out.Flush()
		if i%7 == 6 {
			if _, err := db.RevertTo(bg, sid, (i/2)%3, CauseRevert, ""); err != nil {
				fmt.Println("ERR", err)
				os.Exit(3)
			}
		}
	}
}

// TestCrashKill9 kills a writing child with SIGKILL at random moments and
// checks after each kill that the database is intact, every record the
// child reported is there, and no step is half-present. Twenty kills, ten
// on each of two databases at once: a kill waits for its child to start
// and write, and for its check.
func TestCrashKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("short")
	}
	for half := range 2 {
		t.Run(fmt.Sprint(half), func(t *testing.T) {
			t.Parallel()
			crashKill9(t, 10)
		})
	}
}

func crashKill9(t *testing.T, kills int) {
	path := newDBPath(t)
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	sid := newSession(t, db, "crash", "/w").ID
	db.Close()

	reported := map[int64]bool{}
	for k := 0; k < kills; k++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path+"|"+sid)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var lines []string
		done, writing := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(stdout)
			for first := true; sc.Scan(); {
				mu.Lock()
				lines = append(lines, sc.Text())
				mu.Unlock()
				if first {
					close(writing)
					first = false
				}
			}
		}()
		select {
		case <-writing:
			// The point: kill -9 at a random moment of the writes, which
			// have begun (a kill while the child still started proved nothing).
			// The child commits a step every millisecond or two: 30 ms
			// span a dozen commits, and the kill lands anywhere in one.
			time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		case <-done: // the child ended before writing: its ERR line says why
		}
		<-done
		cmd.Wait()
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "ERR") {
				t.Fatalf("child: %s", l)
			}
			if s, ok := strings.CutPrefix(l, "SEQ "); ok {
				seq, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					continue // a line cut by the kill
				}
				reported[seq] = true
				n++
			}
		}
		verifyAfterCrash(t, path, sid, reported)
		t.Logf("kill %d: %d records reported by the child, %d in total", k, n, len(reported))
	}
	if len(reported) == 0 {
		t.Fatal("the child never committed anything")
	}
}

func verifyAfterCrash(t *testing.T, path, sid string, reported map[int64]bool) {
	t.Helper()
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.Reader().QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
	rows, err := db.Reader().Query(`SELECT seq, CASE kind WHEN 0 THEN 'message' WHEN 1 THEN 'checkpoint' ELSE 'usage' END, coalesce(body, '') FROM context WHERE session_key = (SELECT key FROM sessions WHERE id = ?) ORDER BY seq`, sid)
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		seq  int64
		kind Kind
		body string
	}
	var recs []rec
	present := map[int64]bool{}
	for rows.Next() {
		var r rec
		if err := rows.Scan(&r.seq, &r.kind, &r.body); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
		present[r.seq] = true
	}
	rows.Close()
	for seq := range reported {
		if !present[seq] {
			t.Fatalf("record %d was reported committed but is missing", seq)
		}
	}
	// Steps are contiguous: assistant, usage, one result per call.
	for i, r := range recs {
		var m message.Message
		if r.kind != KindMessage || json.Unmarshal([]byte(r.body), &m) != nil || m.Role != "assistant" {
			continue
		}
		n := len(m.ToolCalls)
		if i+n+1 >= len(recs) {
			t.Fatalf("step at seq %d is cut short", r.seq)
		}
		if recs[i+1].kind != KindUsage {
			t.Fatalf("step at seq %d: usage missing", r.seq)
		}
		for k := 0; k < n; k++ {
			var res message.Message
			json.Unmarshal([]byte(recs[i+2+k].body), &res)
			if res.Role != "tool" || res.ToolCallID != m.ToolCalls[k].ID {
				t.Fatalf("step at seq %d: result %d missing", r.seq, k)
			}
		}
	}
	// The current view is consistent with its counters.
	checkCounters(t, db, sid)
}
