package peers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/store"
)

// Options tunes ImportAll.
type Options struct {
	// WorkDir is the work dir of sessions whose file names none.
	WorkDir string
	// Warn receives warnings (a torn last line, a line that is not JSON).
	Warn func(string)
	// Progress is called after each session with the bytes done and in all.
	Progress func(done, total int64)
	// BatchRecords is how many records go in one store.ImportSessions call
	// (0: 20,000), as kimi's ImportAll.
	BatchRecords int
	// StreamBytes: a new session file of more bytes is parsed as it is
	// written, half a batch at a time, hidden until whole (0: 8 MiB).
	StreamBytes int64
}

// Result says what ImportAll did.
type Result struct {
	Imported, Updated, Unchanged, Empty int      // sessions
	Records                             int      // records written
	Bytes                               int64    // bytes of the files imported or updated
	Unknown                             int      // lines of record types not known, skipped
	Invalid                             int      // lines that are not JSON objects, skipped
	Torn                                int      // files whose torn last line waits for the next import
	Diverged                            int      // copies of an imported session at another path that diverge from it, skipped (each reported once)
	SessionIDs                          []string // rewind sessions imported or updated, in order
}

// importState is what the import record keeps of a file (its Files field):
// the bytes of whole lines imported and their sha256, and how many
// generations and records of the last one they gave. A file whose first
// Size bytes are unchanged only grew: its new lines' records are added.
type importState struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Gens   int    `json:"gens"`
	Last   int    `json:"last"`
	// Diverged are the copies at other paths reported as diverging.
	Diverged []string `json:"diverged,omitempty"`
	// Sidechains counts the sub-agent runs in the file (sidechains.go).
	Sidechains int `json:"sidechains,omitempty"`
}

func stateOf(s *Session, data []byte) importState {
	sum := sha256.Sum256(data[:s.Consumed])
	st := importState{Size: s.Consumed, SHA256: hex.EncodeToString(sum[:]), Gens: len(s.Gens), Sidechains: len(s.Sidechains)}
	if len(s.Gens) > 0 {
		st.Last = len(s.Gens[len(s.Gens)-1].Records)
	}
	return st
}

// ImportAll imports the sources (from Detect) into db with the store's
// import machinery (store.BulkImport): new sessions in batches through
// store.ImportSessions
// (short transactions, a large session hidden until whole), a file
// imported before and unchanged skipped after hashing it, a file that grew
// adding only its new lines' records (store.GrowImport), a file rewritten
// otherwise becoming a new generation of its session.
func ImportAll(ctx context.Context, db *store.DB, srcs []Source, o Options) (Result, error) {
	if o.BatchRecords <= 0 {
		o.BatchRecords = store.DefaultImportBatch
	}
	if o.StreamBytes <= 0 {
		o.StreamBytes = defaultStreamBytes
	}
	var res Result
	var total, done int64
	for _, s := range srcs {
		total += s.Size
	}
	read := func(ctx context.Context, i int) (parsedFile, int, error) {
		p := readAndParse(ctx, db, srcs[i], o, true)
		return p, p.records(), p.err
	}
	take := func(ctx context.Context, p parsedFile, batch *store.ImportBatch) error {
		src := p.src
		if p.hashed != nil {
			err := p.importStream(ctx, db, o, batch, &res)
			if !errors.Is(err, errBranchGone) {
				done += src.Size
				if err == nil && o.Progress != nil {
					o.Progress(done, total)
				}
				return err
			}
			// Read whole: the session goes back to records written.
			p = readAndParse(ctx, db, src, o, false)
			if p.err != nil {
				return p.err
			}
		}
		if src.Parent != "" {
			// A sub-agent's session names its parent's: the parents
			// (listed first) are written before.
			if err := batch.Flush(ctx); err != nil {
				return err
			}
		}
		is, n, err := p.write(ctx, db, o, &res)
		if err != nil {
			return err
		}
		done += src.Size
		if n > 0 {
			err := batch.Add(ctx, is, n, func(s store.Session) {
				if s.ID == "" {
					res.Unchanged++
					return
				}
				res.Imported++
				res.Records += n
				res.Bytes += src.Size
				res.SessionIDs = append(res.SessionIDs, s.ID)
			})
			if err != nil {
				return err
			}
		}
		if o.Progress != nil {
			o.Progress(done, total)
		}
		return nil
	}
	err := store.BulkImport(ctx, db, o.BatchRecords, len(srcs), read, take)
	return res, err
}

// parsedFile is one source read and parsed (s nil: unchanged since its
// last import), with what that import recorded.
type parsedFile struct {
	src   Source
	prev  store.KimiImport
	seen  bool
	old   importState
	grown bool // the bytes imported last time are unchanged
	// diverged: a copy of the session at another path (copies.go) that
	// is neither the imported file nor an extension of it.
	diverged bool
	sides    []parsedFile // the sub-agent runs written into the file (sidechains.go)
	s        *Session
	size     int // bytes read
	state    importState
	err      error
	// hashed, when set, says the new file is too large to parse whole:
	// it was only hashed, and is parsed as it is written (fileStream).
	hashed *fileHash
}

