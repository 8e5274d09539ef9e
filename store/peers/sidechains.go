package peers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/rewind-agent/rewind/store"
)

// Claude Code 1.0 wrote its sub-agents' records into the parent's file
// (Session.Sidechains); each becomes a sub-agent session of the parent, as
// a newer version's sub-agent file does. Its import record is its own,
// keyed under the parent's ("claude:<uuid>/sidechain-1"), and holds the
// parent file's state (the bytes read and their hash) with its own record
// counts, so a grown parent file adds each sub-agent's new records.

// sideFiles are the parsed sidechains of p's file, each as a source of its
// own whose parent is p's; data is the file as read (nil: it was only
// appended to since each sidechain's last import, as a followed file).
func (p *parsedFile) sideFiles(ctx context.Context, db *store.DB, data []byte) error {
	for _, sc := range p.s.Sidechains {
		src := p.src
		src.Key, src.Parent, src.Size = p.src.Key+"/"+sc.Side.Name, p.src.Key, 0
		src.ToolUseID, src.AgentType, src.Description = sc.Side.CallID, sc.Side.Type, sc.Side.Description
		sp := parsedFile{src: src, s: sc}
		var err error
		if sp.prev, sp.seen, err = db.LookupKimiImport(ctx, src.Key); err != nil {
			return err
		}
		if sp.seen {
			if err := json.Unmarshal([]byte(sp.prev.Files), &sp.old); err != nil {
				return fmt.Errorf("import %s: the record of its last import is unreadable: %w", src.Key, err)
			}
			if data == nil {
				sp.grown = true
			} else if int64(len(data)) >= sp.old.Size {
				sum := sha256.Sum256(data[:sp.old.Size])
				sp.grown = hex.EncodeToString(sum[:]) == sp.old.SHA256
			}
		}
		sp.state = p.state
		sp.state.Diverged, sp.state.Sidechains = nil, 0
		sp.state.Gens, sp.state.Last = len(sc.Gens), 0
		if len(sc.Gens) > 0 {
			sp.state.Last = len(sc.Gens[len(sc.Gens)-1].Records)
		}
		p.sides = append(p.sides, sp)
	}
	return nil
}

// importNow writes a new session at once rather than in the batch: its
// sidechains name it, so it must have its id first.
func importNow(ctx context.Context, db *store.DB, is store.ImportedSession, n int, size int64, res *Result) error {
	out, err := db.ImportSessions(ctx, []store.ImportedSession{is})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if len(out) == 1 && out[0].ID != "" {
		res.Imported++
		res.Records += n
		res.Bytes += size
		res.SessionIDs = append(res.SessionIDs, out[0].ID)
	} else {
		res.Unchanged++ // another import took it meanwhile
	}
	return nil
}

// writeSides writes the sidechains of a parent written or updated.
func (p *parsedFile) writeSides(ctx context.Context, db *store.DB, o Options, res *Result) error {
	for i := range p.sides {
		sp := &p.sides[i]
		is, n, err := sp.write(ctx, db, o, res)
		if err != nil {
			return err
		}
		if n > 0 {
			if err := importNow(ctx, db, is, n, 0, res); err != nil {
				return err
			}
		}
	}
	return nil
}
