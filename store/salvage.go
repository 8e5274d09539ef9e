package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// An interrupted step whose output cannot be written when it ends (another
// process holds the write lock) is never lost: it is saved at once in a
// recovery file, kept locked (flock) by this process, and a goroutine of
// the DB commits it as soon as the lock is free. When the process exits
// first (quit, Ctrl-C, kill -9), the file stays and the next start commits
// it (RecoverKept). The file names the view the step ran on (generation
// and seq bound), so it is kept as that view plus the step whatever was
// written since, and committing it twice (a crash between commit and
// unlink) finds the first commit and writes nothing.

// salvage is one recovery file.
type salvage struct {
	SessionID string            `json:"session_id"`
	Gen       int               `json:"gen"`
	ForkSeq   int64             `json:"fork_seq"`
	Messages  int               `json:"messages"`
	NextCP    int               `json:"next_checkpoint_id"`
	Tokens    int               `json:"tokens"`
	SavedAt   int64             `json:"saved_at_ms"`
	Step      []message.Message `json:"step"`
}

// Kept says what KeepInterruptedStep did with an interrupted step.
type Kept struct {
	// Generation is the archived interrupt generation holding the step
	// (zero when Pending).
	Generation Generation
	// Pending: another process held the write lock. The step is in File
	// and is committed once the lock is free, or by the next start.
	Pending bool
	File    string
}

// RecoveryDir is where the recovery files of the database at path are
// (beside it, mode 0700; each file 0600).
func RecoveryDir(path string) string { return path + ".recovery" }

// errSessionHeld: another live process holds the session's lease, so a
// salvage waits until it leaves (the kept generation would change the
// current generation under it).
var errSessionHeld = errors.New("another process writes the session")

// KeepInterruptedStep keeps msgs, what an interrupted step produced (a
// partial answer, or a whole step whose commit was interrupted), in an
// archived generation of cause interrupt: the view the step ran on plus
// msgs; the current view stays as it was, so the model never reads them
// as a finished step. It never waits for a lock another process holds:
// then msgs go to a recovery file and Kept.Pending is set (see above).
func (db *DB) KeepInterruptedStep(ctx context.Context, sessionID string, msgs []message.Message) (Kept, error) {
	ctx = context.WithoutCancel(ctx) // called once interrupted: the keep itself is not
	s, err := db.keepPoint(ctx, sessionID)
	if err != nil {
		return Kept{}, fmt.Errorf("store: keep the interrupted step of %s: %w", sessionID, err)
	}
	s.Step = msgs
	once, cancel := context.WithCancel(ctx)
	cancel() // one attempt: a lock held elsewhere is not waited for
	g, err := db.commitSalvage(LockWait(once), s)
	if err == nil {
		return Kept{Generation: g}, nil
	}
	if !errors.Is(err, ErrBusy) {
		return Kept{}, fmt.Errorf("store: keep the interrupted step of %s: %w", sessionID, err)
	}
	p, err := db.saveSalvage(s)
	if err != nil {
		return Kept{}, fmt.Errorf("store: keep the interrupted step of %s: the database is busy and the recovery file failed: %w", sessionID, err)
	}
	db.keeper.add(db, p)
	return Kept{Pending: true, File: p.path}, nil
}

// keepPoint reads, without the write lock, the view a step of the session
// ran on: its generation, seq bound and counters. The session's lease
// holder (this process) is its only writer, so nothing moves it meanwhile.
func (db *DB) keepPoint(ctx context.Context, sessionID string) (salvage, error) {
	var s salvage
	err := db.readTx(ctx, func(tx querier) error {
		st, err := loadState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		g, err := loadGen(ctx, tx, st.id, st.currentGen)
		if err != nil {
			return err
		}
		s = salvage{SessionID: st.id, Gen: st.currentGen, ForkSeq: st.lastSeq + 1,
			Messages: g.messages, NextCP: g.nextCP, Tokens: g.tokens, SavedAt: nowMS()}
		return nil
	})
	return s, err
}

// commitSalvage writes s as KeepInterrupted does (an interrupt generation,
// then a restore of the current view) unless it was written already.
func (db *DB) commitSalvage(ctx context.Context, s salvage) (Generation, error) {
	var k genRow
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := db.writeState(ctx, tx, s.SessionID)
		if err != nil {
			return err
		}
		if _, mine := db.held.Load(st.id); !mine {
			if l, ok, err := loadLease(ctx, tx, st.id); err != nil {
				return err
			} else if ok && l.live(nowMS(), db.leaseStale) {
				return fmt.Errorf("%w (pid %d on %s)", errSessionHeld, l.pid, l.host)
			}
		}
		var done int
		err = tx.QueryRowContext(ctx, `SELECT gen FROM generations WHERE session_id = ? AND parent_session IS NULL
			AND parent_gen = ? AND fork_seq = ? AND cause = ?`, st.id, s.Gen, s.ForkSeq, string(CauseInterrupt)).Scan(&done)
		if err == nil {
			k, err = loadGen(ctx, tx, st.id, done)
			return err
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if s.ForkSeq > st.lastSeq+1 || s.Gen > st.currentGen {
			return fmt.Errorf("the recovery names generation %d before seq %d, past the session's end", s.Gen, s.ForkSeq)
		}
		prev := st.currentGen
		cur, err := loadGen(ctx, tx, st.id, prev)
		if err != nil {
			return err
		}
		from, bound := s.Gen, s.ForkSeq
		k, _, err = keepStep(ctx, tx, st, cur, genRow{parentGen: &from, forkSeq: &bound, cause: CauseInterrupt,
			messages: s.Messages, nextCP: s.NextCP, tokens: s.Tokens}, s.Step)
		return err
	})
	if err != nil {
		return Generation{}, err
	}
	return k.public(), nil
}

