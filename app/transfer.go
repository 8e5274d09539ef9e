package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/internal/words"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/instructions"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/kimi"
	"github.com/rewind-agent/rewind/store/peers"
)

// Export writes a generation of a session (the current one when gen is nil)
// in kimi-cli's context.jsonl format to stdout, or to the file out.
//
// An existing out file is never replaced unless force is set: the export is
// written to a temporary file next to it and then linked into place, which
// fails if the name exists (or renamed over it with force), so the target is
// either the complete export or untouched.
func Export(ctx context.Context, rt *Runtime, id string, gen *int, out string, force bool) error {
	h, err := rt.openSession(ctx, id, false)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	db, s := h.db, h.s
	g, what := -1, ""
	if gen != nil {
		g, what = *gen, fmt.Sprintf("generation %d", *gen)
	}
	if out == "" || out == "-" {
		var buf bytes.Buffer
		if err := exportTo(ctx, db, h.cfg, s, g, &buf); err != nil {
			return storeError(err, s.ID, what)
		}
		_, err := rt.Stdout.Write(buf.Bytes())
		return err
	}
	lines, err := exportFile(ctx, db, h.cfg, s.ID, g, out, force)
	if err != nil {
		return storeError(err, s.ID, what)
	}
	_, err = fmt.Fprintf(rt.Stdout, "exported session %s (%d %s) to %s\n", s.ID, lines, words.Plural(lines, "line", "lines"), out)
	return err
}

// ExportSessionDir writes every generation of a session as a kimi-cli
// session directory (kimi.ExportSession), rewind's secrets redacted, and
// says what it wrote.
func ExportSessionDir(ctx context.Context, rt *Runtime, id, dir string) error {
	h, err := rt.openSession(ctx, id, false)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	redact := h.cfg.Redactor()
	files, err := kimi.ExportSession(ctx, h.db, h.s.ID, dir, systemPromptOf(ctx, h.db, h.cfg, h.s), redact.Writer)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return userErrorf(err, "%v: export into an empty or new directory", err)
		}
		return storeError(err, h.s.ID, "")
	}
	_, err = fmt.Fprintf(rt.Stdout, "exported session %s to %s: %d %s (%s); kimi-cli can resume it from there\n",
		h.s.ID, dir, len(files), words.Plural(len(files), "file", "files"), exportedNames(files))
	return err
}

// exportedNames lists the files' base names, the current one last.
func exportedNames(files []string) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	return strings.Join(names, ", ")
}

// exportTo writes generation gen (-1: the current one) of session s to w
// with rewind's secrets redacted: a session may hold them from an import or
// from a rewind older than redaction.
func exportTo(ctx context.Context, db *store.DB, cfg Config, s store.Session, gen int, w io.Writer) error {
	rw := cfg.Redactor().Writer(w)
	if err := kimi.Export(ctx, db, s.ID, gen, systemPromptOf(ctx, db, cfg, s), rw); err != nil {
		return err
	}
	return rw.Close()
}

// systemPromptOf is the system prompt rewind sends in session s, for an
// export's _system_prompt line: rewind builds it for each request and
// does not store it. It is the session's agent's (the one it resumes
// with); an agent or project instructions that cannot be read are left
// out, as the export is still worth having.
func systemPromptOf(ctx context.Context, db *store.DB, cfg Config, s store.Session) string {
	dir := s.WorkDir
	if dir == "" {
		dir = cfg.WorkDir
	}
	sc := soulConfig(cfg)
	sc.Instructions, _ = instructions.Load(cfg.Home, dir)
	if start, err := cfg.StartAgent(); err == nil {
		sc.Agent, _ = cfg.SessionAgent(ctx, db, s, start)
	}
	return soul.SystemPrompt(sc, dir)
}

// exportFile writes generation gen (-1: the current one) of session id to
// path; the CLI's `export -o`, the workspace's /export and the browser's
// export share it.
func exportFile(ctx context.Context, db *store.DB, cfg Config, id string, gen int, path string, force bool) (lines int, err error) {
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	if err := exportTo(ctx, db, cfg, s, gen, &buf); err != nil {
		return 0, err
	}
	if err := writeNoClobber(path, buf.Bytes(), force); err != nil {
		return 0, err
	}
	return bytes.Count(buf.Bytes(), []byte("\n")), nil
}

