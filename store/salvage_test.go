package store

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// interruptedStep is what a step whose commit was interrupted produced.
func interruptedStep(answer string) []message.Message {
	return []message.Message{message.NewText("assistant", answer)}
}

// keptTexts are the assistant texts of the session's interrupt generations.
func keptTexts(t *testing.T, db *DB, id string) []string {
	t.Helper()
	gens, err := db.Generations(bg, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range gens {
		if g.Cause != CauseInterrupt {
			continue
		}
		v, err := db.GenerationView(bg, id, g.Gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range v.Messages() {
			if m.Role == "assistant" {
				out = append(out, m.Content.PlainText())
			}
		}
	}
	return out
}

// TestKeptStepWaitsForTheLockWithoutBlocking: another process holds the
// write lock when an interrupted step is kept. The call returns at once
// with the step in a private recovery file; once the lock is free the DB
// commits it to an archived interrupt generation (the view the step ran on
// plus the step, though the session moved on meanwhile) and removes the
// file.
func TestKeptStepWaitsForTheLockWithoutBlocking(t *testing.T) {
	t.Parallel()
	path := newDBPath(t)
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newSession(t, db, "busy", "/w")
	if _, err := db.AppendMessage(bg, s.ID, message.NewText("user", "the question")); err != nil {
		t.Fatal(err)
	}
	unlock := lockDB(t, path)
	start := time.Now()
	kept, err := db.KeepInterruptedStep(bg, s.ID, interruptedStep("the answer"))
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("keeping waited %v for the lock", took)
	}
	if !kept.Pending || kept.File == "" {
		t.Fatalf("kept %+v while the lock is held, want a pending recovery file", kept)
	}
	st, err := os.Stat(kept.File)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || filepath.Dir(kept.File) != RecoveryDir(path) {
		t.Errorf("recovery file %s has mode %v", kept.File, st.Mode().Perm())
	}
	unlock()
	waitUntil(t, "the kept step to be committed", func() bool { return db.keptLater() == 1 })
	if _, err := os.Stat(kept.File); !os.IsNotExist(err) {
		t.Errorf("the recovery file is still there after its commit: %v", err)
	}
	if got := keptTexts(t, db, s.ID); len(got) != 1 || got[0] != "the answer" {
		t.Errorf("interrupt generations hold %q", got)
	}
	v, err := db.View(bg, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(v.Messages()); n != 1 {
		t.Errorf("the current view has %d messages, want the question only", n)
	}
}

// TestRecoveryFileIsCommittedByTheNextStart: the process exits (Close)
// while another still holds the write lock. The recovery file stays, the
// next start commits it once, and a copy committed again (a crash between
// commit and unlink) writes nothing more.
func TestRecoveryFileIsCommittedByTheNextStart(t *testing.T) {
	t.Parallel()
	path := newDBPath(t)
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, db, "exits", "/w")
	// The writer's pid is one that has exited since: the lease it leaves
	// behind (its release gave up on the lock) is no one's.
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	l, err := db.acquireLease(bg, s.ID, exited.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(bg, s.ID, message.NewText("user", "the question")); err != nil {
		t.Fatal(err)
	}
	unlock := lockDB(t, path)
	kept, err := db.KeepInterruptedStep(bg, s.ID, interruptedStep("the answer streamed before quit"))
	if err != nil || !kept.Pending {
		t.Fatalf("kept %+v, %v", kept, err)
	}
	start := time.Now()
	l.Release(bg)
	db.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("releasing and closing took %v while another process held the lock", took)
	}
	saved, err := os.ReadFile(kept.File)
	if err != nil {
		t.Fatalf("the recovery file is gone before anything committed it: %v", err)
	}
	unlock()

	db, err = Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := db.RecoverKept(bg)
	if len(got) != 1 || got[0].Generation == 0 || got[0].Err != nil || got[0].SessionID != s.ID {
		t.Fatalf("recovered %+v", got)
	}
	if texts := keptTexts(t, db, s.ID); len(texts) != 1 || texts[0] != "the answer streamed before quit" {
		t.Errorf("interrupt generations hold %q", texts)
	}
	if _, err := os.Stat(kept.File); !os.IsNotExist(err) {
		t.Errorf("the recovery file outlived its commit: %v", err)
	}
	if again := db.RecoverKept(bg); len(again) != 0 {
		t.Errorf("a second recovery found %+v", again)
	}
	gens, _ := db.Generations(bg, s.ID)
	if err := os.WriteFile(kept.File, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	if again := db.RecoverKept(bg); len(again) != 1 || again[0].Generation != got[0].Generation {
		t.Errorf("the same file committed again: %+v, want generation %d", again, got[0].Generation)
	}
	if after, _ := db.Generations(bg, s.ID); len(after) != len(gens) {
		t.Errorf("%d generations after committing the same file twice, was %d", len(after), len(gens))
	}
}

// TestRecoveryFileOfARunningProcessIsLeftToIt: a file another process still
// holds (it waits for the lock itself) is not committed by a second one.
func TestRecoveryFileOfARunningProcessIsLeftToIt(t *testing.T) {
	t.Parallel()
	path := newDBPath(t)
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newSession(t, db, "held", "/w")
	unlock := lockDB(t, path)
	kept, err := db.KeepInterruptedStep(context.Background(), s.ID, interruptedStep("mine"))
	if err != nil || !kept.Pending {
		t.Fatalf("kept %+v, %v", kept, err)
	}
	other, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if got := other.RecoverKept(bg); len(got) != 0 {
		t.Errorf("another DB claimed a file its writer holds: %+v", got)
	}
	unlock()
	waitUntil(t, "the writer to commit its own file", func() bool { return db.keptLater() == 1 })
	if got := keptTexts(t, db, s.ID); len(got) != 1 {
		t.Errorf("interrupt generations hold %q, want one", got)
	}
}

// TestWriteGivesUpWaitingWhenItsContextEnds: a write under LockWait stops
// waiting for another process's lock within a slice of the interrupt, not
// after the busy timeout (5 s).
func TestWriteGivesUpWaitingWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	path := newDBPath(t)
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newSession(t, db, "waits", "/w")
	lockDB(t, path)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() {
		_, err := db.AppendMessage(LockWait(ctx), s.ID, message.NewText("user", "never"))
		done <- err
	}()
	cancel()
	start := time.Now()
	err = <-done
	if took := time.Since(start); took > time.Second {
		t.Errorf("the write waited %v after its context ended", took)
	}
	if !errors.Is(err, ErrBusy) {
		t.Errorf("write = %v, want ErrBusy", err)
	}
}
