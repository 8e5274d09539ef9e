package main

// The database's own guarantees end to end through the binary: damage is
// found whatever the file's times say.

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestDamageHiddenByTouchIsFound is the attack of issue 20 item 9 with the
// same tools: pages of a real database overwritten by `dd conv=notrunc`,
// then its mtime put back with `touch -d`. The next write is refused as on
// any damaged file, and the .checked stamp is not rewritten. (The cache
// answered from size and mtime: rewind wrote a session onto the damaged
// file and stamped it again.)
func TestDamageHiddenByTouchIsFound(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"dd", "touch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	e.fillPages(12)
	var pages int64
	db, err := sql.Open("sqlite3", e.dbPath()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil || pages < 10 {
		t.Fatalf("page_count %d: %v", pages, err)
	}
	db.Close()
	st, err := os.Stat(e.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	stamp, _ := os.ReadFile(e.dbPath() + ".checked")
	// The last process to write checked the file and stamped it: the
	// stamp describes its size and mtime, which the damage keeps.
	var size, mtime int64
	if _, err := fmt.Sscanf(string(stamp), "v2 %d %d", &size, &mtime); err != nil || size != st.Size() || mtime != st.ModTime().UnixNano() {
		t.Fatalf("the stamp %q does not describe the file (%d bytes, mtime %d): %v", stamp, st.Size(), st.ModTime().UnixNano(), err)
	}
	for _, args := range [][]string{
		{"dd", "if=/dev/urandom", "of=" + e.dbPath(), "bs=4096", fmt.Sprintf("seek=%d", pages/2), "count=3", "conv=notrunc", "status=none"},
		{"touch", "-d", fmt.Sprintf("@%d.%09d", st.ModTime().Unix(), st.ModTime().Nanosecond()), e.dbPath()},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	if after, _ := os.Stat(e.dbPath()); after.Size() != st.Size() || !after.ModTime().Equal(st.ModTime()) {
		t.Fatalf("size or mtime changed (%d %v, was %d %v): the damage is not hidden", after.Size(), after.ModTime(), st.Size(), st.ModTime())
	}
	before, _ := os.ReadFile(e.dbPath())

	srv.Enqueue(llmtest.Text("never asked"))
	expectError(t, e.run("-p", "one more question"), 1, "is damaged", ".recover")
	if after, _ := os.ReadFile(e.dbPath()); !bytes.Equal(before, after) {
		t.Error("the damaged database was written to")
	}
	if got, _ := os.ReadFile(e.dbPath() + ".checked"); !bytes.Equal(got, stamp) {
		t.Errorf("the .checked stamp was rewritten over the damaged file: %q, was %q", got, stamp)
	}
	if got := len(srv.Requests()); got != 0 {
		t.Errorf("the model was asked %d times after the damage", got)
	}
}

// TestInterruptWhileAnotherProcessHoldsTheLockKeepsTheAnswer is issue 20
// item 7 with two real processes: this test holds the database's write
// lock (as a long import in another rewind does) from the moment the model
// starts answering, so the step's commit waits. Ctrl-C then ends rewind
// within the quit bound, not after the busy timeout and the lease's
// release, and what streamed is in a private recovery file, which the next
// start commits to an archived interrupt generation, saying so in one
// line. (rewind exited 19 s later and the answer was lost.)
func TestInterruptWhileAnotherProcessHoldsTheLockKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	srv.Enqueue(llmtest.Text("first answer"))
	e.mustOK("-p", "first question")
	id := e.onlySession()

	const answer = "the whole second answer, streamed while another process held the lock"
	var lock *sql.Conn
	locked := make(chan struct{})
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		other, err := sql.Open("sqlite3", "file:"+e.dbPath()+"?_busy_timeout=10000")
		if err == nil {
			lock, err = other.Conn(context.Background())
		}
		if err == nil {
			_, err = lock.ExecContext(context.Background(), "BEGIN IMMEDIATE")
		}
		if err != nil {
			t.Errorf("taking the write lock: %v", err)
		}
		close(locked)
		return llmtest.Text(answer)
	})
	cmd := e.command(context.Background(), "-p", "second question", "--session", id, "--output", "jsonl")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-locked
	defer func() {
		if lock != nil {
			lock.ExecContext(context.Background(), "ROLLBACK")
			lock.Close()
		}
	}()
	// The answer has streamed once its last part is out; the commit waits.
	sc := bufio.NewScanner(stdout)
	var streamed strings.Builder
	for !strings.Contains(streamed.String(), answer) && sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "ContentPart" {
			streamed.WriteString(payload[struct{ Text string }](t, ev).Text)
		}
	}
	if !strings.Contains(streamed.String(), answer) {
		t.Fatalf("the answer did not stream: %q\n%s", streamed.String(), stderr.String())
	}
	start := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var rest bytes.Buffer
	go io.Copy(&rest, stdout)
	err = cmd.Wait()
	took := time.Since(start)
	if took > 2*time.Second {
		t.Errorf("rewind exited %v after Ctrl-C while another process held the lock, want under 2 s", took.Round(time.Millisecond))
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want 130\n%s", err, stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(e.dbPath()+".recovery", "*.json"))
	if len(files) != 1 {
		t.Fatalf("recovery files %q after the exit, want one\nstderr: %s\nstdout: %s", files, stderr.String(), rest.String())
	}
	if st, err := os.Stat(files[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the recovery file: %v, mode %v, want 0600", err, st.Mode().Perm())
	}
	if !strings.Contains(stderr.String(), files[0]) {
		t.Errorf("stderr does not name the recovery file %s:\n%s", files[0], stderr.String())
	}
	lock.ExecContext(context.Background(), "ROLLBACK")
	lock.Close()
	lock = nil

	r := e.mustOK("sessions")
	if n := strings.Count(r.stderr, "\n"); n != 1 || !strings.Contains(r.stderr, "kept an answer interrupted at an earlier exit") {
		t.Fatalf("the next start's notice (want one line):\n%s", r.stderr)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Errorf("the recovery file outlived its commit: %v", err)
	}
	var gen int
	if _, err := fmt.Sscanf(r.stderr[strings.Index(r.stderr, "--generation"):], "--generation %d", &gen); err != nil {
		t.Fatalf("no generation in the notice: %s", r.stderr)
	}
	if texts := e.view(id, gen).texts(t); !containsIn(texts, answer) {
		t.Errorf("generation %d holds %q, want the answer", gen, texts)
	}
	if texts := e.view(id).texts(t); containsIn(texts, answer) {
		t.Errorf("the current view holds the interrupted answer: %q", texts)
	}
	if r := e.mustOK("sessions"); r.stderr != "" {
		t.Errorf("a second start recovered again: %s", r.stderr)
	}
}
