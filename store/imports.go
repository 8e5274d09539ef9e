package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/store/message"
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

// kimiClaimed: k's kimi-cli session has an import record already. Asked in
// the write transaction that would record it, so two imports never both
// find it free.
func kimiClaimed(ctx context.Context, tx *sql.Tx, k *KimiImport) (bool, error) {
	if k == nil {
		return false, nil
	}
	var claimed bool
	err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM kimi_imports WHERE kimi_session = ?)`, k.KimiSession).Scan(&claimed)
	if err != nil {
		return false, fmt.Errorf("kimi import %s: %w", k.KimiSession, err)
	}
	return claimed, nil
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
// generation is archived, as after a revert. prev is the import record
// the caller compared the files with: when the record is no longer that
// (another import updated the session since it was read), nothing is
// written and ok is false.
func (db *DB) ExtendImport(ctx context.Context, prev, k KimiImport, grown bool, records []Record) (gen Generation, ok bool, err error) {
	var out genRow
	err = db.WriteTx(ctx, func(tx *sql.Tx) error {
		var files, sessionID string
		err := tx.QueryRowContext(ctx, `SELECT files, session_id FROM kimi_imports WHERE kimi_session = ?`, prev.KimiSession).Scan(&files, &sessionID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if files != prev.Files || sessionID != prev.SessionID {
			return nil
		}
		ok = true
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
				return err
			}
		}
		out = a.gen
		if err := a.flush(); err != nil {
			return err
		}
		return recordKimiImport(ctx, tx, &k, st.id)
	})
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("store: update import of %s: %w", k.SessionID, err)
		}
		return Generation{}, false, err
	}
	return out.public(), true, nil
}

// GrowImport adds what the source of an imported session gained since its
// last import, in one transaction: records go on its current generation
// (the view grows, as a live run's does), then gens follow it, each a
// new root generation that becomes current with the one before archived
// (the source compacted or went back to an earlier prompt); a generation's
// SourceGen is an index in gens, -1 for the current generation before the
// call. The import record becomes k. prev is the import record the
// caller compared the source with: when the record is no longer that
// (another import updated the session since), nothing is written and ok
// is false. The session's updated_at becomes its newest record's time.
func (db *DB) GrowImport(ctx context.Context, prev, k KimiImport, records []Record, gens []ImportedGeneration) (ok bool, err error) {
	err = db.RetryBusy(ctx, func() error {
		ok = false
		return db.WriteTx(ctx, func(tx *sql.Tx) error {
			var files, sessionID string
			err := tx.QueryRowContext(ctx, `SELECT files, session_id FROM kimi_imports WHERE kimi_session = ?`, prev.KimiSession).Scan(&files, &sessionID)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			if files != prev.Files || sessionID != prev.SessionID {
				return nil
			}
			ok = true
			st, err := loadState(ctx, tx, sessionID)
			if err != nil {
				return err
			}
			cur, err := loadGen(ctx, tx, st.id, st.currentGen)
			if err != nil {
				return err
			}
			latest := int64(0)
			write := func(g genRow, recs []Record, dec []*message.Message) error {
				// The records' own times, and the newest of them is when
				// the session was last updated.
				now := int64(0)
				for _, r := range recs {
					now = max(now, r.CreatedAt.UnixMilli())
				}
				if now <= 0 {
					now = nowMS()
				}
				a := &appender{ctx: ctx, tx: tx, session: st.id, gen: g, lastSeq: st.lastSeq, now: now}
				for i, r := range recs {
					var m *message.Message
					if i < len(dec) {
						m = dec[i]
					}
					if _, err := a.add(r, m); err != nil {
						return err
					}
				}
				latest = max(latest, now)
				if err := a.flush(); err != nil {
					return err
				}
				st.lastSeq = a.lastSeq
				return nil
			}
			if len(records) > 0 {
				if err := write(cur, records, nil); err != nil {
					return err
				}
			}
			base := st.currentGen
			for _, ig := range gens {
				cause := ig.Cause
				if cause == "" {
					cause = CauseImport
				}
				g := genRow{cause: cause}
				if ig.SourceGen != nil {
					src := base + 1 + *ig.SourceGen
					g.sourceGen = &src
				}
				if g, err = startGeneration(ctx, tx, st, g); err != nil {
					return err
				}
				st.currentGen = g.gen
				if err := write(g, ig.Records, ig.Decoded); err != nil {
					return err
				}
			}
			if latest > 0 { // startGeneration set it to now
				if _, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, latest, st.id); err != nil {
					return err
				}
			}
			k.SessionID = st.id
			return recordKimiImport(ctx, tx, &k, st.id)
		})
	})
	if err != nil {
		return false, fmt.Errorf("store: grow import of %s: %w", prev.SessionID, err)
	}
	return ok, nil
}
