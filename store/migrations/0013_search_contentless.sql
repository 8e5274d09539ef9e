-- 0013: the full-text index keeps no copy of the text (content=""). The
-- text is in each context row's body; search builds its snippets from it
-- (store/snippet.go). The old index's own content table was a second copy
-- of every message's text (17 % of a 1M-record database).
--
-- The new index was filled before this transaction by store/searchindex.go
-- (copySearchIndex: batches of the old index's rows, each its own
-- transaction, resumable), and its last rows in this one (copySearchTail).
-- Same tokenizer, prefix indexes and doclist order as 0006.
DROP TABLE context_fts;
ALTER TABLE context_fts_v13 RENAME TO context_fts;
DROP TABLE IF EXISTS search_copy;

-- A contentless index cannot delete: the id ranges of records deleted
-- since (an import's hidden half-written session, dropped) are retired, so
-- that an index entry left for one is never taken for a new record's.
CREATE TABLE search_retired (
    lo INTEGER NOT NULL,
    hi INTEGER NOT NULL
);

-- The old index's pages are free now: when it had rows, copySearchTail
-- left a table reclaim_pending, and Open runs VACUUM once to give them
-- back (store.DB.reclaim), then drops it.
