package kimi

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/internal/regfile"
)

// A kimi-cli share dir (~/.kimi, or $KIMI_SHARE_DIR) holds kimi.json and
// sessions/<work dir key>/<session uuid>/context.jsonl. kimi.json lists the
// work dirs; a work dir's key is the md5 (hex) of its path exactly as
// recorded, prefixed with "<kaos>_" when its kaos is not "local".

// MetadataFile is kimi-cli's metadata file in the share dir.
const MetadataFile = "kimi.json"

// SessionsDir is the share dir's directory of sessions.
const SessionsDir = "sessions"

// localKaos is the kaos (execution environment) of a work dir on this
// machine; other kaos names prefix the key.
const localKaos = "local"

// Metadata is the part of kimi.json the import reads.
type Metadata struct {
	WorkDirs []WorkDirMeta `json:"work_dirs"`
}

// WorkDirMeta is one work dir of kimi.json.
type WorkDirMeta struct {
	Path string `json:"path"`
	Kaos string `json:"kaos"`
}

// Key is the name of the work dir's directory under sessions/.
func (w WorkDirMeta) Key() string {
	sum := md5.Sum([]byte(w.Path))
	h := hex.EncodeToString(sum[:])
	if w.Kaos == "" || w.Kaos == localKaos {
		return h
	}
	return w.Kaos + "_" + h
}

// Source is one kimi-cli session to import.
type Source struct {
	// ID identifies the session across imports: the session uuid (its
	// directory name), or "file:" and the absolute path of a lone file.
	ID    string
	Path  string   // the session dir, or the lone file
	Files []string // context files, oldest first: context_1.jsonl…, context.jsonl
	// WorkDir is the session's work dir from kimi.json ("" when unknown).
	WorkDir string
	// Title is the title kimi-cli recorded for the session, if any.
	Title   string
	ModTime time.Time // of the current context file
	empty   bool      // every context file is empty: nothing to import
}

// Discovery is what a path holds.
type Discovery struct {
	Sources []Source
	// Unmapped counts the sessions (empty ones aside) whose work dir is
	// unknown, per sessions/ key that kimi.json does not name (all of them
	// when there is no kimi.json; key "" for a session outside a share
	// dir).
	Unmapped map[string]int
	// Metadata is the kimi.json used ("" when none).
	Metadata string
}

// Discover finds the sessions under path: a context.jsonl (or any context
// file), a session dir, a share dir (with kimi.json and sessions/), or a
// share dir's sessions/ (kimi.json is then read from its parent).
func Discover(path string) (Discovery, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Discovery{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return Discovery{}, err
	}
	d := Discovery{Unmapped: map[string]int{}}
	switch {
	case !fi.IsDir() && filepath.Base(abs) == MetadataFile:
		return discoverShare(filepath.Dir(abs), filepath.Join(filepath.Dir(abs), SessionsDir), d) // kimi.json: its share dir
	case !fi.IsDir() && (filepath.Base(abs) == CurrentFile || filepath.Base(abs) == historyFile) && inShare(filepath.Dir(abs)):
		return discoverSession(filepath.Dir(abs), d) // a share dir's session, however it is named
	case !fi.IsDir():
		src := Source{ID: "file:" + abs, Path: abs, Files: []string{abs}, ModTime: fi.ModTime()}
		if fi.Size() > 0 {
			d.Unmapped[""]++
		}
		d.Sources = []Source{src}
		return d, nil
	case hasCurrentFile(abs):
		return discoverSession(abs, d)
	case exists(filepath.Join(abs, MetadataFile)) || isDir(filepath.Join(abs, SessionsDir)):
		return discoverShare(abs, filepath.Join(abs, SessionsDir), d)
	case hasRotated(abs):
		_, err := SessionFiles(abs) // a session dir without its current file
		return Discovery{}, err
	default:
		// sessions/ itself: kimi.json, if any, is next to it.
		return discoverShare(filepath.Dir(abs), abs, d)
	}
}

// inShare: dir is a session dir of a share dir (sessions/<key>/<uuid>).
func inShare(dir string) bool {
	return filepath.Base(filepath.Dir(filepath.Dir(dir))) == SessionsDir
}

// discoverSession describes one session dir; inside a share dir, kimi.json
// names its work dir.
func discoverSession(dir string, d Discovery) (Discovery, error) {
	src, err := sessionSource(dir)
	if err != nil {
		return Discovery{}, err
	}
	key := ""
	if inShare(dir) {
		meta, metaPath, err := readMetadata(filepath.Dir(filepath.Dir(filepath.Dir(dir))))
		if err != nil {
			return Discovery{}, err
		}
		d.Metadata = metaPath
		key = filepath.Base(filepath.Dir(dir))
		src.WorkDir = workDirs(meta)[key]
	}
	if src.WorkDir == "" && !src.empty {
		d.Unmapped[key]++
	}
	d.Sources = []Source{src}
	return d, nil
}

