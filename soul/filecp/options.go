package filecp

import (
	"strings"
	"time"
)

// DefaultMaxFileSize is the size cap above which a file is not snapshotted.
const DefaultMaxFileSize = 5 << 20

// DefaultRacyWindow: an index entry whose mtime lies within this window of
// the moment it was recorded is not trusted by the next scan (its content
// is hashed again), because a write in the same timestamp tick may leave
// size and mtime unchanged ("racy git").
const DefaultRacyWindow = time.Second

// DefaultSkipDirs are directory names skipped wherever they appear: version
// control metadata and common dependency/build output. Skipped directories
// are listed in scan results (one entry per directory, not per file).
var DefaultSkipDirs = []string{
	".git", ".hg", ".svn", ".jj",
	"node_modules", "bower_components", "vendor/bundle",
	"target", "dist", "build", "out", "_build",
	".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox",
	".gradle", ".next", ".nuxt", ".cache", ".terraform", "coverage",
}

// Options configure scanning. The zero value means the defaults.
type Options struct {
	// MaxFileSize: files larger than this are not snapshotted (listed as
	// skipped). <= 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// SkipDirs: directory base names (or slash-separated relative paths,
	// e.g. "vendor/bundle") never descended into. nil means DefaultSkipDirs;
	// an empty non-nil slice skips nothing but VCS metadata. ".git" is
	// always skipped.
	SkipDirs []string
	// NoGitignore disables .gitignore handling.
	NoGitignore bool
	// RacyWindow: see DefaultRacyWindow. <= 0 means the default.
	RacyWindow time.Duration
}

func (o Options) maxFileSize() int64 {
	if o.MaxFileSize <= 0 {
		return DefaultMaxFileSize
	}
	return o.MaxFileSize
}

func (o Options) racyWindow() time.Duration {
	if o.RacyWindow <= 0 {
		return DefaultRacyWindow
	}
	return o.RacyWindow
}

func (o Options) skipDirs() (names, paths map[string]bool) {
	list := o.SkipDirs
	if list == nil {
		list = DefaultSkipDirs
	}
	names = map[string]bool{".git": true}
	paths = map[string]bool{}
	for _, d := range list {
		if d == "" {
			continue
		}
		if strings.Contains(d, "/") {
			paths[d] = true
		} else {
			names[d] = true
		}
	}
	return names, paths
}
