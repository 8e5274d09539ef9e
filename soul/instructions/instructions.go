package instructions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-agent/rewind/internal/regfile"
)

// FileName is the instructions file looked for in each directory.
const FileName = "AGENTS.md"

// MaxFileBytes bounds what one file contributes to the system prompt.
const MaxFileBytes = 32 << 10

// File is one AGENTS.md that was read.
type File struct {
	Path      string // absolute
	Text      string // at most MaxFileBytes
	Truncated bool
	Global    bool // from $REWIND_HOME, not from the project
}

// Load reads $home/AGENTS.md (when home is not "") and the AGENTS.md of the
// repository root (the nearest parent of workDir holding .git) and of every
// directory from there down to workDir, in that order: general first, most
// specific last. Without a repository only workDir's own file counts, so a
// stray ~/AGENTS.md does not leak into every project. Missing files are
// skipped; unreadable ones are an error naming the file.
func Load(home, workDir string) ([]File, error) {
	var paths []string
	var global string
	if home != "" {
		global = filepath.Join(home, FileName)
		paths = append(paths, global)
	}
	for _, dir := range projectDirs(workDir) {
		paths = append(paths, filepath.Join(dir, FileName))
	}
	var out []File
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		f, err := read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("read %s: %w", p, err)
		}
		f.Global = p == global
		out = append(out, f)
	}
	return out, nil
}

// projectDirs are the directories from the repository root down to workDir
// (just workDir when it is in no repository).
func projectDirs(workDir string) []string {
	if workDir == "" {
		return nil
	}
	dir := filepath.Clean(workDir)
	chain := []string{dir}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			// Root first.
			for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
				chain[i], chain[j] = chain[j], chain[i]
			}
			return chain
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{dir}
		}
		d = parent
		chain = append(chain, d)
	}
}

// read reads one AGENTS.md through regfile: a FIFO, device or kernel file
// there is refused rather than read (which could block every prompt), and
// a read that stalls gives up after regfile.ReadTimeout. A directory of
// that name is no file.
func read(path string) (File, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return File{}, fs.ErrNotExist
	}
	fh, err := regfile.Open(path)
	if err != nil {
		return File{}, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(regfile.NewReader(context.Background(), fh, path), MaxFileBytes+1))
	if err != nil {
		return File{}, err
	}
	n := len(data)
	return File{Path: path, Text: string(data[:min(n, MaxFileBytes)]), Truncated: n > MaxFileBytes}, nil
}

// Format is the system prompt section holding the files ("" for none).
func Format(files []File) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n# Project instructions\n\n")
	b.WriteString("The user keeps instructions for agents in AGENTS.md files; here they are, general first. Follow them; where they disagree, the later (more specific) file wins, and the user's own messages win over all of them.\n")
	for _, f := range files {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", f.Path, strings.TrimSpace(f.Text))
		if f.Truncated {
			fmt.Fprintf(&b, "\n(The file is longer; only its first %d KB are shown. Read it with ReadFile if you need the rest.)\n", MaxFileBytes>>10)
		}
	}
	return b.String()
}
