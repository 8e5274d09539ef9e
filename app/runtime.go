package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rewind-agent/rewind/internal/words"

	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
)

// Runtime is what every subcommand gets: the process's streams, its
// environment and the flags given on the command line. The configuration is
// loaded on first use.
type Runtime struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Flags  Overrides

	cfg    *Config
	cfgErr error
	// workspace: the full-screen workspace runs, so notices from opening
	// the database go to its status line (RecoveryNotice), not stderr.
	workspace bool
	// RecoveryNotice says what opening the database did with answers
	// interrupted at an earlier exit, and with a REWIND_HOME open to others
	// ("" when nothing).
	RecoveryNotice string
}

// Config loads (once) and returns the configuration.
func (rt *Runtime) Config() (Config, error) {
	if rt.cfg == nil && rt.cfgErr == nil {
		c, err := LoadConfig(rt.getenv, rt.Flags)
		rt.cfg, rt.cfgErr = &c, err
	}
	return *rt.cfg, rt.cfgErr
}

func (rt *Runtime) getenv(k string) string {
	if rt.Getenv == nil {
		return os.Getenv(k)
	}
	return rt.Getenv(k)
}

// openDB opens the session database named by the configuration.
func (rt *Runtime) openDB(ctx context.Context) (*store.DB, Config, error) {
	cfg, err := rt.Config()
	if err != nil {
		return nil, cfg, err
	}
	upgrading := false
	db, err := store.OpenWith(ctx, cfg.DBPath(), store.Options{BeforeUpgrade: func(from, to int) {
		upgrading = true
		rt.announceUpgrade(cfg.DBPath(), from, to)
	}, AfterImportTx: importKill(rt)})
	if err != nil {
		if upgrading && errors.Is(err, context.Canceled) {
			// Migrations copy in resumable steps: the next open goes on.
			return nil, cfg, userErrorf(err, "the upgrade of %s was interrupted (the database is intact): run the command again to finish it", cfg.DBPath())
		}
		return nil, cfg, openError(err, cfg.DBPath())
	}
	// After the open: a home given as an empty directory is rewind's once
	// its database is made, and private from this first run on.
	if note := privateHome(cfg.Home); note != "" {
		rt.notice(note)
	}
	if note := recoveryNotice(db.RecoverKept(ctx)); note != "" {
		rt.notice(note)
	}
	return db, cfg, nil
}

// notice is one line about opening the database: on stderr, or for the
// workspace on its status line (RecoveryNotice).
func (rt *Runtime) notice(note string) {
	if rt.workspace {
		if rt.RecoveryNotice != "" {
			note = rt.RecoveryNotice + "; " + note
		}
		rt.RecoveryNotice = note
		return
	}
	if rt.Stderr != nil {
		fmt.Fprintln(rt.Stderr, "rewind: "+note)
	}
}

// privateHome makes an existing REWIND_HOME private (0700, or 0500 for a
// read-only one: only the group and other bits go) when other users may
// enter it: it holds every conversation, and a directory made before
// (by hand, by an older rewind) keeps its mode, as MkdirAll leaves it. Only
// rewind's own directory is changed: one named .rewind or holding
// rewind.db, this user's, not sticky (REWIND_HOME=/tmp must not make /tmp
// private); any other is left alone. The returned line says what was
// done ("" when the directory was private, or is not there yet).
func privateHome(home string) string {
	st, err := os.Stat(home)
	if err != nil || !st.IsDir() || st.Mode().Perm()&0o077 == 0 {
		return ""
	}
	mode := st.Mode().Perm()
	_, dbErr := os.Stat(filepath.Join(home, "rewind.db"))
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Getuid() {
		return "" // another user's directory: not this user's to change
	}
	if st.Mode()&os.ModeSticky != 0 || filepath.Base(home) != ".rewind" && dbErr != nil {
		return "" // not rewind's: no database in it
	}
	private := mode &^ 0o077 // a read-only home stays read-only
	if err := os.Chmod(home, private); err != nil {
		return fmt.Sprintf("%s, which holds your conversations, is open to other users (%04o) and could not be made private: %v", home, mode, unwrapPathError(err))
	}
	return fmt.Sprintf("%s was open to other users (%04o): made it private (%04o), since it holds your conversations", home, mode, private)
}

