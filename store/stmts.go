package store

import (
	"context"
	"database/sql"
	"sync"
)

// writerStmts are the append path's statements, prepared once on the writer
// pool (at the first append or import) rather than prepared and finalized by
// every append; each transaction binds them with Tx.StmtContext, which
// re-prepares on its connection only if the pool replaced it.
type writerStmts map[string]*sql.Stmt

// lazyStmts prepares the writer's statements on first use: a command that
// only reads (most CLI commands) opened the writer's connection and
// prepared seven statements for nothing, about a tenth of a start's CPU.
type lazyStmts struct {
	mu sync.Mutex
	ws writerStmts
}

// get returns the statements, preparing them if none are yet. It must be
// called outside a write transaction (the writer has one connection). A
// failed prepare returns nil, so the caller's transaction runs the queries
// unprepared and reports the failure as any write would (a damaged or busy
// database); the next call tries again.
func (l *lazyStmts) get(ctx context.Context, writer *sql.DB) writerStmts {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ws == nil && writer != nil {
		l.ws, _ = prepareWriterStmts(ctx, writer)
	}
	return l.ws
}

func (l *lazyStmts) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ws.close()
	l.ws = nil
}

var appendQueries = []string{stateGenQuery,
	insertRecordQuery, insertFTSQuery, updateCountersQuery, updateLastSeqQuery,
	getSessionQuery}

// prepareWriterStmts prepares appendQueries on the writer; called after
// migrations, while no transaction holds the writer's one connection.
func prepareWriterStmts(ctx context.Context, writer *sql.DB) (writerStmts, error) {
	ws := writerStmts{}
	for _, q := range appendQueries {
		s, err := writer.PrepareContext(ctx, q)
		if err != nil {
			ws.close()
			return nil, err
		}
		ws[q] = s
	}
	return ws, nil
}

func (ws writerStmts) close() {
	for _, s := range ws {
		s.Close()
	}
}

// in returns the statements for tx (nil when there are none, as for a DB
// built by hand in tests).
func (ws writerStmts) in(tx *sql.Tx) *txStmts {
	if ws == nil {
		return nil
	}
	return &txStmts{tx: tx, ws: ws}
}

// txStmts runs the prepared statements in one write transaction and any
// other query as tx would. It is a querier.
type txStmts struct {
	tx *sql.Tx
	ws writerStmts
}

// stmt is the prepared statement for query bound to the transaction, or nil.
func (t *txStmts) stmt(ctx context.Context, query string) *sql.Stmt {
	if s := t.ws[query]; s != nil {
		return t.tx.StmtContext(ctx, s)
	}
	return nil
}

func (t *txStmts) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if s := t.stmt(ctx, query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

func (t *txStmts) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := t.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t *txStmts) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := t.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}
