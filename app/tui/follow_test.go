package tui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
	"github.com/rewind-agent/rewind/views"
)

// writerEnv makes the test binary act as the writer process of
// TestWatchFollowsAnotherProcess: REWIND_TEST_WRITER=DBPATH|SESSION.
const writerEnv = "REWIND_TEST_WRITER"

// TestWatchWriterProcess is the writer: it holds the session's lease and,
// for each line read on stdin, appends a checkpoint, that line as a user
// message and an answer in one step, then prints "ok". EOF releases the
// lease and exits.
func TestWatchWriterProcess(t *testing.T) {
	t.Parallel()
	spec := os.Getenv(writerEnv)
	if spec == "" {
		t.Skip("only runs as the writer process of TestWatchFollowsAnotherProcess")
	}
	path, id, _ := strings.Cut(spec, "|")
	ctx := context.Background()
	db := storetest.OpenAt(t, path, store.Options{})
	lease, err := db.AcquireLease(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		if _, err := db.Checkpoint(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AppendMessage(ctx, id, message.NewText("user", line)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CommitStep(ctx, id, store.Step{Assistant: message.NewText("assistant", "answer: "+line), TokenCount: 1234}); err != nil {
			t.Fatal(err)
		}
		fmt.Println("ok")
	}
	if err := lease.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestWatchFollowsAnotherProcess(t *testing.T) {
	t.Parallel()
	var (
		stdin io.WriteCloser
		out   *bufio.Scanner
		cmd   *exec.Cmd
	)
	expect := func(want string) {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			if out.Scan() {
				got <- out.Text()
			}
			close(got)
		}()
		select {
		case l := <-got:
			if l != want {
				t.Fatalf("writer said %q, want %q", l, want)
			}
		case <-time.After(waitLimit):
			t.Fatalf("writer did not say %q", want)
		}
	}
	h := newHarness(t, hopts{w: 160, h: 44,
		before: func(h *harness) {
			ctx := context.Background()
			s, err := h.db.CreateSession(ctx, store.NewSession{Title: "watched run", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			seedTurns(t, h.db, s.ID, "the first prompt")
			cmd = exec.Command(os.Args[0], "-test.run=^TestWatchWriterProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), writerEnv+"="+filepath.Join(h.dir, "rewind.db")+"|"+s.ID)
			cmd.Stderr = os.Stderr
			if stdin, err = cmd.StdinPipe(); err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			out = bufio.NewScanner(stdout)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { stdin.Close(); cmd.Wait() })
			expect("ready")
		},
		// No session id: watch picks the newest session with a live writer.
		mutate: func(o *Options) { o.Mode = ModeWatch },
	})
	h.waitFor("the first prompt", fmt.Sprintf("writer pid %d alive", cmd.Process.Pid), "read-only: another rewind process writes this session")
	h.typeText("may I write?", true)
	h.waitFor("read-only: another process writes it")
	h.waitUntil("the refused prompt kept in the input", func() bool { return h.c.input.Text() == "may I write?" })
	h.key(tcell.KeyCtrlU)
	h.waitUntil("the input cleared", func() bool { return h.c.input.Text() == "" })

	for i := 1; i <= 3; i++ {
		line := fmt.Sprintf("live message %d from the writer", i)
		fmt.Fprintln(stdin, line)
		expect("ok")
		start := time.Now()
		h.waitFor(line) // how fast is a benchmark's question, not this test's
		t.Logf("message %d on screen %v after its commit", i, time.Since(start).Round(time.Millisecond))
	}
	// The timeline follows too: one checkpoint per message.
	h.waitUntil("the watcher's timeline", func() bool { return len(h.c.timeline.Model().Checkpoints) == 4 })

	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("writer: %v", err)
	}
	h.waitFor("WATCH · writer gone")
}

// TestRunTracker: the run began at the last prompt, counts the checkpoints
// after it as steps and ends with a final answer, whether the records come
// at once or one by one.
func TestRunTracker(t *testing.T) {
	t.Parallel()
	ts := time.Unix(1000, 0)
	rec := func(kind store.Kind, m message.Message) store.Record {
		r := store.Record{Kind: kind, CreatedAt: ts}
		if kind == store.KindMessage {
			r.Role = m.Role
			b, _ := m.MarshalJSON()
			r.Body = b
		}
		return r
	}
	call := message.NewText("assistant", "")
	call.ToolCalls = []message.ToolCall{{ID: "1", Name: "Shell", Args: `{"command":"ls"}`}}
	v := store.View{Records: []store.Record{
		rec(store.KindCheckpoint, message.Message{}), rec(store.KindMessage, message.NewText("user", "go")),
		rec(store.KindCheckpoint, message.Message{}), rec(store.KindMessage, call), rec(store.KindMessage, message.Message{Role: "tool", ToolCallID: "1", Content: message.TextContent("ok")}),
		rec(store.KindCheckpoint, message.Message{}),
	}}
	var before runTracker
	if rs := before.state(); rs.running {
		t.Fatalf("before any prompt: %+v", rs)
	}
	var rt runTracker
	for _, r := range v.Records {
		rt.add(r)
	}
	if rs := rt.state(); !rs.running || rs.step != 2 || !rs.started.Equal(ts) {
		t.Fatalf("mid-run: %+v", rs)
	}
	rt.add(rec(store.KindMessage, message.NewText("assistant", "done")))
	if rs := rt.state(); rs.running {
		t.Fatalf("after the final answer: %+v", rs)
	}
	rt.add(rec(store.KindMessage, message.NewText("user", "next")))
	if rs := rt.state(); !rs.running || rs.step != 0 {
		t.Fatalf("after the next prompt: %+v", rs)
	}
}

// TestWatcherReadsOnlyTheNewRecords: when a followed session changes, the
// watcher reads the records after the last seq it has — never the whole
// view again (it used to read it twice per change: the version poll and
// the writer check) — and shows them: the conversation and the timeline.
func TestWatcherReadsOnlyTheNewRecords(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "followed", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			seedTurns(t, h.db, id, "the first prompt", "the second prompt")
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client = ModeWatch, id, nil },
	})
	st := &h.c.pollStats
	// Settled: the poll has seen the session and the writer check ran.
	h.waitFor("answer to the second prompt")
	h.waitUntil("the first poll", func() bool { return st.viewReads.Load()+st.deltaReads.Load() >= 2 })
	checks := st.writerChecks.Load()
	h.waitUntil("a whole writer check", func() bool { return st.writerChecks.Load() >= checks+2 })
	wholeReads, records := st.viewReads.Load(), st.deltaRecords.Load()
	if wholeReads != 1 {
		t.Errorf("opening the session read its whole view %d times", wholeReads)
	}

	seedTurns(t, h.db, id, "a third prompt") // checkpoint, prompt, answer, usage
	h.waitFor("a third prompt", "answer to a third prompt")
	h.waitUntil("the timeline's new turn", func() bool { return len(h.c.timeline.Model().Checkpoints) == 3 })
	checks = st.writerChecks.Load()
	h.waitUntil("a whole writer check after the change", func() bool { return st.writerChecks.Load() >= checks+2 })
	if n := st.viewReads.Load() - wholeReads; n != 0 {
		t.Errorf("the change read the whole view %d times", n)
	}
	if n := st.deltaRecords.Load() - records; n != 4 {
		t.Errorf("the change read %d records, want the 4 new ones", n)
	}
	// What the watcher built from the records is what a whole read shows.
	v, err := h.db.View(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var shown []views.CheckpointRow
	var items []views.Item
	h.c.onUIThread(func() {
		shown = h.c.timeline.Model().Checkpoints
		items = convItems(h.c.conv, h.c.conv.Len())
	})
	if want := timelineModel(v, nil).Checkpoints; !reflect.DeepEqual(shown, want) {
		t.Errorf("timeline rows\n%+v\nwant\n%+v", shown, want)
	}
	if want := viewItems(v); !reflect.DeepEqual(items, want) {
		t.Errorf("conversation\n%+v\nwant\n%+v", items, want)
	}
}

// TestWatchSessionNobodyWrites: watching a session no process writes says
// so plainly (it said "…which another rewind process writes (writer
// gone)"); a writer that starts is followed, and one that leaves is
// "writer gone".
func TestWatchSessionNobodyWrites(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{
		messageTTL: shortMessages, // the writer's label shows once the refusal's message is gone
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "saved only", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			h.db.AppendMessage(h.ctx, id, message.NewText("user", "an old prompt"))
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeWatch, id },
	})
	txt := h.waitFor("nobody writes this session now · /continue writes it here, /fork copies it", "WATCH · no writer", "an old prompt")
	if strings.Contains(txt, "another rewind process writes") || strings.Contains(txt, "writer gone") {
		t.Fatalf("a session nobody writes is said to have a writer:\n%s", txt)
	}
	// A prompt is refused for what it is, and stays in the input.
	h.typeText("go on", true)
	h.waitFor("no process writes it now")
	if txt := h.text(); strings.Contains(txt, "another process writes it") {
		t.Fatalf("the refusal names a writer nobody is:\n%s", txt)
	}
	h.waitUntil("the prompt kept in the input", func() bool { return h.c.input.Text() == "go on" })
	h.key(tcell.KeyCtrlU)
	lease, err := h.db.AcquireLease(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor(fmt.Sprintf("WATCH · writer pid %d alive", os.Getpid()))
	if err := lease.Release(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.waitFor("WATCH · writer gone")
}
