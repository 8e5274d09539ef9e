package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// KimiImport is what rewind remembers of one imported kimi-cli session:
// its uuid, the files it was imported from (Files: JSON, the importer's
// business) and how many records of its context files went in.
type KimiImport struct {
	KimiSession string
	SessionID   string
	Source      string
	Files       string
	Records     int
}

// LookupKimiImport returns the import record of a kimi-cli session uuid;
// ok is false when it was never imported (or its session was deleted for
// good).
func (db *DB) LookupKimiImport(ctx context.Context, kimiSession string) (KimiImport, bool, error) {
	k := KimiImport{KimiSession: kimiSession}
	err := db.reader.QueryRowContext(ctx, `SELECT session_id, source, files, records FROM kimi_imports WHERE kimi_session = ?`,
		kimiSession).Scan(&k.SessionID, &k.Source, &k.Files, &k.Records)
	if errors.Is(err, sql.ErrNoRows) {
		return KimiImport{}, false, nil
	}
	if err != nil {
		return KimiImport{}, false, fmt.Errorf("store: kimi import %s: %w", kimiSession, err)
	}
	return k, true, nil
}

func recordKimiImport(ctx context.Context, tx *sql.Tx, k *KimiImport, sessionID string) error {
	if k == nil {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO kimi_imports (kimi_session, session_id, source, files, records, imported_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (kimi_session) DO UPDATE SET session_id = excluded.session_id, source = excluded.source,
			files = excluded.files, records = excluded.records, imported_at = excluded.imported_at`,
		k.KimiSession, sessionID, k.Source, k.Files, k.Records, nowMS())
	return err
}

// ExtendImport adds a generation to an imported session whose kimi-cli
// files changed since, and updates its import record, in one transaction.
// With grown (the context file only gained lines) the new generation's
// parent is the current one, so the view is the old records (shared, not
// copied) followed by records; otherwise records are a new root
// generation (kimi rewrote or rotated the file). Either way the previous
// generation is archived, as after a revert.
func (db *DB) ExtendImport(ctx context.Context, k KimiImport, grown bool, records []Record) (Generation, error) {
	var out genRow
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := loadState(ctx, tx, k.SessionID)
		if err != nil {
			return err
		}
		g := genRow{cause: CauseImport, sourceGen: &st.currentGen}
		if grown {
			cur, err := loadGen(ctx, tx, st.id, st.currentGen)
			if err != nil {
				return err
			}
			g.parentGen = &st.currentGen
			g.messages, g.nextCP, g.tokens = cur.messages, cur.nextCP, cur.tokens
		}
		if g, err = startGeneration(ctx, tx, st, g); err != nil {
			return err
		}
		a := &appender{ctx: ctx, tx: tx, session: st.id, gen: g, lastSeq: st.lastSeq, now: nowMS()}
		for _, r := range records {
			if _, err := a.add(r, nil); err != nil {
				a.close()
				return err
			}
		}
		out = a.gen
		if err := a.flush(); err != nil {
			return err
		}
		return recordKimiImport(ctx, tx, &k, st.id)
	})
	if err != nil {
		return Generation{}, fmt.Errorf("store: update import of %s: %w", k.SessionID, err)
	}
	return out.public(), nil
}
