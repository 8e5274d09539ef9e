package main

// The promises of README "Security and guarantees", end to end through the
// binary: secrets stay out of Shell, the database and exports.

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// filesContaining lists the files under dir whose bytes contain s.
func filesContaining(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), s) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

func TestShellEnvKeepsTheKeyOut(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-env-8c41f2d07a"
	const token = "ghp-canary-token-93b1"
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_env", "Shell", map[string]any{"command": "env; echo SHELL-RAN"})),
		llmtest.Text("done"),
	)
	e := newEnv(t).withServer(srv)
	e.vars["OPENAI_API_KEY"] = canary
	e.vars["GH_TOKEN"] = token
	e.vars["MY_PLAIN_VAR"] = "plain-value"
	r := e.run("-p", "print the environment", "--yolo")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[1].Body)
	if !strings.Contains(body, "SHELL-RAN") || !strings.Contains(body, "MY_PLAIN_VAR=plain-value") {
		t.Fatalf("the Shell output did not reach the model: %s", body)
	}
	for _, secret := range []string{canary, token} {
		if strings.Contains(body, secret) {
			t.Errorf("%s is in the next model request", secret)
		}
		if hits := filesContaining(t, e.home, secret); len(hits) > 0 {
			t.Errorf("%s is in %v (database, WAL or another file)", secret, hits)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%s was printed", secret)
		}
		if exp := e.mustOK("export", e.onlySession()).stdout; strings.Contains(exp, secret) {
			t.Errorf("%s is in the export", secret)
		}
	}
}

func TestRefusedKeyIsMaskedWhenPrinted(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-401-77ad0e"
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	e.vars["OPENAI_API_KEY"] = canary
	for _, out := range []string{"text", "jsonl"} {
		srv.Enqueue(llmtest.HTTPError(401, "Incorrect API key provided: "+canary+"."))
		r := e.run("-p", "hello", "--output", out)
		if r.code == 0 || !strings.Contains(r.stderr+r.stdout, "Incorrect API key provided") {
			t.Fatalf("%s", r)
		}
		if strings.Contains(r.stdout+r.stderr, canary) {
			t.Errorf("--output %s printed the key: %s", out, r)
		}
	}
	if hits := filesContaining(t, e.home, canary); len(hits) > 0 {
		t.Errorf("the key is in %v", hits)
	}
}

// alive reports whether pid is a live process (a zombie is not).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond) // poll: another process (its pid file, its exit) signals nothing here
	}
}

func TestSignalsEndShellProcessGroups(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t)
			srv.Enqueue(
				llmtest.Calls(llmtest.Call("call_sleep", "Shell", map[string]any{"command": "sleep 300 & echo $! > sleep.pid; wait"})),
				llmtest.Text("done"),
			)
			e := newEnv(t).withServer(srv)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := e.command(ctx, "-p", "sleep a while", "--yolo")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(e.workDir, "sleep.pid")
			var sleepPID int
			waitFor(t, "the sleep to start", 20*time.Second, func() bool {
				data, err := os.ReadFile(pidFile)
				if err != nil {
					return false
				}
				sleepPID, err = strconv.Atoi(strings.TrimSpace(string(data)))
				return err == nil
			})
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("rewind did not end after %v", sig)
			}
			waitFor(t, "the sleep to be killed", 10*time.Second, func() bool { return !alive(sleepPID) })
		})
	}
}

