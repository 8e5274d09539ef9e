package kimi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/store"
)

// A new session whose context files hold more than StreamBytes
// (BulkOptions; 0: defaultStreamBytes) is not parsed whole by the reader:
// it is hashed, then parsed and written half a batch of records at a time
// (store.ImportStream), so an import's memory stays flat in the size of
// its largest session (a parsed record costs about ten times its line).
const defaultStreamBytes = 8 << 20

// hashSession reads a session's files once, hashing them without keeping
// them, and counts their lines (at most one record each).
func hashSession(ctx context.Context, src Source) ([]fileSig, int, error) {
	sigs := make([]fileSig, len(src.Files))
	lines := 0
	buf := make([]byte, 256<<10)
	for i, p := range src.Files {
		f, err := regfile.Open(p)
		if err != nil {
			return nil, 0, err
		}
		h := sha256.New()
		r := regfile.NewReader(ctx, f, p)
		var size int64
		for {
			n, err := r.Read(buf)
			h.Write(buf[:n])
			size += int64(n)
			lines += bytes.Count(buf[:n], []byte{'\n'})
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return nil, 0, err
			}
		}
		f.Close()
		lines++ // a last line with no newline
		sigs[i] = fileSig{Name: filepath.Base(p), Size: size, SHA256: hex.EncodeToString(h.Sum(nil))}
	}
	return sigs, lines, nil
}

// sessionStream is a new session read a piece at a time: each context
// file a generation, as newSession makes them.
type sessionStream struct {
	src   Source
	o     ParseOptions
	sigs  []fileSig // Records counted as they are parsed
	k     *store.KimiImport
	fi    int // the file being read
	f     *os.File
	p     *fileParser
	total int // records given
	piece int // records per piece
}

// first parses the session's first piece and makes its import; ok is
// false when the session has no record.
func (st *sessionStream) first(ctx context.Context, fallbackWorkDir string, bound int) (store.ImportedSession, bool, error) {
	var gens []store.ImportedGeneration
	for {
		piece, done, err := st.Next(ctx)
		if err != nil {
			return store.ImportedSession{}, false, err
		}
		if len(gens) == 0 {
			gens = append(gens, store.ImportedGeneration{Cause: store.CauseImport})
		}
		last := &gens[len(gens)-1]
		last.Records, last.Decoded = append(last.Records, piece.Records...), append(last.Decoded, piece.Decoded...)
		gens = append(gens, piece.Gens...)
		if st.total > 0 || done {
			if st.total == 0 {
				return store.ImportedSession{}, false, nil
			}
			files := make([]File, len(gens))
			for i, g := range gens {
				files[i] = File{Records: g.Records}
			}
			is, _ := newSession(st.src, files, fallbackWorkDir)
			is.Generations = gens
			is.Kimi = st.k
			if !done {
				is.Stream, is.Bound = st, bound
			}
			return is, true, nil
		}
	}
}

// Next parses up to st.piece more records: those of the file being
// read go on its generation, a file begun is a new generation.
func (st *sessionStream) Next(ctx context.Context) (store.ImportPiece, bool, error) {
	var piece store.ImportPiece
	cur := File{} // the records of the generation being added to
	n := 0
	for n < st.piece {
		if st.p == nil {
			f, err := regfile.Open(st.src.Files[st.fi])
			if err != nil {
				return piece, false, fmt.Errorf("import: %w", err)
			}
			st.f = f
			st.p = newFileParser(regfile.NewReader(ctx, f, st.src.Files[st.fi]), st.src.Files[st.fi], st.o)
			if st.fi > 0 {
				st.flushInto(&piece, &cur)
				piece.Gens = append(piece.Gens, store.ImportedGeneration{Cause: store.CauseImport})
			}
		}
		before := len(cur.Records)
		eof, err := st.p.next(&cur, st.piece-n)
		if err != nil {
			st.close()
			return piece, false, fmt.Errorf("import: %w", err)
		}
		got := len(cur.Records) - before
		n += got
		st.sigs[st.fi].Records += got
		if eof {
			st.f.Close()
			st.f, st.p = nil, nil
			if st.fi++; st.fi == len(st.src.Files) {
				st.flushInto(&piece, &cur)
				st.total += n
				sigJSON, _ := json.Marshal(st.sigs)
				st.k.Files = string(sigJSON)
				return piece, true, nil
			}
		}
	}
	st.flushInto(&piece, &cur)
	st.total += n
	return piece, false, nil
}

// flushInto puts the records parsed into the piece: on the last
// generation begun in it, else on the one before.
func (st *sessionStream) flushInto(piece *store.ImportPiece, cur *File) {
	for i := range cur.Records {
		cur.Records[i].CreatedAt = st.src.ModTime
	}
	if len(piece.Gens) == 0 {
		piece.Records, piece.Decoded = append(piece.Records, cur.Records...), append(piece.Decoded, cur.Decoded...)
	} else {
		g := &piece.Gens[len(piece.Gens)-1]
		g.Records, g.Decoded = append(g.Records, cur.Records...), append(g.Decoded, cur.Decoded...)
	}
	*cur = File{}
}

func (st *sessionStream) close() {
	if st.f != nil {
		st.f.Close()
		st.f, st.p = nil, nil
	}
}
