package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestPrintEmptyAnswerSaysSo: a server that answers with nothing was
// reached: the line says the model returned an empty answer and what to
// check, not "cannot reach the model server" (what it said before).
func TestPrintEmptyAnswerSaysSo(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	for range 4 {
		srv.Enqueue(llmtest.Empty())
	}
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "hello")
	expectError(t, r, 75, "empty answer", "model name", "gave up after 3 retries")
	if strings.Contains(r.stderr, "cannot reach") {
		t.Errorf("an empty answer reported as an unreachable server: %s", r)
	}
}

// TestPrintAnswerOverTheCapFailsInOneLine: answer_size_cap in the config
// reaches the model client; an answer past it stops the step with one
// line naming the key, is not retried, and nothing of it is stored.
func TestPrintAnswerOverTheCapFailsInOneLine(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text(strings.Repeat("endless ", 4096)))
	e := newEnv(t).withServer(srv)
	writeFile(t, filepath.Join(e.home, "config.toml"), "answer_size_cap = 4096\n")
	r := e.run("-p", "hello")
	expectError(t, r, 1, "answer_size_cap", "4 KiB")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: an answer over the cap is not retried", n)
	}
	for _, rec := range e.view(e.onlySession()).Records {
		if rec.Role != nil && *rec.Role == "assistant" {
			t.Errorf("a stopped answer was stored")
		}
	}
}

// TestSpecialFilesDoNotHangARun: a FIFO AGENTS.md (work dir or
// $REWIND_HOME) or mcp.json ends `rewind -p` at once with one line naming
// it, or (mcp.json) a warning and the run goes on; a /proc file is refused
// by import before it is read. On the old code each blocked for good
// (/proc/kmsg as root: the import waited until the kernel logged).
func TestSpecialFilesDoNotHangARun(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"work", "home"} {
		t.Run("AGENTS.md in "+where, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Text("Hello."))
			e := newEnv(t).withServer(srv)
			dir := e.workDir
			if where == "home" {
				dir = e.home
			}
			if err := syscall.Mkfifo(filepath.Join(dir, "AGENTS.md"), 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r := e.runCtx(ctx, "-p", "hi")
			if ctx.Err() != nil {
				t.Fatal("a FIFO AGENTS.md blocked the run")
			}
			expectError(t, r, 1, "AGENTS.md is a named pipe (FIFO)")
		})
	}
	t.Run("mcp.json", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t)
		srv.Enqueue(llmtest.Text("Hello."))
		e := newEnv(t).withServer(srv)
		if err := syscall.Mkfifo(filepath.Join(e.home, "mcp.json"), 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r := e.runCtx(ctx, "-p", "hi")
		if ctx.Err() != nil {
			t.Fatal("a FIFO mcp.json blocked the run")
		}
		if r.code != 0 || r.stdout != "Hello.\n" || !strings.Contains(r.stderr, "mcp.json is a named pipe (FIFO), not a regular file") {
			t.Errorf("%s", r)
		}
	})
	t.Run("proc", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		for _, p := range []string{"/proc/self/status", "/proc/kmsg"} {
			if _, err := os.Stat(p); err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			r := e.runCtx(ctx, "import", p)
			if ctx.Err() != nil {
				t.Fatalf("import %s blocked", p)
			}
			cancel()
			expectError(t, r, 1, "kernel's proc filesystem, not a regular file")
		}
	})
}

// TestOpenHomeIsMadePrivate: a REWIND_HOME made before, open to other
// users (0755), holds every conversation: the next command makes it 0700
// and says so in one line; a private one is left alone, silently. It kept
// 0755 before.
func TestOpenHomeIsMadePrivate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mustOK("sessions") // makes the database
	if err := os.Chmod(e.home, 0o755); err != nil {
		t.Fatal(err)
	}
	r := e.run("sessions")
	if r.code != 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "0755") || !strings.Contains(r.stderr, "0700") {
		t.Errorf("want one notice naming both modes: %s", r)
	}
	st, err := os.Stat(e.home)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("REWIND_HOME mode %v %v, want 0700", st.Mode(), err)
	}
	if r := e.run("sessions"); r.code != 0 || r.stderr != "" {
		t.Errorf("a private home: %s", r)
	}
}

// An empty directory opened to others, given as REWIND_HOME, is private
// once the first command made its database there (it stayed 0755 for
// that whole first run, with no notice: QA).
func TestNewHomeInAnOpenDirIsMadePrivate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.home = filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(e.home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(e.home, 0o755); err != nil {
		t.Fatal(err)
	}
	r := e.run("sessions")
	if r.code != 0 || !strings.Contains(r.stderr, "0755") || !strings.Contains(r.stderr, "0700") {
		t.Errorf("want one notice naming both modes: %s", r)
	}
	if st, err := os.Stat(e.home); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("REWIND_HOME mode %v %v, want 0700", st.Mode(), err)
	}
}
