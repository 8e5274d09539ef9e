package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/kimi"
	"github.com/rewind-agent/rewind/store/peers"
)

// agentNames are the origins as the import's lines name them.
var agentNames = map[string]string{store.OriginCodex: "codex", store.OriginClaude: "Claude Code", store.OriginKimi: "kimi-cli"}

// importPeers imports a codex or Claude Code discovery and returns its
// summary line; the ids go to stdout as kimi-cli's import prints them.
func importPeers(ctx context.Context, rt *Runtime, db *store.DB, cfg Config, path string, d peers.Discovery) (string, error) {
	batch, err := importBatch(rt)
	if err != nil {
		return "", err
	}
	bar := newProgressBar(rt.Stderr)
	start := time.Now()
	res, err := peers.ImportAll(ctx, db, d.Sources, peers.Options{
		WorkDir:      cfg.WorkDir,
		Warn:         func(w string) { bar.note("warning: " + w) },
		Progress:     bar.update,
		BatchRecords: batch,
		StreamBytes:  int64(batch) * streamBytesPerBatchRecord,
	})
	bar.done()
	first := ""
	if len(d.Sources) == 1 {
		first = d.Sources[0].Key
	}
	counts := kimi.BulkResult{Imported: res.Imported, Updated: res.Updated, Unchanged: res.Unchanged,
		Empty: res.Empty, Records: res.Records, Bytes: res.Bytes, SessionIDs: res.SessionIDs}
	if err := importEnded(ctx, rt, db, cfg, path, importRun{res: counts, err: err, sources: len(d.Sources), first: first, empty: "the session file holds no message"}); err != nil {
		return "", err
	}
	line := importSummary(counts, time.Since(start), agentNames[d.Origin])
	var skipped []string
	if res.Unknown > 0 {
		skipped = append(skipped, fmt.Sprintf("%s %s of unknown types skipped", words.Thousands(res.Unknown), words.Plural(res.Unknown, "line", "lines")))
	}
	if res.Invalid > 0 {
		skipped = append(skipped, fmt.Sprintf("%s malformed %s skipped", words.Thousands(res.Invalid), words.Plural(res.Invalid, "line", "lines")))
	}
	if res.Torn > 0 {
		skipped = append(skipped, fmt.Sprintf("%s torn last %s left for the next import", words.Thousands(res.Torn), words.Plural(res.Torn, "line", "lines")))
	}
	if res.Diverged > 0 {
		skipped = append(skipped, fmt.Sprintf("%s diverging %s of sessions imported from another path skipped", words.Thousands(res.Diverged), words.Plural(res.Diverged, "copy", "copies")))
	}
	if len(skipped) > 0 {
		line += "; " + strings.Join(skipped, ", ")
	}
	return line, nil
}

// importHomes imports every agent home found (kimi-cli's share dir, codex's
// and Claude Code's homes), one summary line each, named by its agent and
// path.
func importHomes(ctx context.Context, rt *Runtime, skipInvalid bool) error {
	getenv := rt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	home, _ := os.UserHomeDir()
	kimiHome := getenv("KIMI_SHARE_DIR")
	if kimiHome == "" && home != "" {
		kimiHome = filepath.Join(home, ".kimi")
	}
	var homes []string
	if fi, err := os.Stat(filepath.Join(kimiHome, kimi.SessionsDir)); err == nil && fi.IsDir() {
		homes = append(homes, kimiHome)
	}
	homes = append(homes, peers.Homes(getenv, home)...)
	if len(homes) == 0 {
		return userErrorf(nil, "no agent history found: looked for ~/.kimi ($KIMI_SHARE_DIR), ~/.codex ($CODEX_HOME) and ~/.claude ($CLAUDE_CONFIG_DIR); pass a PATH to import")
	}
	db, cfg, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, h := range homes {
		var line string
		agent := "kimi-cli"
		if d, ok, err := peers.Detect(h); err != nil {
			return importError(err, h)
		} else if ok {
			agent = agentNames[d.Origin]
			line, err = importPeers(ctx, rt, db, cfg, h, d)
			if err != nil {
				return err
			}
		} else {
			if agent == "kimi-cli" && h != kimiHome {
				continue // a codex or Claude Code home with no session yet
			}
			d, err := kimi.Discover(h)
			if err != nil {
				return importError(err, h)
			}
			if line, err = importKimi(ctx, rt, db, cfg, h, d, skipInvalid); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(rt.Stderr, "%s (%s): %s\n", agent, h, line); err != nil {
			return err
		}
	}
	return nil
}
