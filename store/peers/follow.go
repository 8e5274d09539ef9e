package peers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/store"
)

// FollowOptions tunes Follow.
type FollowOptions struct {
	Options
	// Started is told the session's id once the file's lines so far are
	// imported; Grew after each append written, with its record count.
	Started func(sessionID string)
	Grew    func(records int)
	// Steps is told, once the file's lines so far are imported and after
	// each append, how many answers the turn under way has (its usage
	// records since its prompt: one a model call), as rewind counts a
	// run's steps.
	Steps func(n int)
	// Idle is how long the file must not grow, its writer gone, before
	// Follow ends (0: 2 s). WriterAlive says whether the agent writing the
	// file still runs (nil: writerAlive).
	Idle        time.Duration
	WriterAlive func(path, workDir string) bool
	// Poll is the fallback when the file cannot be watched (0: 100 ms).
	Poll time.Duration
}

// ErrRewritten: the followed file no longer starts with what was imported.
var ErrRewritten = errors.New("the file was rewritten, not appended to")

// CopyError: the followed file is a copy of a session imported from
// another path, which it does not extend (copies.go): following it would
// mix two files into one session.
type CopyError struct{ Path, Imported, SessionID string }

func (e *CopyError) Error() string {
	return fmt.Sprintf("%s is a copy of %s, from which session %s was imported", e.Path, e.Imported, e.SessionID)
}

// Follow imports a growing session file as it grows: its lines so far,
// then each append within one write (fsnotify, or polling where it cannot
// watch), on the session's current generation (store.GrowImport), until
// ctx ends or the file has not grown for Idle and its writer is gone.
func Follow(ctx context.Context, db *store.DB, src Source, o FollowOptions) error {
	if o.Idle <= 0 {
		o.Idle = 2 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.WriterAlive == nil {
		o.WriterAlive = writerAlive
	}
	f := &follower{db: db, src: src, o: o, hash: sha256.New()}
	if err := f.start(ctx); err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	var events chan fsnotify.Event
	if err == nil {
		defer w.Close()
		if w.Add(src.Path) == nil {
			events = w.Events
		}
	}
	tick := time.NewTicker(o.Poll)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
		case <-tick.C:
			// Polling; when watched, the tick checks whether to stop (and
			// catches an append whose event was coalesced).
		}
		grew, err := f.readMore(ctx)
		if err != nil {
			return err
		}
		if grew {
			last = time.Now()
		} else if time.Since(last) >= o.Idle && !o.WriterAlive(src.Path, f.parser.b.s.WorkDir) {
			return nil
		}
	}
}

// follower is Follow's state: the parser fed every byte read, the hash of
// the bytes it consumed (whole lines), the import record as last written.
type follower struct {
	db      *store.DB
	src     Source
	o       FollowOptions
	file    *os.File
	parser  *Parser
	hash    hash.Hash
	pending []byte // read, not yet consumed (an incomplete line)
	offset  int64  // bytes read
	prev    store.KimiImport
	state   importState
}

func (f *follower) start(ctx context.Context) error {
	if _, err := ImportAll(ctx, f.db, []Source{f.src}, f.o.Options); err != nil {
		return err
	}
	prev, ok, err := f.db.LookupKimiImport(ctx, f.src.Key)
	if err != nil {
		return err
	}
	if f.parser, err = NewParser(f.src.Origin, f.src.Path, f.o.Warn); err != nil {
		return err
	}
	if f.file, err = regfile.Open(f.src.Path); err != nil {
		return err
	}
	if ok && copyOfImported(f.src, prev) {
		return &CopyError{Path: f.src.Path, Imported: prev.Source, SessionID: prev.SessionID}
	}
	if !ok {
		// Nothing to import yet (an empty file): the session is made by
		// the first append.
		f.state = importState{}
	} else {
		f.prev = prev
		if err := json.Unmarshal([]byte(prev.Files), &f.state); err != nil {
			return fmt.Errorf("follow %s: the record of its import is unreadable: %w", f.src.Path, err)
		}
	}
	// The parser learns the turn under way from the lines read here: its
	// steps are told before the session is, so that whoever prints the
	// id has published them (a `rewind runs` right after shows them).
	if _, err = f.readMore(ctx); err != nil {
		return err
	}
	f.steps()
	if ok && f.o.Started != nil {
		f.o.Started(prev.SessionID)
	}
	return nil
}

