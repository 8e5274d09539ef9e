package kimi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/store"
)

// BulkOptions tunes ImportAll.
type BulkOptions struct {
	// WorkDir is the work dir of sessions whose own is unknown.
	WorkDir string
	// SkipInvalid skips malformed lines (with a warning) instead of stopping.
	SkipInvalid bool
	// Warn receives warnings (torn final lines, skipped lines).
	Warn func(string)
	// Progress is called after each session with the bytes of context
	// files done so far and in all.
	Progress func(done, total int64)
	// BatchRecords is how many records go in one store.ImportSessions call
	// (sessions are never split between calls); 0 means 20,000. The store
	// commits a call in transactions of at most 20,000 records or 500 ms,
	// a larger session hidden until its last one. The reader parses up to
	// two batches ahead of the writer.
	BatchRecords int
	// MaxLine caps one line of a context file (ParseOptions.MaxLine).
	MaxLine int
	// StreamBytes: a new session whose files hold more is parsed as it is
	// written, half a batch at a time, hidden until whole (0: 8 MiB).
	StreamBytes int64
}

// BulkResult says what ImportAll did.
type BulkResult struct {
	Imported, Updated, Unchanged int      // sessions
	Empty                        int      // sessions with no record (skipped)
	Records                      int      // records written
	Parsed                       int      // records parsed (of a grown file, its new lines only)
	Bytes                        int64    // context file bytes of the sessions imported or updated
	SessionIDs                   []string // rewind sessions imported or updated, in order
}

// fileSig is one context file as imported, for telling later runs what
// changed: its size and sha256, and how many records it gave.
type fileSig struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"`
	Records int    `json:"records"`
	// PrefixOf is set only while comparing: the sha256 of the new file's
	// first Size bytes of the old signature.
	prefix string
}

// ImportAll imports every session of d in one process through
// store.BulkImport: parsed one session at a time ahead of the writer,
// written in batches of about BatchRecords records (store.ImportSessions
// keeps each transaction short, so other writers wait for the lock a
// fraction of a second). Each session is written whole or
// not at all. A session imported before (same kimi uuid) is
// skipped when its files are unchanged; when its context file only grew,
// the new records become a generation on top of the imported ones; when it
// changed otherwise, the current file becomes a new generation.
//
// A malformed line stops the import with a *LineError (unless SkipInvalid)
// before its session is written; sessions of earlier transactions stay
// imported, whole, and a re-run skips them.
func ImportAll(ctx context.Context, db *store.DB, d Discovery, o BulkOptions) (BulkResult, error) {
	if o.BatchRecords <= 0 {
		o.BatchRecords = store.DefaultImportBatch
	}
	if o.StreamBytes <= 0 {
		o.StreamBytes = defaultStreamBytes
	}
	var res BulkResult
	var total int64
	for _, s := range d.Sources {
		for _, f := range s.Files {
			if fi, err := os.Stat(f); err == nil {
				total += fi.Size()
			}
		}
	}
	var scanned int64 // bytes of the sessions read so far (Progress)
	popts := ParseOptions{SkipTorn: true, SkipInvalid: o.SkipInvalid, MaxLine: o.MaxLine, Warn: func(e *LineError) {
		if o.Warn != nil {
			o.Warn(e.Error())
		}
	}}
	read := func(ctx context.Context, i int) (parsedSession, int, error) {
		p := readAndParse(ctx, db, d.Sources[i], popts, o.StreamBytes)
		return p, p.records(), p.err
	}
	take := func(ctx context.Context, p parsedSession, batch *store.ImportBatch) error {
		src := p.src
		res.Parsed += p.parsed
		var size int64
		for _, s := range p.sigs {
			size += s.Size
		}
		scanned += size
		sigJSON, _ := json.Marshal(p.sigs)
		k := store.KimiImport{KimiSession: src.ID, Source: src.Path, Files: string(sigJSON)}
		switch {
		case p.seen && sameFiles(p.old, p.sigs):
			res.Unchanged++
		case p.seen:
			grown := grewOnly(p.old, p.sigs)
			cur := p.files[len(p.files)-1].Records
			if grown && !p.tail {
				cur = cur[p.old[len(p.old)-1].Records:]
			}
			k.SessionID = p.prev.SessionID
			_, ok, err := db.ExtendImport(ctx, p.prev, k, grown, cur)
			if err != nil {
				return fmt.Errorf("import %s: %w", src.Path, err)
			}
			if !ok { // another import updated it since it was read
				res.Unchanged++
				break
			}
			res.Updated++
			res.Records += len(cur)
			res.Bytes += size
			res.SessionIDs = append(res.SessionIDs, p.prev.SessionID)
		case p.lines > 0:
			if err := importStream(ctx, p, k, o, popts, batch, &res, size); err != nil {
				return err
			}
		default:
			is, n := newSession(src, p.files, o.WorkDir)
			if n == 0 {
				res.Empty++ // kimi-cli leaves an empty context.jsonl for a session never used
				break
			}
			is.Kimi = &k
			err := batch.Add(ctx, is, n, func(s store.Session) {
				if s.ID == "" { // another import running at once took it first
					res.Unchanged++
					return
				}
				res.SessionIDs = append(res.SessionIDs, s.ID)
				res.Records += n
				res.Bytes += size
				res.Imported++
			})
			if err != nil {
				return err
			}
		}
		if o.Progress != nil {
			o.Progress(scanned, total)
		}
		return nil
	}
	err := store.BulkImport(ctx, db, o.BatchRecords, len(d.Sources), read, take)
	return res, err
}

