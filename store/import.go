package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rewind-agent/rewind/store/message"
)

// ImportedGeneration is one generation to import: its records (Kind, Role,
// CheckpointID, TokenCount, Body and optionally CreatedAt are used) and its
// cause (default import).
type ImportedGeneration struct {
	Records []Record
	Cause   Cause
	// Decoded optionally holds the decoded body of each message record (nil
	// for others): a bulk import that decoded the lines already saves the
	// store decoding and validating them again.
	Decoded []*message.Message
}

// ImportedSession is one session for ImportSessions.
type ImportedSession struct {
	Session     NewSession
	Generations []ImportedGeneration
	// Kimi, when set, is recorded in the same transaction (SessionID is
	// filled in), so a re-run of a bulk import knows the session.
	Kimi *KimiImport
}

// ImportSession creates a session from generations given oldest first, in
// one transaction: each is a root generation, all but the last archived.
func (db *DB) ImportSession(ctx context.Context, ns NewSession, gens []ImportedGeneration) (Session, error) {
	out, err := db.ImportSessions(ctx, []ImportedSession{{Session: ns, Generations: gens}})
	if err != nil {
		return Session{}, err
	}
	return out[0], nil
}

// ImportSessions imports many sessions in one transaction (bulk import and
// benchmark databases).
func (db *DB) ImportSessions(ctx context.Context, in []ImportedSession) ([]Session, error) {
	out := make([]Session, 0, len(in))
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		var rec, fts *sql.Stmt
		defer func() {
			if rec != nil {
				rec.Close()
				fts.Close()
			}
		}()
		for i, is := range in {
			id, err := insertSession(ctx, tx, is.Session)
			if err != nil {
				return err
			}
			gens := is.Generations
			if len(gens) == 0 {
				gens = []ImportedGeneration{{}}
			}
			var lastSeq int64
			created := toMS(is.Session.CreatedAt)
			for gi, ig := range gens {
				cause := ig.Cause
				if cause == "" {
					cause = CauseImport
				}
				g := genRow{sessionID: id, gen: gi, cause: cause, createdAt: created}
				if gi < len(gens)-1 {
					g.archivedAt = &created
				}
				if err := insertGeneration(ctx, tx, g); err != nil {
					return err
				}
				// The insert statements are prepared by the first appender
				// and handed on, so a bulk import prepares them once.
				a := &appender{ctx: ctx, tx: tx, session: id, gen: g, lastSeq: lastSeq, now: created, insRec: rec, insFTS: fts}
				for ri, r := range ig.Records {
					var m *message.Message
					if ri < len(ig.Decoded) {
						m = ig.Decoded[ri]
					}
					if _, err := a.add(r, m); err != nil {
						return fmt.Errorf("session %d generation %d: %w", i, gi, err)
					}
				}
				rec, fts = a.insRec, a.insFTS
				if _, err := tx.ExecContext(ctx, updateCountersQuery, a.gen.messages, a.gen.nextCP, a.gen.tokens, id, gi); err != nil {
					return err
				}
				lastSeq = a.lastSeq
			}
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET current_gen = ?, last_seq = ? WHERE id = ?`,
				len(gens)-1, lastSeq, id); err != nil {
				return err
			}
			if err := recordKimiImport(ctx, tx, is.Kimi, id); err != nil {
				return err
			}
			s, err := getSession(ctx, tx, id)
			if err != nil {
				return err
			}
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: import: %w", err)
	}
	return out, nil
}
