-- 0006: the full-text index stores its doclists newest first (order=DESC).
-- Search reads hits ORDER BY docid DESC LIMIT n; with doclists in
-- ascending order FTS4 cannot load them incrementally for a descending
-- scan, so every query read the whole doclist of each term (all of "the",
-- or every word starting with "re") before returning the first row. In
-- the order of the scan it reads leaf pages as it goes and LIMIT stops it.
-- Rebuilt from the old index like 0004; about 7 s per million indexed
-- messages on a 2-core machine.
CREATE VIRTUAL TABLE context_fts_v6 USING fts4 (text, tokenize=unicode61, prefix="2,3", order=DESC);
INSERT INTO context_fts_v6 (docid, text) SELECT docid, text FROM context_fts;
DROP TABLE context_fts;
ALTER TABLE context_fts_v6 RENAME TO context_fts;