// importStream imports a new session too large to parse whole, parsing
// it as it is written: alone (the batch before it is written first).
func importStream(ctx context.Context, p parsedSession, k store.KimiImport, o BulkOptions, popts ParseOptions,
	batch *store.ImportBatch, res *BulkResult, size int64) error {
	if err := batch.Flush(ctx); err != nil {
		return err
	}
	st := &sessionStream{src: p.src, o: popts, sigs: p.sigs, k: &k, piece: max(o.BatchRecords/2, 1)}
	defer st.close()
	is, ok, err := st.first(ctx, o.WorkDir, p.lines)
	if err != nil {
		return err
	}
	if !ok {
		res.Empty++
		return nil
	}
	err = batch.Add(ctx, is, p.lines, func(s store.Session) {
		if s.ID == "" {
			res.Unchanged++
			return
		}
		res.SessionIDs = append(res.SessionIDs, s.ID)
		res.Records += st.total
		res.Bytes += size
		res.Imported++
	})
	if err != nil {
		return err
	}
	err = batch.Flush(ctx)
	res.Parsed += st.total
	return err
}

// parsedSession is one source read and parsed, with what the last import
// of it recorded.
type parsedSession struct {
	src   Source
	prev  store.KimiImport
	seen  bool
	old   []fileSig
	sigs  []fileSig
	files []File
	err   error
	// lines, when > 0, says the new session is too large to parse whole:
	// it was only hashed (sigs, Records not counted), and is parsed as it
	// is written (sessionStream), lines its bound of records.
	lines int
	// tail: the current file only grew and files holds only its new
	// records (readSeen); parsed counts the records parsed.
	tail   bool
	parsed int
}

func (p *parsedSession) records() int {
	n := 0
	for _, f := range p.files {
		n += len(f.Records)
	}
	return n
}

func readAndParse(ctx context.Context, db *store.DB, src Source, o ParseOptions, streamBytes int64) parsedSession {
	p := parsedSession{src: src}
	var err error
	if p.prev, p.seen, err = db.LookupKimiImport(ctx, src.ID); err != nil {
		p.err = err
		return p
	}
	if p.seen {
		if err := json.Unmarshal([]byte(p.prev.Files), &p.old); err != nil {
			p.err = fmt.Errorf("import %s: the record of its last import is unreadable: %w", src.Path, err)
			return p
		}
		if len(p.old) > 0 {
			if p.sigs, p.files, p.tail, p.parsed, err = readSeen(ctx, src, p.old, o); err != nil {
				p.err = fmt.Errorf("import: %w", err)
			}
			return p
		}
	}
	if !p.seen && filesSize(src) > streamBytes {
		if p.sigs, p.lines, err = hashSession(ctx, src); err != nil {
			p.err = fmt.Errorf("import: %w", err)
		}
		return p
	}
	if p.sigs, p.files, err = readSession(ctx, src, p.old, o); err != nil {
		p.err = fmt.Errorf("import: %w", err)
	}
	p.parsed = p.records()
	return p
}