// steps tells FollowOptions.Steps the steps of the turn under way.
func (f *follower) steps() {
	s := f.parser.b.s
	if f.o.Steps == nil || len(s.Gens) == 0 {
		return
	}
	recs, n := s.Gens[len(s.Gens)-1].Records, 0
	for i := len(recs) - 1; i >= 0 && recs[i].Kind != store.KindCheckpoint; i-- {
		if recs[i].Kind == store.KindUsage {
			n++
		}
	}
	f.o.Steps(n)
}

// readMore reads what the file gained, parses it and writes its records;
// grew says it gained whole lines.
func (f *follower) readMore(ctx context.Context) (bool, error) {
	fi, err := f.file.Stat()
	if err != nil {
		return false, err
	}
	if fi.Size() < f.offset {
		return false, fmt.Errorf("follow %s: %w", f.src.Path, ErrRewritten)
	}
	if fi.Size() == f.offset {
		return false, nil
	}
	buf := make([]byte, fi.Size()-f.offset)
	n, err := f.file.ReadAt(buf, f.offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	buf = buf[:n]
	f.offset += int64(n)
	before := f.parser.b.s.Consumed
	f.parser.Feed(buf)
	f.pending = append(f.pending, buf...)
	used := int(f.parser.b.s.Consumed - before)
	f.hash.Write(f.pending[:used])
	f.pending = append(f.pending[:0], f.pending[used:]...)
	if used == 0 || f.parser.b.s.Consumed <= f.state.Size {
		return false, nil // still within what the import wrote, or no whole line
	}
	return true, f.write(ctx)
}

// write adds the records parsed since the last write.
func (f *follower) write(ctx context.Context) error {
	s := f.parser.b.s
	st := importState{Size: s.Consumed, SHA256: hex.EncodeToString(f.hash.Sum(nil)), Gens: len(s.Gens), Sidechains: len(s.Sidechains)}
	if len(s.Gens) > 0 {
		st.Last = len(s.Gens[len(s.Gens)-1].Records)
	}
	stJSON, _ := json.Marshal(st)
	k := store.KimiImport{KimiSession: f.src.Key, Source: f.src.Path, Files: string(stJSON), Records: s.Records()}
	if f.prev.SessionID == "" {
		// The first lines of a file that was empty: a new session.
		if s.Records() == 0 {
			return nil
		}
		out, err := f.db.ImportSessions(ctx, []store.ImportedSession{newSession(s, f.src, f.o.WorkDir, &k)})
		if err != nil {
			return err
		}
		if len(out) == 1 && out[0].ID != "" {
			k.SessionID = out[0].ID
			f.prev, f.state = k, st
			f.steps()
			if f.o.Started != nil {
				f.o.Started(k.SessionID)
			}
		}
		return f.writeSides(ctx, st)
	}
	n, ok, err := grow(ctx, f.db, f.prev, k, s, f.state, true)
	if err != nil {
		return fmt.Errorf("follow %s: %w", f.src.Path, err)
	}
	if !ok {
		return fmt.Errorf("follow %s: another import updated its session meanwhile", f.src.Path)
	}
	k.SessionID = f.prev.SessionID
	f.prev, f.state = k, st
	if n > 0 && f.o.Grew != nil {
		f.o.Grew(n)
	}
	f.steps()
	return f.writeSides(ctx, st)
}

// writeSides writes what the sub-agent runs written into the file gained
// (sidechains.go), as an import of the file does.
func (f *follower) writeSides(ctx context.Context, st importState) error {
	s := f.parser.b.s
	if len(s.Sidechains) == 0 {
		return nil
	}
	p := parsedFile{src: f.src, s: s, state: st}
	if err := p.sideFiles(ctx, f.db, nil); err != nil {
		return err
	}
	var res Result
	if err := p.writeSides(ctx, f.db, f.o.Options, &res); err != nil {
		return fmt.Errorf("follow %s: %w", f.src.Path, err)
	}
	return nil
}
