package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/peers"
	"time"
)

// openFollow is the set-up ImportFollow and WatchFollow share: the one
// codex or Claude Code session file path names, and the database to
// follow it into (the caller closes it).
func openFollow(ctx context.Context, rt *Runtime, path string) (peers.Source, *store.DB, Config, error) {
	fail := func(err error) (peers.Source, *store.DB, Config, error) { return peers.Source{}, nil, Config{}, err }
	if fi, err := os.Stat(path); err != nil {
		return fail(userErrorf(err, "cannot follow %s: %v", path, unwrapPathError(err)))
	} else if fi.IsDir() {
		return fail(userErrorf(nil, "cannot follow %s: it is a directory; --follow takes one session file (a codex rollout-*.jsonl or a Claude Code <session>.jsonl)", path))
	}
	d, ok, err := peers.Detect(path)
	if err != nil {
		return fail(importError(err, path))
	}
	if !ok || len(d.Sources) != 1 {
		return fail(userErrorf(nil, "cannot follow %s: it is not a codex rollout or a Claude Code session file", path))
	}
	db, cfg, err := rt.openDB(ctx)
	if err != nil {
		return fail(err)
	}
	return d.Sources[0], db, cfg, nil
}

// ImportFollow imports a codex or Claude Code session file and goes on
// importing it as it grows (`rewind import --follow`), until the file is
// idle and its writer gone, or Ctrl-C. The session's id goes to stdout
// once its first lines are in; the run is listed in `rewind runs` (with
// its origin) and can be watched like rewind's own.
func ImportFollow(ctx context.Context, rt *Runtime, path string) error {
	src, db, cfg, err := openFollow(ctx, rt, path)
	if err != nil {
		return err
	}
	defer db.Close()
	added, err := followInto(ctx, rt, db, cfg, src, func(id string) {
		fmt.Fprintln(rt.Stdout, id)
		fmt.Fprintf(rt.Stderr, "following %s into session %s (Ctrl-C stops; `rewind watch %s` shows it live)\n", path, id, id)
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(rt.Stderr, "stopped following %s: it stopped growing and its writer is gone (%s %s added while following)\n",
		path, words.Thousands(added), words.Plural(added, "record", "records"))
	return err
}

// followInto runs peers.Follow for src with the session's lease held and
// its run published on the live channel; started is told the session's id.
func followInto(ctx context.Context, rt *Runtime, db *store.DB, cfg Config, src peers.Source, started func(string)) (int, error) {
	var added, steps atomic.Int64
	var lease *store.Lease
	var pub *live.Publisher
	var sessionID string
	defer func() {
		if pub != nil {
			pub.Close()
		}
		if lease != nil {
			lease.Release(context.WithoutCancel(ctx))
		}
	}()
	err := peers.Follow(ctx, db, src, peers.FollowOptions{
		Options: peers.Options{WorkDir: cfg.WorkDir, Warn: func(w string) { fmt.Fprintln(rt.Stderr, "warning: "+w) }},
		Started: func(id string) {
			// The lease keeps rewind's own writers out while the other
			// agent writes; the live channel lists the run.
			if l, err := db.AcquireLease(ctx, id); err == nil {
				lease = l
			}
			// The run's elapsed time is how long it has been followed.
			h := live.Hello{SessionID: id, Origin: src.Origin, Run: live.Run{Started: time.Now()}}
			if s, err := db.GetSession(ctx, id); err == nil {
				h.Title, h.WorkDir, h.Model = s.Title, s.WorkDir, s.Model
			}
			if p, err := live.Listen(live.Options{Home: cfg.Home, Hello: h}); err == nil {
				pub = p
				publishStatus(ctx, db, pub, id, int(steps.Load()))
			}
			sessionID = id
			started(id)
		},
		Grew: func(n int) { added.Add(int64(n)) },
		Steps: func(n int) {
			steps.Store(int64(n))
			if pub != nil {
				publishStatus(ctx, db, pub, sessionID, n)
			}
		},
	})
	if ro, ok := readOnlyError(err, cfg.DBPath()); ok {
		return 0, ro
	}
	if errors.Is(err, peers.ErrRewritten) {
		return int(added.Load()), userErrorf(err, "stopped following %s: %s; import it again with `rewind import %s`", src.Path, peers.ErrRewritten, src.Path)
	}
	var cp *peers.CopyError
	if errors.As(err, &cp) {
		return 0, userErrorf(err, "cannot follow %s: it is a copy of %s, from which session %s was imported; follow that file", src.Path, cp.Imported, cp.SessionID)
	}
	if err != nil {
		return int(added.Load()), importError(err, src.Path)
	}
	return int(added.Load()), nil
}

// publishStatus tells the run's watchers and `rewind runs` the session's
// numbers as the soul's StatusUpdate does for rewind's own runs: the token
// count of its last usage record (codex's token_count, Claude Code's usage
// once per message.id), its model and generation, and step, the answers of
// the turn under way. No context share: the other agent's model's window
// is not known here.
func publishStatus(ctx context.Context, db *store.DB, pub *live.Publisher, id string, step int) {
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return // the next append tells it
	}
	pub.Publish(soul.StatusUpdate{Model: s.Model, Step: step, Tokens: s.Tokens, Generation: s.CurrentGen})
}

// WatchFollow follows a codex or Claude Code session file as ImportFollow
// does and shows the session in the workspace's watch mode meanwhile
// (`rewind watch --follow`); leaving the workspace stops following.
func WatchFollow(ctx context.Context, rt *Runtime, path string) error {
	src, db, cfg, err := openFollow(ctx, rt, path)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ids := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := followInto(ctx, rt, db, cfg, src, func(id string) { ids <- id })
		done <- err
	}()
	select {
	case id := <-ids:
		err := RunTUI(ctx, TUIOptions{Mode: TUIWatch, Runtime: rt, SessionID: id})
		cancel()
		<-done
		return err
	case err := <-done:
		if err == nil {
			err = userErrorf(nil, "cannot follow %s: it holds no message yet and its writer is gone", path)
		}
		return err
	}
}