// recoveryNotice is the one line saying what became of the recovery files
// of answers an earlier process could not commit before it exited.
func recoveryNotice(rs []store.Recovered) string {
	var kept, waiting, failed []string
	for _, r := range rs {
		switch {
		case r.Generation > 0:
			kept = append(kept, fmt.Sprintf("rewind show %s --generation %d", r.SessionID, r.Generation))
		case r.Waiting:
			waiting = append(waiting, r.File)
		default:
			failed = append(failed, fmt.Sprintf("%s (%v)", r.File, r.Err))
		}
	}
	var parts []string
	if len(kept) > 0 {
		parts = append(parts, fmt.Sprintf("kept %s interrupted at an earlier exit in an archived generation (%s)",
			words.Plural(len(kept), "an answer", fmt.Sprintf("%d answers", len(kept))), strings.Join(kept, ", ")))
	}
	if len(waiting) > 0 {
		parts = append(parts, fmt.Sprintf("%s interrupted at an earlier exit %s for the database (another process is writing) and %s kept once it is free: %s",
			words.Plural(len(waiting), "an answer", fmt.Sprintf("%d answers", len(waiting))), words.Plural(len(waiting), "waits", "wait"),
			words.Plural(len(waiting), "is", "are"), strings.Join(waiting, ", ")))
	}
	if len(failed) > 0 {
		parts = append(parts, "could not keep "+strings.Join(failed, ", ")+"; the files stay for the next start")
	}
	return strings.Join(parts, "; ")
}

// announceUpgrade says, before Open migrates a database written by an
// earlier rewind, that it does so: on a big history it takes tens of
// seconds, and the workspace would otherwise show a blank terminal.
func (rt *Runtime) announceUpgrade(path string, from, to int) {
	if rt.Stderr != nil {
		fmt.Fprintf(rt.Stderr, "rewind: upgrading %s from schema %d to %d (once; a large history takes up to a minute)…\n", path, from, to)
	}
}

// sessionHandle is a session opened by a headless subcommand: the database
// it lives in, the configuration and, for commands that change the session,
// its writer lease.
type sessionHandle struct {
	db    *store.DB
	cfg   Config
	s     store.Session
	lease *store.Lease // nil unless asked for
}

// openSession opens the database and resolves id (a unique prefix is
// enough). With lease it also takes the session's writer lease, so that a
// headless change never races a running rewind, and re-reads the session
// under it. Close releases both.
func (rt *Runtime) openSession(ctx context.Context, id string, lease bool) (*sessionHandle, error) {
	db, cfg, err := rt.openDB(ctx)
	if err != nil {
		return nil, err
	}
	h := &sessionHandle{db: db, cfg: cfg}
	if h.s, err = db.GetSession(ctx, id); err != nil {
		db.Close()
		return nil, storeError(err, id, "")
	}
	if !lease {
		return h, nil
	}
	if h.lease, err = db.AcquireLease(ctx, h.s.ID); err != nil {
		db.Close()
		return nil, storeError(err, h.s.ID, "")
	}
	if h.s, err = db.GetSession(ctx, h.s.ID); err != nil {
		h.Close(ctx)
		return nil, storeError(err, h.s.ID, "")
	}
	return h, nil
}

// Close releases the lease, if taken, and closes the database.
func (h *sessionHandle) Close(ctx context.Context) {
	if h.lease != nil {
		h.lease.Release(context.WithoutCancel(ctx))
	}
	h.db.Close()
}

// endGrace is how long a run gets, after a signal that ends rewind, to stop
// its tools and release its lease before the process exits anyway.
const endGrace = 3 * time.Second

// SignalContext returns a context cancelled by the first SIGINT, SIGTERM,
// SIGHUP or SIGQUIT. The run then stops its model call and tools and the
// command returns; should that take longer than endGrace (something blocked
// outside the context), or should a second signal come, the Shell process
// groups are killed and the process exits at once (130 after SIGINT, 128 +
// the signal otherwise). The store commits steps atomically, so nothing
// half-written survives either way.
func SignalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-ch:
			cancel()
		case <-done:
			return
		}
		grace := time.NewTimer(endGrace)
		defer grace.Stop()
		select {
		case <-ch:
		case <-grace.C:
		case <-done:
			return
		}
		tools.KillProcessGroups()
		os.Exit(signalExitCode(first))
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel()
		// Whatever ended the command, no Shell command outlives it.
		tools.KillProcessGroups()
	}
}

// signalExitCode is the shell convention for a process ended by sig.
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok && s != syscall.SIGINT {
		return 128 + int(s)
	}
	return ExitInterrupted
}