func TestSpecialFilesAreNeverOpened(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fifo := filepath.Join(e.workDir, "context.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	r := e.runCtx(ctx, "import", fifo)
	if ctx.Err() != nil {
		t.Fatal("import of a FIFO blocked")
	}
	expectError(t, r, 1, "named pipe (FIFO), not a regular file")

	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		r = e.runCtx(ctx, "import", dev)
		if ctx.Err() != nil {
			t.Fatalf("import of %s never ended", dev)
		}
		expectError(t, r, 1, "character device, not a regular file")
	}

	if err := syscall.Mkfifo(filepath.Join(e.home, "config.toml"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.runCtx(ctx, "sessions")
	if ctx.Err() != nil {
		t.Fatal("a FIFO config.toml blocked")
	}
	expectError(t, r, 1, "config.toml is a named pipe (FIFO)")
}

// TestPausedWriterTakenOverWritesNothing: a `rewind -p` is stopped
// (SIGSTOP, as Ctrl-Z would) while the model answers; meanwhile another
// process takes the session's lease, as it may once the heartbeat is stale.
// When the paused writer resumes it must stop, say so, and commit nothing.
func TestPausedWriterTakenOverWritesNothing(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	asked, answer := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		once.Do(func() { close(asked) })
		<-answer
		return llmtest.Text("answer from the paused writer")
	})
	e := newEnv(t).withServer(srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.command(ctx, "-p", "a question")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the model was never asked")
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The second writer takes the lease (what AcquireLease does once the
	// paused holder's heartbeat is stale) and writes.
	db, err := sql.Open("sqlite3", e.dbPath()+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE leases SET token = 'second-writer', pid = ?, heartbeat_at = ?`, os.Getpid(), time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
	close(answer)
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ctx.Err() != nil || err == nil {
		t.Fatalf("the paused writer did not stop with an error: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "took over session") || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Errorf("stderr should say the lease was lost, in one line: %q", errb.String())
	}
	if texts := e.view(e.onlySession()).texts(t); containsIn(texts, "answer from the paused writer") {
		t.Errorf("the paused writer committed after losing its lease: %v", texts)
	}
}

// TestDamagedDatabaseIsNeverWritten: three pages of noise in the middle of a
// real database file. Every command that would write fails with one line
// naming the recovery, and the file is left byte for byte as it was.
func TestDamagedDatabaseIsNeverWritten(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	e.fillPages(30)
	var pages int64
	db, err := sql.Open("sqlite3", e.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil || pages < 20 {
		t.Fatalf("page_count %d: %v", pages, err)
	}
	db.Close()
	f, err := os.OpenFile(e.dbPath(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 3*4096)
	for i := range noise {
		noise[i] = byte(i*7 + 13)
	}
	if _, err := f.WriteAt(noise, pages/2*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := os.ReadFile(e.dbPath())

	srv.Enqueue(llmtest.Text("never asked"))
	r := e.run("-p", "one more question")
	expectError(t, r, 1, "is damaged", ".recover")
	exp := filepath.Join(e.workDir, "context.jsonl")
	writeFile(t, exp, `{"role":"user","content":"imported"}`+"\n")
	expectError(t, e.run("import", exp), 1, "is damaged", ".recover")

	after, _ := os.ReadFile(e.dbPath())
	if !bytes.Equal(before, after) {
		t.Error("the damaged database was written to")
	}
	for _, suffix := range []string{"-wal", "-journal"} {
		if st, err := os.Stat(e.dbPath() + suffix); err == nil && st.Size() > 0 {
			t.Errorf("%s holds %d bytes: something was written", suffix, st.Size())
		}
	}
	if got := len(srv.Requests()); got != 0 {
		t.Errorf("the model was asked %d times after the damage", got)
	}
}

// TestKill9MidShellKeepsItsEditsRevertable: rewind dies (kill -9) while a
// Shell command that edited files is still running, so the scan after the
// command never ran. The next start of the session finishes that scan and
// records the edits as the command's, so reverting undoes them.
func TestKill9MidShellKeepsItsEditsRevertable(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Calls(llmtest.Call("call_edit", "Shell", map[string]any{
		"command": "echo edited by the agent > notes.txt; echo new > made.txt; echo $$ > shell.pid; sleep 300",
	})))
	e := newEnv(t).withServer(srv)
	writeFile(t, filepath.Join(e.workDir, "notes.txt"), "the user's original\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.command(ctx, "-p", "edit the notes", "--yolo")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var shellPID int
	waitFor(t, "the Shell command to edit the files", 20*time.Second, func() bool {
		data, err := os.ReadFile(filepath.Join(e.workDir, "shell.pid"))
		if err != nil {
			return false
		}
		shellPID, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	})
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	_ = syscall.Kill(-shellPID, syscall.SIGKILL) // its own group outlives a kill -9
	_ = os.Remove(filepath.Join(e.workDir, "shell.pid"))

	id := e.onlySession()
	r := e.mustOK("revert", id, "0", "--files")
	data, err := os.ReadFile(filepath.Join(e.workDir, "notes.txt"))
	if err != nil || string(data) != "the user's original\n" {
		t.Errorf("notes.txt after revert --files: %q %v\n%s", data, err, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(e.workDir, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt survived the revert: %v\n%s", err, r.stdout)
	}
}

func TestExportForceLeavesSpecialFilesAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.seed("export me").id
	fifo := filepath.Join(e.workDir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	expectError(t, e.run("export", id, "-o", fifo, "--force"), 1, "named pipe (FIFO), not a regular file")
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
}

// asNobody runs rewind as an unprivileged user when the tests run as root
// (root writes through any permission bits).
func (e *env) asNobody(t *testing.T, args ...string) result {
	t.Helper()
	cmd := e.command(context.Background(), args...)
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("running as root without setpriv: permissions cannot be tested")
		}
		// The shared binary, not a copy: a copy written while a parallel
		// test forks can fail to exec with "text file busy" (exit 126).
		_ = os.Chmod(filepath.Dir(binary), 0o755)
		// Each t.TempDir() and the test's dir above it (never /tmp itself;
		// the test binary's own TMPDIR on tmpfs, though).
		for _, d := range []string{e.home, e.workDir, e.vars["HOME"]} {
			_ = os.Chmod(d, 0o755)
			_ = os.Chmod(filepath.Dir(d), 0o755)
		}
		if memoryTmp != "" {
			_ = os.Chmod(memoryTmp, 0o755)
		}
		_ = os.Chmod(e.home, 0o555)
		cmd.Args = append([]string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", binary}, cmd.Args[1:]...)
		cmd.Path = setpriv
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReadOnlyHomeIsNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := os.Chmod(e.home, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(e.home, 0o755) })
	expectError(t, e.asNobody(t, "sessions"), 1, "REWIND_HOME "+e.home+" is read-only")
	e.home = filepath.Join(e.home, "sub")
	expectError(t, e.asNobody(t, "sessions"), 1, "is read-only")
}

// TestRevertToDuplicatedCheckpointTakesTheFirst: an imported context may
// repeat a checkpoint id; revert goes to the first, as kimi-cli's
// revert_to does.
func TestRevertToDuplicatedCheckpointTakesTheFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := importDuplicatedCheckpoint(t, e)
	e.mustOK("revert", id, "1")
	if got := e.view(id).texts(t); len(got) != 1 || got[0] != "user: first" {
		t.Errorf("after revert to the duplicated checkpoint 1: %v, want [user: first]", got)
	}
}