// pendingKeep is a recovery file this process holds locked.
type pendingKeep struct {
	s    salvage
	f    *os.File
	path string
}

func (p *pendingKeep) release() { _ = p.f.Close() } // closing drops the flock

// saveSalvage writes s to a new recovery file: complete and synced under a
// temporary name, locked, then renamed, so another process never reads a
// partial one nor claims one this process still holds.
func (db *DB) saveSalvage(s salvage) (*pendingKeep, error) {
	dir := RecoveryDir(db.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".keep-*.tmp") // mode 0600
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*pendingKeep, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fail(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.json", s.SessionID, time.Now().UnixNano()))
	if err := os.Rename(f.Name(), path); err != nil {
		return fail(err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return &pendingKeep{s: s, f: f, path: path}, nil
}

// claimSalvage opens and locks a recovery file no live process holds; nil
// when another holds it or it is gone.
func claimSalvage(path string) (*pendingKeep, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, nil // its writer still runs and commits it
	}
	// Committed and removed by its holder between our open and our lock.
	if st, err := f.Stat(); err != nil || st.Sys().(*syscall.Stat_t).Nlink == 0 {
		f.Close()
		return nil, nil
	}
	var s salvage
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err == nil && s.SessionID == "" {
		err = errors.New("no session named")
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("unreadable recovery file: %w", err)
	}
	return &pendingKeep{s: s, f: f, path: path}, nil
}

// Recovered is one recovery file RecoverKept found.
type Recovered struct {
	SessionID string
	File      string
	// Generation is the archived interrupt generation now holding the
	// step; 0 when it is not committed yet.
	Generation int
	// Waiting: another process holds the write lock; the DB commits the
	// file once it is free (or the next start does).
	Waiting bool
	// Err: the file could not be committed (it stays, for the next start).
	Err error
}

// recoverWait bounds how long RecoverKept waits for a write lock another
// process holds before it leaves a file to the DB's keeper goroutine.
var recoverWait = time.Second

// RecoverKept commits the recovery files of interrupted steps that an
// earlier process could not write before it exited, and says what became
// of each. A file another running process holds is its own to commit and is
// not listed.
func (db *DB) RecoverKept(ctx context.Context) []Recovered {
	dir := RecoveryDir(db.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []Recovered
	for _, name := range names {
		path := filepath.Join(dir, name)
		p, err := claimSalvage(path)
		if err != nil {
			out = append(out, Recovered{File: path, Err: err})
			continue
		}
		if p == nil {
			continue
		}
		r := Recovered{SessionID: p.s.SessionID, File: path}
		wait, cancel := context.WithTimeout(ctx, recoverWait)
		g, err := db.commitSalvage(LockWait(wait), p.s)
		cancel()
		switch {
		case err == nil:
			r.Generation = g.Gen
			_ = os.Remove(path)
			p.release()
		case errors.Is(err, ErrBusy):
			r.Waiting = true
			db.keeper.add(db, p)
		default:
			r.Err = err
			p.release()
		}
		out = append(out, r)
	}
	return out
}

// keeper commits the DB's pending recovery files on one goroutine, retrying
// while the lock is held elsewhere, until the DB closes.
type keeper struct {
	mu      sync.Mutex
	pending []*pendingKeep
	wake    chan struct{}
	done    chan struct{}
	// kept counts the files committed, for tests.
	kept int
}

func (k *keeper) add(db *DB, p *pendingKeep) {
	k.mu.Lock()
	defer k.mu.Unlock()
	select {
	case <-db.closed:
		p.release() // the file stays for the next start
		return
	default:
	}
	k.pending = append(k.pending, p)
	if k.wake == nil {
		k.wake, k.done = make(chan struct{}, 1), make(chan struct{})
		go k.run(db) // owner: the DB; Close stops it and waits
	}
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

func (k *keeper) run(db *DB) {
	defer close(k.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-db.closed:
		case <-k.done:
		}
		cancel()
	}()
	wait := busyBackoff
	busy := false
	defer func() {
		if busy {
			db.endBusy()
		}
	}()
	for {
		k.mu.Lock()
		var p *pendingKeep
		if len(k.pending) > 0 {
			p = k.pending[0]
		}
		k.mu.Unlock()
		if p == nil {
			select {
			case <-ctx.Done():
				return
			case <-k.wake:
				continue
			}
		}
		_, err := db.commitSalvage(LockWait(ctx), p.s)
		if errors.Is(err, ErrBusy) && ctx.Err() == nil {
			if !busy {
				busy = true
				db.beginBusy()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, busyBackoffMax)
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if busy {
			busy = false
			db.endBusy()
		}
		wait = busyBackoff
		if err == nil {
			_ = os.Remove(p.path)
		}
		// Otherwise (the session is another process's now, or the file
		// does not fit the session) the file stays for the next start.
		p.release()
		k.mu.Lock()
		k.pending = k.pending[1:]
		if err == nil {
			k.kept++
		}
		k.mu.Unlock()
	}
}

// close waits for the goroutine (db.closed is closed) and unlocks the
// files still pending: they stay on disk for the next start.
func (k *keeper) close() {
	k.mu.Lock()
	done := k.done
	k.mu.Unlock()
	if done != nil {
		<-done
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.pending {
		p.release()
	}
	k.pending = nil
}

// keptLater is how many recovery files the DB's keeper committed (tests).
func (db *DB) keptLater() int {
	db.keeper.mu.Lock()
	defer db.keeper.mu.Unlock()
	return db.keeper.kept
}