func (p *parsedFile) records() int {
	if p.s == nil {
		return 0
	}
	return p.s.Records()
}

// readAndParse reads a source and parses it, unless its import record
// says it is unchanged (then it is only read and hashed), or it is new and
// larger than o.StreamBytes and may be streamed (then it is hashed).
func readAndParse(ctx context.Context, db *store.DB, src Source, o Options, stream bool) parsedFile {
	p := parsedFile{src: src}
	var err error
	if p.prev, p.seen, err = db.LookupKimiImport(ctx, src.Key); err != nil {
		p.err = err
		return p
	}
	if stream && !p.seen && src.Size > o.StreamBytes {
		fh, err := hashFile(ctx, src.Path)
		if err != nil {
			p.err = fmt.Errorf("import %s: %w", src.Path, err)
		}
		p.hashed = &fh
		return p
	}
	data, err := readRegular(ctx, src.Path)
	if err != nil {
		p.err = fmt.Errorf("import %s: %w", src.Path, err)
		return p
	}
	p.size = len(data)
	if p.seen {
		if err := json.Unmarshal([]byte(p.prev.Files), &p.old); err != nil {
			p.err = fmt.Errorf("import %s: the record of its last import is unreadable: %w", src.Path, err)
			return p
		}
		if int64(len(data)) >= p.old.Size {
			sum := sha256.Sum256(data[:p.old.Size])
			p.grown = hex.EncodeToString(sum[:]) == p.old.SHA256
		}
		if p.grown && len(bytes.TrimSpace(data[p.old.Size:])) == 0 {
			return p // unchanged
		}
		if !p.grown && copyOfImported(src, p.prev) {
			p.diverged = !olderCopy(ctx, p.prev.Source, data)
			return p
		}
	}
	if p.s, err = Parse(bytes.NewReader(data), src.Origin, src.Path, o.Warn); err != nil {
		p.err = err
		return p
	}
	p.state = stateOf(p.s, data)
	p.state.Diverged = p.old.Diverged
	if err := p.sideFiles(ctx, db, data); err != nil {
		p.err = err
	}
	return p
}

// write updates the parsed file's session (done here) or returns the new
// session to write, with its record count.
func (p *parsedFile) write(ctx context.Context, db *store.DB, o Options, res *Result) (store.ImportedSession, int, error) {
	src, s := p.src, p.s
	if p.diverged {
		return store.ImportedSession{}, 0, p.reportDiverged(ctx, db, o, res)
	}
	if s == nil {
		res.Unchanged += 1 + p.old.Sidechains
		return store.ImportedSession{}, 0, nil
	}
	res.Unknown += unknownLines(s)
	res.Invalid += s.Invalid
	if s.Torn {
		res.Torn++
	}
	stJSON, _ := json.Marshal(p.state)
	k := store.KimiImport{KimiSession: src.Key, Source: src.Path, Files: string(stJSON), Records: s.Records()}
	if p.seen {
		n, ok, err := grow(ctx, db, p.prev, k, s, p.old, p.grown)
		if err != nil {
			return store.ImportedSession{}, 0, fmt.Errorf("import %s: %w", src.Path, err)
		}
		if !ok || n == 0 {
			res.Unchanged++
		} else {
			res.Updated++
			res.Records += n
			res.Bytes += int64(p.size)
			res.SessionIDs = append(res.SessionIDs, p.prev.SessionID)
		}
		if ok {
			return store.ImportedSession{}, 0, p.writeSides(ctx, db, o, res)
		}
		return store.ImportedSession{}, 0, nil
	}
	n := s.Records()
	if n == 0 {
		res.Empty++
		return store.ImportedSession{}, 0, nil
	}
	is := newSession(s, src, o.WorkDir, &k)
	if err := subagentOf(ctx, db, src, &is); err != nil {
		return store.ImportedSession{}, 0, err
	}
	if len(p.sides) > 0 {
		if err := importNow(ctx, db, is, n, int64(p.size), res); err != nil {
			return store.ImportedSession{}, 0, err
		}
		return store.ImportedSession{}, 0, p.writeSides(ctx, db, o, res)
	}
	return is, n, nil
}

// subagentOf makes a Claude Code sub-agent's file a sub-agent session of
// its parent's, when the parent is imported (else it is a session of its
// own).
func subagentOf(ctx context.Context, db *store.DB, src Source, is *store.ImportedSession) error {
	if src.Parent == "" {
		return nil
	}
	p, ok, err := db.LookupKimiImport(ctx, src.Parent)
	if ok {
		is.Session.Subagent = store.SubagentOrigin{Of: p.SessionID, CallID: src.ToolUseID, Type: src.AgentType}
	}
	return err
}