// writeNoClobber writes data to path atomically; an existing path is kept
// unless force.
func writeNoClobber(path string, data []byte, force bool) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return userErrorf(nil, "%s is a directory: give a file name to -o", path)
		}
		if !st.Mode().IsRegular() {
			// Renaming over it would replace a pipe or device node that
			// something else may be using; --force means "overwrite a file".
			return userErrorf(nil, "%s is %s, not a regular file: export writes only regular files, even with --force; give another name to -o", path, regfile.Kind(st.Mode()))
		}
		if !force {
			return userErrorf(nil, "%s already exists: choose another name or pass --force to replace it", path)
		}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return userErrorf(err, "cannot write in %s: %v", dir, unwrapPathError(err))
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return userErrorf(err, "cannot write %s: %v", path, unwrapPathError(err))
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return userErrorf(err, "cannot write %s: %v", path, unwrapPathError(err))
	}
	if err := tmp.Close(); err != nil {
		return userErrorf(err, "cannot write %s: %v", path, unwrapPathError(err))
	}
	if force {
		err = os.Rename(tmpName, path)
	} else {
		err = os.Link(tmpName, path)
		if errors.Is(err, fs.ErrExist) {
			return userErrorf(err, "%s already exists: choose another name or pass --force to replace it", path)
		}
	}
	if err != nil {
		return userErrorf(err, "cannot write %s: %v", path, unwrapPathError(err))
	}
	return nil
}

// Import imports agent history: kimi-cli's (a context.jsonl, a session
// dir, the share dir ~/.kimi or its sessions/), codex's (its home
// ~/.codex, its sessions/, a rollout file) or Claude Code's (its home
// ~/.claude, its projects/ or a project's dir, a session file), every
// session in this one process; with no path, every home found (importHomes).
// stdout gets the id of each session imported or updated (for one session
// imported before and unchanged, its id); stderr a progress bar when it is
// a terminal, warnings, and one summary line.
func Import(ctx context.Context, rt *Runtime, path string, skipInvalid bool) error {
	if path == "" {
		return importHomes(ctx, rt, skipInvalid)
	}
	if _, err := os.Stat(path); err != nil {
		return userErrorf(err, "cannot import %s: %v", path, unwrapPathError(err))
	}
	if d, ok, err := peers.Detect(path); err != nil {
		return importError(err, path)
	} else if ok {
		db, cfg, err := rt.openDB(ctx)
		if err != nil {
			return err
		}
		defer db.Close()
		line, err := importPeers(ctx, rt, db, cfg, path, d)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(rt.Stderr, line)
		return err
	}
	d, err := kimi.Discover(path)
	if err != nil {
		return importError(err, path)
	}
	db, cfg, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	line, err := importKimi(ctx, rt, db, cfg, path, d, skipInvalid)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(rt.Stderr, line)
	return err
}

// importRun is what an import (kimi-cli's, codex's or Claude Code's) did.
type importRun struct {
	res     kimi.BulkResult
	err     error
	sources int
	first   string // the import key of a single source
	empty   string // what an empty single source is, in words
}

// importEnded prints the ids of what an import committed, as kimi-cli's
// import prints them, or returns the one line that says why it stopped
// (what it committed before stays, whole).
func importEnded(ctx context.Context, rt *Runtime, db *store.DB, cfg Config, path string, run importRun) error {
	res := run.res
	if ro, ok := readOnlyError(run.err, cfg.DBPath()); ok {
		return ro
	}
	if run.err != nil {
		if err := printLines(rt.Stdout, res.SessionIDs); err != nil {
			return err
		}
		return importFailed(run.err, path, res.Imported+res.Updated, run.sources)
	}
	ids := res.SessionIDs
	if run.sources == 1 && res.Unchanged == 1 {
		if k, ok, err := db.LookupKimiImport(ctx, run.first); err == nil && ok {
			ids = []string{k.SessionID}
		}
	}
	if run.sources == 1 && res.Empty == 1 {
		return userErrorf(nil, "cannot import %s: nothing to import, %s; nothing was imported", path, run.empty)
	}
	return printLines(rt.Stdout, ids)
}

