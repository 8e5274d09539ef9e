package app

import (
	"errors"
	"fmt"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store"
)

// describe turns an error that no call site has already phrased for the user
// into one sentence saying what happened and what to do.
func describe(err error) string {
	var damaged *store.DamagedError
	switch {
	case errors.As(err, &damaged):
		return damaged.Error()
	case errors.Is(err, store.ErrSessionNotFound):
		return "no such session (run `rewind sessions` to list them)"
	case errors.Is(err, store.ErrAmbiguousID):
		return "the session id prefix matches more than one session: give more characters (run `rewind sessions`)"
	case errors.Is(err, store.ErrCheckpointNotFound):
		return "no such checkpoint in this session (run `rewind show ID` to see its checkpoints)"
	case errors.Is(err, store.ErrGenerationNotFound):
		return "no such generation in this session (run `rewind generations ID` to list them)"
	case errors.Is(err, store.ErrCompactedRegion):
		return "that checkpoint lies in a part of the history replaced by compaction: restore the archived generation first (`rewind generations ID`)"
	case errors.Is(err, store.ErrNotDatabase):
		return "the database file is not a rewind database; it was left unchanged (move it away or pass --home)"
	case errors.Is(err, store.ErrNewerSchema):
		return "the database was written by a newer rewind; it was left unchanged (upgrade rewind)"
	case errors.Is(err, store.ErrLeaseHeld):
		return "the session is open in another rewind process: close it, or follow it with `rewind watch`"
	case errors.Is(err, store.ErrLeaseLost):
		return "another rewind process took over this session while this one was paused; this one stopped without writing (follow the other with `rewind watch`, or fork the session)"
	case isBusy(err):
		return "the database is locked by another process: try again when it is done"
	}
	if m, ok := describeProvider(err, ""); ok {
		return m
	}
	return err.Error()
}

// isBusy reports SQLITE_BUSY / SQLITE_LOCKED surfacing after the busy timeout.
func isBusy(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked
	}
	return strings.Contains(err.Error(), "database is locked")
}

// storeError phrases a store error about session id (and, when known, the
// checkpoint or generation asked for) for the user.
func storeError(err error, id string, what string) error {
	if err == nil {
		return nil
	}
	var u *UserError
	if errors.As(err, &u) {
		return err
	}
	var compacted *timetravel.CompactedError
	if errors.As(err, &compacted) {
		return userErrorf(err, "checkpoint %d of session %s lies in history replaced by compaction: `rewind restore %s %d` brings back the generation that holds it", compacted.Checkpoint, id, id, compacted.Source)
	}
	var damaged *store.DamagedError
	switch {
	case errors.As(err, &damaged):
		return userErrorf(err, "%s", damaged.Error())
	case errors.Is(err, store.ErrSessionNotFound):
		return userErrorf(err, "no session matches %q (run `rewind sessions` to list them)", id)
	case errors.Is(err, store.ErrAmbiguousID):
		return userErrorf(err, "more than one session starts with %q%s: give more of the id (run `rewind sessions`)", id, candidates(err))
	case errors.Is(err, store.ErrCheckpointNotFound):
		return userErrorf(err, "session %s has no %s (run `rewind show %s` to see its checkpoints)", id, what, id)
	case errors.Is(err, store.ErrGenerationNotFound):
		return userErrorf(err, "session %s has no %s (run `rewind generations %s` to list them)", id, what, id)
	case errors.Is(err, store.ErrCompactedRegion):
		return userErrorf(err, "%s of session %s lies in history replaced by compaction: restore the archived generation first (`rewind generations %s`)", what, id, id)
	case errors.Is(err, store.ErrLeaseLost):
		return userErrorf(err, "another rewind process took over session %s while this one was paused; this one stopped without writing (follow it with `rewind watch %s`, or fork the session)", id, id)
	case errors.Is(err, store.ErrLeaseHeld):
		return userErrorf(err, "session %s is open in another rewind process (%s): close it, or follow it with `rewind watch %s`", id, leaseDetail(err), id)
	case isBusy(err):
		return userErrorf(err, "the database is locked by another process: try again when it is done")
	}
	return fmt.Errorf("session %s: %w", id, err)
}

// candidates lists the sessions an ambiguous prefix matched:
// ": 01kabc… "fix the tests", 01kabd… (untitled)".
func candidates(err error) string {
	var ae *store.AmbiguousIDError
	if !errors.As(err, &ae) || len(ae.Candidates) == 0 {
		return ""
	}
	parts := make([]string, len(ae.Candidates))
	for i, c := range ae.Candidates {
		title := "(untitled)"
		if c.Title != "" {
			title = fmt.Sprintf("%q", words.Clip(oneLine(c.Title), 40))
		}
		parts[i] = c.ID + " " + title
	}
	more := ""
	if ae.More {
		more = ", …"
	}
	return ": " + strings.Join(parts, ", ") + more
}

// leaseDetail pulls "pid N" out of a wrapped ErrLeaseHeld, if present.
func leaseDetail(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "pid "); i >= 0 {
		rest := msg[i:]
		if j := strings.IndexAny(rest, ",:;)"); j > 0 {
			rest = rest[:j]
		}
		return strings.TrimSpace(rest)
	}
	return "another process"
}

// openError phrases a failure of store.Open for the database at path.
func openError(err error, path string) error {
	if ro, ok := readOnlyError(err, path); ok {
		return ro
	}
	var damaged *store.DamagedError
	if errors.As(err, &damaged) {
		return userErrorf(err, "%s", damaged.Error())
	}
	switch {
	case errors.Is(err, store.ErrNotDatabase):
		return userErrorf(err, "%s is not a rewind database; it was left unchanged (move it away, or pass --home to use another directory)", path)
	case errors.Is(err, store.ErrNewerSchema):
		return userErrorf(err, "%s was written by a newer rewind; it was left unchanged (upgrade rewind to open it)", path)
	case isBusy(err):
		return userErrorf(err, "the database %s is locked by another process: try again when it is done", path)
	}
	return userErrorf(err, "cannot open the database %s: %s", path, oneLine(err.Error()))
}