// importStream imports a new file too large to parse whole, parsing it as
// it is written, alone (the batch before it is written first), then the
// sub-agent runs written into it. A session that goes back to records
// already written is errBranchGone: nothing of it is left, and the caller
// reads it whole.
func (p *parsedFile) importStream(ctx context.Context, db *store.DB, o Options, batch *store.ImportBatch, res *Result) error {
	if err := batch.Flush(ctx); err != nil {
		return err
	}
	src := p.src
	st, err := newFileStream(ctx, src, *p.hashed, o.BatchRecords/2, o.Warn)
	if err != nil {
		return err
	}
	defer st.close()
	first, done, err := st.Next(ctx)
	if err != nil {
		return err
	}
	s := st.p.b.s
	k := store.KimiImport{KimiSession: src.Key, Source: src.Path}
	st.k = &k
	is := newSession(s, src, o.WorkDir, &k)
	is.Generations = first.Gens
	if err := subagentOf(ctx, db, src, &is); err != nil {
		return err
	}
	if !done {
		is.Stream, is.Bound = &finalSession{st, src, o.WorkDir}, p.hashed.bound
	} else {
		stJSON, _ := json.Marshal(st.state())
		k.Files, k.Records = string(stJSON), st.total
	}
	var written store.Session
	if st.total > 0 || !done {
		err = batch.Add(ctx, is, p.hashed.bound, func(s store.Session) { written = s })
		if err == nil {
			err = batch.Flush(ctx)
		}
		if err != nil {
			return err
		}
	}
	s = st.p.b.s
	res.Unknown += unknownLines(s)
	res.Invalid += s.Invalid
	if s.Torn {
		res.Torn++
	}
	switch {
	case st.total == 0:
		res.Empty++
		return nil
	case written.ID == "":
		res.Unchanged++ // another import took it first
		return nil
	}
	res.Imported++
	res.Records += st.total
	res.Bytes += src.Size
	res.SessionIDs = append(res.SessionIDs, written.ID)
	if len(s.Sidechains) == 0 {
		return nil
	}
	p.s, p.state = s, st.state()
	if err := p.sideFiles(ctx, db, nil); err != nil {
		return err
	}
	return p.writeSides(ctx, db, o, res)
}

// finalSession is a file's stream whose last piece gives the session's
// title, work dir and model as the whole file has them.
type finalSession struct {
	*fileStream
	src     Source
	workDir string
}

func (f *finalSession) Next(ctx context.Context) (store.ImportPiece, bool, error) {
	piece, done, err := f.fileStream.Next(ctx)
	if done && err == nil {
		ns := newSession(f.p.b.s, f.src, f.workDir, nil).Session
		piece.Session = &ns
	}
	return piece, done, err
}

// grow writes what a file gained since its last import (old): with grown
// (its imported lines unchanged) the records after the old ones, else
// (rewritten) the whole file as new generations.
func grow(ctx context.Context, db *store.DB, prev, k store.KimiImport, s *Session, old importState, grown bool) (int, bool, error) {
	var recs []store.Record
	from := 0 // the first generation of s to add
	if grown && old.Gens >= 1 && len(s.Gens) >= old.Gens && len(s.Gens[old.Gens-1].Records) >= old.Last {
		recs = s.Gens[old.Gens-1].Records[old.Last:]
		from = old.Gens
	}
	gens := make([]store.ImportedGeneration, 0, len(s.Gens)-from)
	n := len(recs)
	for _, g := range s.Gens[from:] {
		if g.SourceGen != nil {
			rel := *g.SourceGen - from
			g.SourceGen = &rel
		}
		gens = append(gens, g)
		n += len(g.Records)
	}
	// Even with no record (the new lines were bookkeeping) the import
	// record takes the new size: the next import starts after them.
	ok, err := db.GrowImport(ctx, prev, k, recs, gens)
	return n, ok, err
}

// newSession is a parsed file as a store import.
func newSession(s *Session, src Source, fallbackWorkDir string, k *store.KimiImport) store.ImportedSession {
	title := s.Title
	if src.Description != "" {
		title = src.Description
	}
	if title == "" {
		title = "imported " + src.Path
	}
	wd := s.WorkDir
	if wd == "" {
		wd = fallbackWorkDir
	}
	created := s.Created
	if created.IsZero() {
		created = src.ModTime
	}
	return store.ImportedSession{
		Session:     store.NewSession{Title: title, WorkDir: wd, Model: s.Model, CreatedAt: created},
		Generations: s.Gens,
		Kimi:        k,
		Origin:      src.Origin,
	}
}

func unknownLines(s *Session) int {
	n := 0
	for _, c := range s.Unknown {
		n += c
	}
	return n
}

// readRegular reads a session file through regfile: a regular file only,
// each read bounded in time and ended by ctx.
func readRegular(ctx context.Context, p string) ([]byte, error) {
	f, err := regfile.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil {
		buf.Grow(int(fi.Size()) + 1)
	}
	_, err = buf.ReadFrom(regfile.NewReader(ctx, f, p))
	return buf.Bytes(), err
}