// ImportBatchEnv, when set to a number of records, replaces an import's
// batch (store.DefaultImportBatch) and, in proportion, the size above which
// a kimi-cli session or a codex or Claude Code file is streamed in pieces
// (8 MiB). Tests use it to import
// a session in many pieces without writing megabytes first.
const ImportBatchEnv = "REWIND_IMPORT_BATCH"

// streamBytesPerBatchRecord keeps the default proportion: 8 MiB of files
// streams a session when a batch is 20,000 records.
const streamBytesPerBatchRecord = (8 << 20) / store.DefaultImportBatch

// importBatch reads ImportBatchEnv: 0 when unset (the defaults).
func importBatch(rt *Runtime) (int, error) {
	v := rt.getenv(ImportBatchEnv)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, userErrorf(err, "%s must be a number of records, got %q", ImportBatchEnv, v)
	}
	return n, nil
}

// ImportKillEnv, when set to a number N, makes the process kill itself
// (SIGKILL) right after the Nth transaction of a session imported in
// pieces commits. Tests use it for a kill -9 of an import half-way at a
// known point: a kill from outside races the import, and came once the
// import had already finished when the test was slow to see its first
// piece (load 30, GOMAXPROCS 1).
const ImportKillEnv = "REWIND_IMPORT_KILL_AFTER"

// importKill is store.Options.AfterImportTx for ImportKillEnv (nil when
// unset).
func importKill(rt *Runtime) func() {
	n, err := strconv.Atoi(rt.getenv(ImportKillEnv))
	if err != nil || n < 1 {
		return nil
	}
	return func() {
		if n--; n == 0 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal ends the process
		}
	}
}

// importKimi imports a kimi-cli discovery and returns its summary line.
func importKimi(ctx context.Context, rt *Runtime, db *store.DB, cfg Config, path string, d kimi.Discovery, skipInvalid bool) (string, error) {
	if len(d.Sources) > 1 {
		warnWorkDirs(rt, d, cfg.WorkDir) // before the import, which may be long
	}
	batch, err := importBatch(rt)
	if err != nil {
		return "", err
	}
	bar := newProgressBar(rt.Stderr)
	start := time.Now()
	res, err := kimi.ImportAll(ctx, db, d, kimi.BulkOptions{
		WorkDir:      cfg.WorkDir,
		SkipInvalid:  skipInvalid,
		MaxLine:      cfg.AnswerSizeCap + cfg.ToolArgsSizeCap,
		Warn:         func(w string) { bar.note("warning: " + w) },
		Progress:     bar.update,
		BatchRecords: batch,
		StreamBytes:  int64(batch) * streamBytesPerBatchRecord,
	})
	bar.done()
	first := ""
	if len(d.Sources) == 1 {
		first = d.Sources[0].ID
	}
	if err := importEnded(ctx, rt, db, cfg, path, importRun{res: res, err: err, sources: len(d.Sources), first: first, empty: "the context is empty"}); err != nil {
		return "", err
	}
	line := importSummary(res, time.Since(start), "kimi-cli")
	if len(d.Sources) == 1 && len(d.Unmapped) > 0 && res.Imported > 0 {
		line += fmt.Sprintf("; its work dir is %s: no kimi.json names one (--work-dir chooses another)", cfg.WorkDir)
	}
	return line, nil
}

