package kimi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rewind-agent/rewind/internal/regfile"
)

// A session imported before is read without holding its files: each is
// hashed as it is read, and when the current file only grew, only the
// lines added since the last import are parsed (readSeen). A re-import
// of a long session that grew by a turn parses that turn, not the
// session (it parsed and held every record of it).

// readSeen reads the files of a session imported before (old: their
// signatures then). Unchanged files are not parsed. When the current file
// only grew, tail is true and the last File holds only the records its
// new lines give (the files before it are empty). Otherwise every file is
// parsed whole (readSession). parsed counts the records parsed.
func readSeen(ctx context.Context, src Source, old []fileSig, o ParseOptions) (sigs []fileSig, files []File, tail bool, parsed int, err error) {
	sigs, cur, err := hashSeen(ctx, src, old[len(old)-1].Size)
	if cur.f != nil {
		defer cur.f.Close()
	}
	if err != nil {
		return nil, nil, false, 0, err
	}
	if sameFiles(old, sigs) {
		for i := range sigs {
			sigs[i].Records = old[i].Records
		}
		return sigs, nil, false, 0, nil
	}
	last := len(sigs) - 1
	if len(old) == len(sigs) && sameFiles(old[:last], sigs[:last]) && old[last].Name == sigs[last].Name && sigs[last].prefix == old[last].SHA256 {
		f, n, err := cur.parseNew(ctx, src.Files[last], old[last].Size, o)
		if err != nil {
			return nil, nil, false, 0, err
		}
		for i := range sigs[:last] {
			sigs[i].Records = old[i].Records
		}
		sigs[last].Records = old[last].Records - n.again + len(f.Records)
		if grewOnly(old, sigs) {
			f.Records, f.Decoded = f.Records[n.again:], f.Decoded[n.again:]
			files = make([]File, len(sigs))
			files[last] = f
			return sigs, files, true, n.parsed, nil
		}
	}
	sigs, files, err = readSession(ctx, src, old, o)
	n := 0
	for _, f := range files {
		n += len(f.Records)
	}
	return sigs, files, false, n, err
}

// currentFile is the current context file of a session imported before,
// as hashSeen read it: still open, so its new lines are read from the
// file that was hashed even if kimi-cli rotates it meanwhile.
type currentFile struct {
	f    *os.File
	size int64 // the bytes hashed
	// lineStart is where the line holding the last import's last byte
	// begins (the old size when that ended a line), lines the lines
	// before it.
	lineStart int64
	lines     int
}

// hashSeen reads and hashes each of src's files without keeping them; of
// the current one also its first oldSize bytes (fileSig.prefix, when it
// holds that many) and where their last line begins.
func hashSeen(ctx context.Context, src Source, oldSize int64) ([]fileSig, currentFile, error) {
	sigs := make([]fileSig, len(src.Files))
	var cur currentFile
	buf := make([]byte, 256<<10)
	for i, p := range src.Files {
		f, err := regfile.Open(p)
		if err != nil {
			return nil, cur, err
		}
		last := i == len(src.Files)-1
		h, pre := sha256.New(), sha256.New()
		r := regfile.NewReader(ctx, f, p)
		var size int64
		for {
			n, err := r.Read(buf)
			h.Write(buf[:n])
			if last && size < oldSize {
				b := buf[:min(int64(n), oldSize-size)]
				pre.Write(b)
				if j := bytes.LastIndexByte(b, '\n'); j >= 0 {
					cur.lineStart = size + int64(j) + 1
					cur.lines += bytes.Count(b, []byte{'\n'})
				}
			}
			size += int64(n)
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return nil, cur, err
			}
		}
		sigs[i] = fileSig{Name: filepath.Base(p), Size: size, SHA256: hex.EncodeToString(h.Sum(nil))}
		if !last {
			f.Close()
			continue
		}
		cur.f, cur.size = f, size
		if size >= oldSize {
			sigs[i].prefix = hex.EncodeToString(pre.Sum(nil))
		}
	}
	return sigs, cur, nil
}

// newLines counts what parseNew parsed: again is how many of its first
// records the last import took already (its last line, whole without a
// newline), parsed all the records it parsed.
type newLines struct{ again, parsed int }

// parseNew parses the current file from the line holding the last
// import's last byte (oldSize) to the size hashed: the records of that
// line on, as parsing the whole file would number and cut them. A last
// line the last import read without its newline is parsed as it read it
// too, to tell whether it gave a record then (again).
func (c currentFile) parseNew(ctx context.Context, name string, oldSize int64, o ParseOptions) (File, newLines, error) {
	var n newLines
	parse := func(end int64, o ParseOptions) (File, error) {
		if _, err := c.f.Seek(c.lineStart, io.SeekStart); err != nil {
			return File{}, fmt.Errorf("import: %w", err)
		}
		p := newFileParser(regfile.NewReader(ctx, io.LimitReader(c.f, end-c.lineStart), name), name, o)
		p.n = c.lines
		f := File{Name: name}
		if _, err := p.next(&f, 0); err != nil {
			return File{}, err
		}
		n.parsed += len(f.Records)
		return f, nil
	}
	if c.lineStart < oldSize {
		// as the last import met it: a final line, torn or not, and
		// warned of then
		o := o
		o.SkipTorn, o.Warn = true, nil
		was, err := parse(oldSize, o)
		if err != nil {
			return File{}, n, err
		}
		n.again = len(was.Records)
	}
	f, err := parse(c.size, o)
	return f, n, err
}
