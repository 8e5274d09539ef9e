package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rewind-agent/rewind/store"
)

// A session file can be at two paths at once: a copied ~/.codex or
// ~/.claude (a backup, another machine's home) holds the same session ids.
// The import record names the path a session was imported from; a copy at
// another path that still exists does not rewrite the session:
//   - one that holds no more than was imported (identical, or an older copy:
//     a prefix of the imported file) changes nothing;
//   - one that extends what was imported (the imported bytes are its start)
//     continues the session and becomes its source;
//   - one that diverges (the same session continued apart) is skipped, and
//     reported once: the import record remembers the copies reported.
// A path whose recorded source is gone is the same file moved: it is read
// as the source (grown, or rewritten as new generations).

// copyOfImported says whether src is a copy of its session's recorded
// source at another path that still exists.
func copyOfImported(src Source, prev store.KimiImport) bool {
	if prev.Source == "" || prev.Source == src.Path {
		return false
	}
	rec, err := os.Stat(prev.Source)
	if err != nil {
		return false // moved: this path is the source now
	}
	cur, err := os.Stat(src.Path)
	return err != nil || !os.SameFile(rec, cur)
}

// olderCopy: data (a copy's bytes) is the start of the recorded source's.
func olderCopy(ctx context.Context, recorded string, data []byte) bool {
	rec, err := readRegular(ctx, recorded)
	return err == nil && bytes.HasPrefix(rec, data)
}

// reportDiverged warns, once per copy, that src diverges from the file its
// session was imported from, and remembers it in the import record.
func (p *parsedFile) reportDiverged(ctx context.Context, db *store.DB, o Options, res *Result) error {
	if slices.Contains(p.old.Diverged, p.src.Path) {
		res.Unchanged++
		return nil
	}
	res.Diverged++
	if o.Warn != nil {
		o.Warn(fmt.Sprintf("%s: a copy of the %s session %s imported from %s, which it diverges from: skipped (rewind keeps the first path imported; this is reported once)",
			p.src.Path, p.src.Origin, strings.TrimPrefix(p.src.Key, p.src.Origin+":"), p.prev.Source))
	}
	st := p.old
	st.Diverged = append(slices.Clone(st.Diverged), p.src.Path)
	stJSON, _ := json.Marshal(st)
	k := p.prev
	k.Files = string(stJSON)
	if _, err := db.GrowImport(ctx, p.prev, k, nil, nil); err != nil {
		return fmt.Errorf("import %s: %w", p.src.Path, err)
	}
	return nil
}