func printLines(w io.Writer, lines []string) error {
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

// importFailed is the line of an import that stopped: why, what of it was
// imported (done sessions, whole; their ids were printed) and what to do.
func importFailed(err error, path string, done, sources int) error {
	kept, rerun := "nothing was imported", ""
	switch {
	case done == 1:
		kept = "the session imported before it is in, whole (id above), nothing of the rest"
	case done > 1:
		kept = fmt.Sprintf("the %s sessions imported before it are in, whole (ids above), nothing of the rest", words.Thousands(done))
	}
	if done > 0 {
		rerun = "; run the import again to go on (it skips what is in)"
	}
	var le *kimi.LineError
	switch {
	case errors.Is(err, context.Canceled):
		return userErrorf(err, "import interrupted: %s%s", kept, rerun)
	case errors.As(err, &le) && le.Line == 1 && !startsLikeJSON(le.File):
		return userErrorf(err, "%s is not a session file: rewind imports kimi-cli context.jsonl, codex rollout-*.jsonl and Claude Code .jsonl sessions, or the homes and dirs that hold them; %s",
			le.File, kept)
	case errors.As(err, &le):
		return userErrorf(err, "%s:%d: %s; %s: fix the line or pass --skip-invalid (skips bad lines, each reported)%s",
			le.File, le.Line, oneLine(le.Err.Error()), kept, rerun)
	case done > 0 && sources > 1:
		return userErrorf(err, "import stopped: %s; %s%s", oneLine(strings.TrimPrefix(err.Error(), "import: ")), kept, rerun)
	}
	return importError(err, path)
}

// startsLikeJSON reports whether a file's first non-blank byte could open
// a JSON lines file; a file that cannot be read counts as JSON, so its
// error stays the line's.
func startsLikeJSON(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	b := bytes.TrimLeft(bytes.TrimPrefix(head[:n], []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(b) == 0 || b[0] == '{' || b[0] == '['
}

// importSummary is the one line an import ends with. A run that found
// nothing new says so plainly, rather than "imported 0 sessions".
func importSummary(res kimi.BulkResult, elapsed time.Duration, agent string) string {
	sessions := func(n int) string { return words.Thousands(n) + " " + words.Plural(n, "session", "sessions") }
	var rest []string
	if res.Unchanged > 0 {
		rest = append(rest, sessions(res.Unchanged)+" already imported")
	}
	if res.Empty > 0 {
		rest = append(rest, fmt.Sprintf("%s skipped (empty)", sessions(res.Empty)))
	}
	if res.Imported == 0 && res.Updated == 0 {
		if len(rest) == 0 {
			return "nothing new: no " + agent + " session found"
		}
		return "nothing new: " + strings.Join(rest, ", ")
	}
	var done []string
	if res.Imported > 0 {
		done = append(done, "imported "+sessions(res.Imported))
	}
	if res.Updated > 0 {
		done = append(done, "updated "+sessions(res.Updated)+" that grew")
	}
	rate := float64(res.Records) / max(elapsed.Seconds(), 1e-3)
	line := fmt.Sprintf("%s (%s %s, %.1f MB read) in %s, %s records/s", strings.Join(done, ", "), words.Thousands(res.Records), words.Plural(res.Records, "record", "records"),
		float64(res.Bytes)/1e6, elapsed.Round(time.Millisecond), words.Thousands(int(rate)))
	if len(rest) > 0 {
		line += "; " + strings.Join(rest, ", ")
	}
	return line
}

// warnWorkDirs says which sessions have no work dir in kimi-cli's metadata
// and get the fallback instead.
func warnWorkDirs(rt *Runtime, d kimi.Discovery, fallback string) {
	n := 0
	for _, c := range d.Unmapped {
		n += c
	}
	if n == 0 {
		return
	}
	if d.Metadata == "" {
		fmt.Fprintf(rt.Stderr, "warning: no kimi.json names the work dirs: %d %s work dir %s (--work-dir chooses another)\n",
			n, words.Plural(n, "session gets", "sessions get"), fallback)
		return
	}
	fmt.Fprintf(rt.Stderr, "warning: %s does not name the work dir of %d %s (in %d %s of sessions/): %s work dir %s (--work-dir chooses another)\n",
		d.Metadata, n, words.Plural(n, "session", "sessions"), len(d.Unmapped), words.Plural(len(d.Unmapped), "directory", "directories"),
		words.Plural(n, "it gets", "they get"), fallback)
}

func importError(err error, path string) error {
	switch {
	case errors.Is(err, regfile.ErrNotRegular):
		return userErrorf(err, "cannot import: %v", err)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return userErrorf(err, "cannot import %s: %s", path, oneLine(unwrapPathError(err).Error()))
	case errors.Is(err, store.ErrNotDatabase), errors.Is(err, store.ErrNewerSchema), isBusy(err):
		return err
	}
	msg := strings.TrimPrefix(oneLine(err.Error()), "import: ")
	return userErrorf(err, "cannot import %s: %s; nothing was imported", path, strings.TrimPrefix(msg, path+": "))
}

// unwrapPathError drops the "open PATH:" prefix of a *fs.PathError, the
// caller names the path itself.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
