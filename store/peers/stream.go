package peers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/store"
)

// A new session file of more than StreamBytes (Options; 0:
// defaultStreamBytes) is not parsed whole by the reader: it is hashed,
// then parsed and written half a batch of records at a time
// (store.ImportStream), as kimi-cli's large sessions are, so an import's
// memory stays flat in the size of its largest file.
const defaultStreamBytes = 8 << 20

// fileHash is a file as the reader hashed it before streaming it: the
// bytes read, their sha256 up to the last newline (whole lines) and in
// all (the last line had no newline but was whole), and a bound of the
// records they make.
type fileHash struct {
	size         int64
	lines, whole string
	bound        int
	linesEnd     int64 // the end of the last whole line
}

// hashFile reads a file once, hashing it without keeping it. Records are
// bounded by the lines (a line makes at most three: a compaction, a
// checkpoint and a prompt) and Claude Code's tool results (a line may
// hold several).
func hashFile(ctx context.Context, path string) (fileHash, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return fileHash{}, err
	}
	defer f.Close()
	h := sha256.New()
	r := regfile.NewReader(ctx, f, path)
	buf := make([]byte, 256<<10)
	var fh fileHash
	var tail []byte // after the last newline
	lines, results := 0, 0
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		fh.size += int64(n)
		lines += bytes.Count(chunk, []byte{'\n'})
		results += bytes.Count(chunk, []byte(`"tool_result"`))
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			h.Write(tail)
			h.Write(chunk[:i+1])
			tail = append(tail[:0], chunk[i+1:]...)
			fh.linesEnd = fh.size - int64(n-i-1)
		} else {
			tail = append(tail, chunk...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fileHash{}, err
		}
	}
	fh.lines = hex.EncodeToString(h.Sum(nil))
	h.Write(tail)
	fh.whole = hex.EncodeToString(h.Sum(nil))
	fh.bound = 3*(lines+1) + results
	return fh, nil
}

// errBranchGone: a streamed Claude Code session went back to a point
// whose records were written already (Claude Code's rewind); the file is
// read whole instead.
var errBranchGone = errors.New("the session goes back to a point already written")

// fileStream is a new session file read a piece at a time: the bytes the
// reader hashed, parsed as they come, each piece the records parsed since
// the last one.
type fileStream struct {
	src   Source
	fh    fileHash
	p     *Parser
	f     *os.File
	r     io.Reader
	buf   []byte
	rest  []byte // read, not yet parsed
	eof   bool
	piece int // records per piece
	k     *store.KimiImport
	total int // records given
	// peak is the most records the parser held at once.
	peak int
}

func newFileStream(ctx context.Context, src Source, fh fileHash, piece int, warn func(string)) (*fileStream, error) {
	p, err := NewParser(src.Origin, src.Path, warn)
	if err != nil {
		return nil, err
	}
	f, err := regfile.Open(src.Path)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", src.Path, err)
	}
	// Only the bytes hashed: what the file gained since is the next
	// import's.
	r := io.LimitReader(regfile.NewReader(ctx, f, src.Path), fh.size)
	return &fileStream{src: src, fh: fh, p: p, f: f, r: r, buf: make([]byte, 64<<10), piece: max(piece, 1)}, nil
}

// Next parses up to a piece of records (a line more may overrun it by
// the records of one line).
func (st *fileStream) Next(ctx context.Context) (store.ImportPiece, bool, error) {
	b := st.p.b
	for b.held() < st.piece+1 && !st.eof {
		if len(st.rest) == 0 {
			n, err := st.r.Read(st.buf)
			st.rest = st.buf[:n]
			if err == io.EOF {
				st.eof = n == 0
			} else if err != nil {
				return store.ImportPiece{}, false, fmt.Errorf("read %s: %w", st.src.Path, err)
			}
			continue
		}
		// A line at a time, so a piece holds a line's records more at most.
		i := bytes.IndexByte(st.rest, '\n') + 1
		if i == 0 {
			i = len(st.rest)
		}
		st.p.Feed(st.rest[:i])
		st.rest = st.rest[i:]
		st.peak = max(st.peak, b.held())
		if b.lost {
			return store.ImportPiece{}, false, errBranchGone
		}
	}
	if !st.eof {
		piece := b.take(false)
		st.total += len(piece.Records)
		for _, g := range piece.Gens {
			st.total += len(g.Records)
		}
		return piece, false, nil
	}
	st.p.Close()
	st.peak = max(st.peak, b.held())
	if b.lost {
		return store.ImportPiece{}, false, errBranchGone
	}
	piece := b.take(true)
	st.total += len(piece.Records)
	for _, g := range piece.Gens {
		st.total += len(g.Records)
	}
	st.close()
	if st.k != nil {
		stJSON, _ := json.Marshal(st.state())
		st.k.Files, st.k.Records = string(stJSON), st.total
	}
	return piece, true, nil
}

// state is the import record of the file streamed, once it is done.
func (st *fileStream) state() importState {
	s, b := st.p.b.s, st.p.b
	sum := st.fh.lines
	if s.Consumed > st.fh.linesEnd {
		sum = st.fh.whole // the last line, without a newline, was whole
	}
	state := importState{Size: s.Consumed, SHA256: sum, Gens: len(s.Gens), Sidechains: len(s.Sidechains)}
	if len(s.Gens) > 0 {
		state.Last = b.count(len(s.Gens) - 1)
	}
	return state
}

func (st *fileStream) close() {
	if st.f != nil {
		st.f.Close()
		st.f = nil
	}
}