func filesSize(src Source) int64 {
	var n int64
	for _, f := range src.Files {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// readSession reads and hashes a session's files and parses them, unless
// they are the files of the last import (old), unchanged: then nothing is
// parsed (a re-run reads and hashes, and warns of nothing twice). old also
// asks for the hash of the current file's old prefix, to tell growth from
// a rewrite.
func readSession(ctx context.Context, src Source, old []fileSig, o ParseOptions) ([]fileSig, []File, error) {
	sigs := make([]fileSig, len(src.Files))
	data := make([][]byte, len(src.Files))
	for i, p := range src.Files {
		var err error
		if data[i], err = readRegular(ctx, p); err != nil {
			return nil, nil, err
		}
		sum := sha256.Sum256(data[i])
		sigs[i] = fileSig{Name: filepath.Base(p), Size: int64(len(data[i])), SHA256: hex.EncodeToString(sum[:])}
		if i == len(src.Files)-1 && len(old) > 0 {
			if n := old[len(old)-1].Size; n <= int64(len(data[i])) {
				pre := sha256.Sum256(data[i][:n])
				sigs[i].prefix = hex.EncodeToString(pre[:])
			}
		}
	}
	if sameFiles(old, sigs) {
		for i := range sigs {
			sigs[i].Records = old[i].Records
		}
		return sigs, nil, nil
	}
	files := make([]File, len(src.Files))
	for i, p := range src.Files {
		f, err := ParseWith(bytes.NewReader(data[i]), p, o)
		if err != nil {
			return nil, nil, err
		}
		data[i] = nil
		sigs[i].Records = len(f.Records)
		files[i] = f
	}
	return sigs, files, nil
}

// readRegular reads a context file through regfile: only a regular file,
// each read bounded in time and ended by ctx (a SIGTERM stops an import
// whose read stalls, rather than waiting on it).
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

func sameFiles(a, b []fileSig) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Size != b[i].Size || a[i].SHA256 != b[i].SHA256 {
			return false
		}
	}
	return true
}

// grewOnly: the same rotated files, and the current file starts with what
// was imported of it.
func grewOnly(old, cur []fileSig) bool {
	if len(old) != len(cur) || !sameFiles(old[:len(old)-1], cur[:len(cur)-1]) {
		return false
	}
	o, c := old[len(old)-1], cur[len(cur)-1]
	return o.Name == c.Name && c.prefix == o.SHA256 && c.Records >= o.Records
}

// newSession turns a parsed session into a store import: the rotated files
// as archived generations, the current file as the current one.
func newSession(src Source, files []File, fallbackWorkDir string) (store.ImportedSession, int) {
	n := 0
	gens := make([]store.ImportedGeneration, len(files))
	for i, f := range files {
		for j := range f.Records {
			f.Records[j].CreatedAt = src.ModTime
		}
		gens[i] = store.ImportedGeneration{Records: f.Records, Decoded: f.Decoded, Cause: store.CauseImport}
		n += len(f.Records)
	}
	if n == 0 {
		return store.ImportedSession{}, 0
	}
	title := src.Title
	if title == "" {
		title = Title(files)
	}
	if title == "" {
		title = "imported " + filepath.Base(src.Path)
	}
	wd := src.WorkDir
	if wd == "" {
		wd = fallbackWorkDir
	}
	return store.ImportedSession{Session: store.NewSession{Title: title, WorkDir: wd, CreatedAt: src.ModTime}, Generations: gens}, n
}