// discoverShare lists sessions/<key>/<uuid>/ with kimi.json from share.
func discoverShare(share, sessions string, d Discovery) (Discovery, error) {
	meta, metaPath, err := readMetadata(share)
	if err != nil {
		return Discovery{}, err
	}
	d.Metadata = metaPath
	dirs := workDirs(meta)
	keys, err := os.ReadDir(sessions)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Discovery{}, fmt.Errorf("%s: no %s, %s or %s/ here: give a context.jsonl, a kimi-cli session dir or the kimi-cli share dir (~/.kimi)",
				share, CurrentFile, MetadataFile, SessionsDir)
		}
		return Discovery{}, err
	}
	for _, k := range keys {
		if !k.IsDir() {
			continue
		}
		sessDirs, err := os.ReadDir(filepath.Join(sessions, k.Name()))
		if err != nil {
			return Discovery{}, err
		}
		for _, s := range sessDirs {
			dir := filepath.Join(sessions, k.Name(), s.Name())
			if !s.IsDir() || !hasCurrentFile(dir) {
				continue
			}
			src, err := sessionSource(dir)
			if err != nil {
				return Discovery{}, err
			}
			if wd, ok := dirs[k.Name()]; ok {
				src.WorkDir = wd
			} else if !src.empty {
				d.Unmapped[k.Name()]++
			}
			d.Sources = append(d.Sources, src)
		}
	}
	if len(d.Sources) == 0 {
		return Discovery{}, fmt.Errorf("%s: no kimi-cli session here (no %s, %s, or session dirs with a %s): give a context.jsonl, a kimi-cli session dir or the kimi-cli share dir (~/.kimi)",
			sessions, CurrentFile, MetadataFile, CurrentFile)
	}
	// Newest first: the import writes them in this order, and search
	// ranks an import's sessions in the order written (store.ImportSessions).
	sort.SliceStable(d.Sources, func(i, j int) bool { return d.Sources[i].ModTime.After(d.Sources[j].ModTime) })
	return d, nil
}

// workDirs maps each sessions/ key of kimi.json to its work dir. Two
// entries whose paths differ only in a trailing slash have different keys
// (md5 of the exact string) but are one directory: both map to the clean
// path, so their sessions meet under one work dir.
func workDirs(m Metadata) map[string]string {
	out := make(map[string]string, len(m.WorkDirs))
	for _, w := range m.WorkDirs {
		if w.Path == "" {
			continue
		}
		p := w.Path
		if w.Kaos == "" || w.Kaos == localKaos {
			p = filepath.Clean(p)
		}
		out[w.Key()] = p
	}
	return out
}

// readMetadata reads dir/kimi.json; a missing file is no error (path "").
func readMetadata(dir string) (Metadata, string, error) {
	p := filepath.Join(dir, MetadataFile)
	data, err := regfile.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Metadata{}, "", nil
	}
	if err != nil {
		return Metadata{}, "", err
	}
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return Metadata{}, "", fmt.Errorf("%s: not kimi-cli metadata: %w", p, err)
	}
	return m, p, nil
}

// sessionSource describes one session dir.
func sessionSource(dir string) (Source, error) {
	files, err := SessionFiles(dir)
	if err != nil {
		return Source{}, err
	}
	src := Source{ID: filepath.Base(dir), Path: dir, Files: files, Title: recordedTitle(dir), empty: true}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			src.ModTime = fi.ModTime() // the last: the current file's
			src.empty = src.empty && fi.Size() == 0
		}
	}
	return src, nil
}

// recordedTitle is the "title" of the session's state or metadata file
// (kimi-cli versions name it differently), or "".
func recordedTitle(dir string) string {
	for _, name := range []string{"state.json", "metadata.json", "session.json"} {
		data, err := regfile.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var v struct {
			Title string `json:"title"`
		}
		if json.Unmarshal(data, &v) == nil {
			if t := strings.Join(strings.Fields(v.Title), " "); t != "" {
				return cut(t, TitleRunes)
			}
		}
	}
	return ""
}

func hasRotated(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if rotatedRE.MatchString(e.Name()) {
			return true
		}
	}
	return false
}

func hasCurrentFile(dir string) bool { _, ok := currentFileIn(dir); return ok }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }
