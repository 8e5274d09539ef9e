// Package ignore is the .gitignore matcher shared by the file checkpoints'
// work-dir scan (soul/filecp) and the Glob and Grep tools (soul/tools), so
// the model searches exactly the files rewind tracks. It reads the
// .gitignore of each directory as the walk enters it; nested files apply
// below their directory and override shallower ones, "!" re-includes.
package ignore

import (
	"os"
	"path/filepath"
	"strings"

	gitignore "github.com/sabhiram/go-gitignore"
)

// Layers is the stack of .gitignore files from the walk's root down to the
// current directory. The zero value ignores nothing. It is never modified
// in place, so a walk can keep one per directory.
type Layers []layer

type layer struct {
	base string // relative dir of the .gitignore ("" for the root)
	gi   *gitignore.GitIgnore
}

// Enter returns the layers inside directory dir (an absolute or
// walk-relative OS path) at relative path rel (forward slashes, "" for the
// root): l plus dir's own .gitignore when it has a readable one.
func (l Layers) Enter(dir, rel string) Layers {
	name := filepath.Join(dir, ".gitignore")
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return l
	}
	gi, err := gitignore.CompileIgnoreFile(name)
	if err != nil {
		return l
	}
	return append(l[:len(l):len(l)], layer{base: rel, gi: gi})
}

// Ignored applies the layers from the root down to the relative path p
// (forward slashes); a deeper file's match (or negation) overrides a
// shallower one.
func (l Layers) Ignored(p string, isDir bool) bool {
	res := false
	for _, ly := range l {
		q := p
		if ly.base != "" {
			q = strings.TrimPrefix(p, ly.base+"/")
		}
		m, how := ly.gi.MatchesPathHow(q)
		if !m && isDir {
			m, how = ly.gi.MatchesPathHow(q + "/")
		}
		if m {
			res = true
		} else if how != nil {
			res = false // matched, then re-included by a "!" pattern
		}
	}
	return res
}
