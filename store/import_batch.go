package store

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/semaphore"
)

// DefaultImportBatch is how many records a bulk import gathers for one
// ImportSessions call when the importer asks for no other number.
const DefaultImportBatch = 20000

// BulkImport is the loop of every bulk import (kimi-cli share dirs, codex
// and Claude Code homes): read parses source i of n on a reader goroutine,
// in order, and take handles each parsed source on the caller's goroutine,
// giving the new sessions to the ImportBatch (the writer). Reading and
// parsing overlap with writing, so on two cores an import is bounded by the
// slower of the two; the reader stays at most two batches of records
// (read's count) ahead of the writer, so memory stays bounded. An error of
// read stops the import once the sources before it are taken; an error of
// take stops it at once. The batch is flushed at the end; sessions written
// before an error stay written.
func BulkImport[P any](ctx context.Context, db *DB, batchRecords, n int,
	read func(ctx context.Context, i int) (P, int, error),
	take func(ctx context.Context, p P, b *ImportBatch) error) error {
	if batchRecords <= 0 {
		batchRecords = DefaultImportBatch
	}
	b := &ImportBatch{db: db, limit: batchRecords}
	type parsed struct {
		p      P
		err    error
		weight int64 // of the reader's budget, given back once taken
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ahead := int64(2 * batchRecords)
	budget := semaphore.NewWeighted(ahead)
	out := make(chan parsed, 1024)
	go func() {
		defer close(out)
		for i := range n {
			p, records, err := read(ctx, i)
			w := min(max(int64(records), 1), ahead)
			if budget.Acquire(ctx, w) != nil {
				return
			}
			out <- parsed{p, err, w}
			if err != nil {
				return
			}
		}
	}()
	for p := range out {
		budget.Release(p.weight)
		if p.err != nil {
			return p.err
		}
		if err := take(ctx, p.p, b); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.Flush(ctx)
}

// ImportBatch gathers new sessions of a bulk import and writes them through
// ImportSessions once they hold its limit of records (sessions are never
// split between calls; ImportSessions commits a call in short
// transactions, a larger session hidden until its last one).
type ImportBatch struct {
	db       *DB
	limit    int
	sessions []ImportedSession
	written  []func(Session)
	records  int
}

// Add gathers a session of records records, newest first (the order a
// discovery lists them in), and writes the batch when it is full. written
// is called with the session once written: the zero Session when another
// import running at once took it first.
func (b *ImportBatch) Add(ctx context.Context, is ImportedSession, records int, written func(Session)) error {
	b.sessions, b.written = append(b.sessions, is), append(b.written, written)
	if b.records += records; b.records >= b.limit {
		return b.Flush(ctx)
	}
	return nil
}

// Flush writes the sessions gathered, oldest first: ImportSessions ranks the
// sessions of a call in search in the order given, below those of earlier
// calls. On an error, the sessions committed before it are reported written.
func (b *ImportBatch) Flush(ctx context.Context) error {
	if len(b.sessions) == 0 {
		return nil
	}
	slices.Reverse(b.sessions)
	slices.Reverse(b.written)
	out, err := b.db.ImportSessions(ctx, b.sessions)
	for i, s := range out {
		b.written[i](s)
	}
	clear(b.sessions) // the records go with them
	b.sessions, b.written, b.records = b.sessions[:0], b.written[:0], 0
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}
