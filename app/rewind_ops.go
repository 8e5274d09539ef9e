package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/store"
)

// FileOptions choose what a revert or restore does to the work directory's
// files (DESIGN §7), and whether it only says what it would do.
type FileOptions struct {
	Files     bool // also move the files (revert --files, restore --files)
	FilesOnly bool // only the files, the conversation stays (revert --files-only)
	Force     bool // overwrite files changed by someone else since the agent touched them
	DryRun    bool // print what would happen and change nothing, conversation included
	Diffs     bool // with DryRun and a files flag: print the unified diff of every file
}

func (o FileOptions) files() bool { return o.Files || o.FilesOnly }

// check rejects flag combinations that mean nothing; filesFlags names the
// command's files flags for the message.
func (o FileOptions) check(filesFlags string) error {
	switch {
	case o.Files && o.FilesOnly:
		return Usage(errors.New("--files and --files-only cannot be used together"))
	case o.Diffs && !o.DryRun:
		return Usage(errors.New("--diff needs --dry-run"))
	case o.Diffs && !o.files():
		return Usage(fmt.Errorf("--diff shows file changes: add %s", filesFlags))
	}
	return nil
}

// Revert makes a new generation whose view ends before checkpoint N; with
// --files it also moves the files back, with --files-only only the files.
// File conflicts (files changed by someone else since the agent touched
// them) are checked before anything changes: without --force the command
// lists them and changes nothing. With --dry-run it prints what it would do
// and changes nothing.
func Revert(ctx context.Context, rt *Runtime, id string, checkpoint int, fo FileOptions) error {
	if err := fo.check("--files or --files-only"); err != nil {
		return err
	}
	// A dry run changes nothing, so it needs no lease: it works while a
	// running rewind holds the session.
	h, err := rt.openSession(ctx, id, !fo.DryRun)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	db, s := h.db, h.s
	what := fmt.Sprintf("checkpoint %d", checkpoint)
	v, err := db.View(ctx, s.ID)
	if err != nil {
		return storeError(err, s.ID, what)
	}
	seq, archived, ok := checkpointInView(v, checkpoint)
	if !ok {
		return storeError(fmt.Errorf("%w: %d", store.ErrCheckpointNotFound, checkpoint), s.ID, what)
	}

	var tr *filecp.Tracker
	var plan filecp.Report
	if fo.files() {
		tr, plan, err = planFiles(ctx, h, fo, func(ctx context.Context, tr *filecp.Tracker, o filecp.RevertOptions) (filecp.Report, error) {
			return tr.RevertFiles(ctx, seq, o)
		})
		if err != nil {
			return err
		}
	}
	filesTitle := fmt.Sprintf("files reverted to checkpoint %d", checkpoint)
	if fo.DryRun {
		w := &errWriter{w: rt.Stdout}
		if !fo.FilesOnly {
			w.printf("would revert to checkpoint %d: generation %d, %d %s would be archived in generation %d\n",
				checkpoint, s.CurrentGen+1, archived, plural(archived, "message", "messages"), s.CurrentGen)
		}
		return dryRunEnd(w, tr != nil, plan, fo.Force, fmt.Sprintf("files to revert to checkpoint %d", checkpoint))
	}
	if err := conflictError(plan, fo.Force); err != nil {
		return err
	}
	if !fo.FilesOnly {
		g, err := db.RevertTo(ctx, s.ID, checkpoint, store.CauseRevert, "")
		if err != nil {
			return storeError(err, s.ID, what)
		}
		archived := max(s.Messages-g.Messages, 0)
		if _, err := fmt.Fprintf(rt.Stdout, "reverted to checkpoint %d: generation %d, %d %s archived in generation %d\n",
			checkpoint, g.Gen, archived, plural(archived, "message", "messages"), s.CurrentGen); err != nil {
			return err
		}
	}
	if tr == nil {
		return nil
	}
	rep, err := tr.RevertFiles(ctx, seq, filecp.RevertOptions{Force: fo.Force})
	printReport(&errWriter{w: rt.Stdout}, rep, filesTitle)
	if rep.Undo != 0 && !fo.FilesOnly {
		fmt.Fprintf(rt.Stdout, "undo with `rewind restore %s %d --files`\n", s.ID, s.CurrentGen)
	}
	if err != nil {
		return fmt.Errorf("revert files of session %s to checkpoint %d: %w", s.ID, checkpoint, err)
	}
	return nil
}

// checkpointInView finds checkpoint id in v (its newest record, as
// filecp.SeqOfCheckpoint does) and counts the messages after it: the ones a
// revert to it archives.
func checkpointInView(v store.View, id int) (seq int64, after int, ok bool) {
	for i := len(v.Records) - 1; i >= 0; i-- {
		r := v.Records[i]
		switch {
		case r.Kind == store.KindMessage:
			after++
		case r.Kind == store.KindCheckpoint && r.CheckpointID == id:
			return r.Seq, after, true
		}
	}
	return 0, 0, false
}

// Restore makes an archived generation current again (as a new generation);
// with --files the files go back to their state when that generation was
// left. With --dry-run it prints what it would do and changes nothing.
func Restore(ctx context.Context, rt *Runtime, id string, gen int, fo FileOptions) error {
	if err := fo.check("--files"); err != nil {
		return err
	}
	// A dry run changes nothing, so it needs no lease: it works while a
	// running rewind holds the session.
	h, err := rt.openSession(ctx, id, !fo.DryRun)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	db, s := h.db, h.s
	what := fmt.Sprintf("generation %d", gen)

	var target store.Generation
	if fo.Files || fo.DryRun {
		// Validate the generation before looking at files.
		if target, err = findGeneration(ctx, db, s.ID, gen); err != nil {
			return storeError(err, s.ID, what)
		}
	}
	var tr *filecp.Tracker
	var plan filecp.Report
	if fo.Files {
		tr, plan, err = planFiles(ctx, h, fo, func(ctx context.Context, tr *filecp.Tracker, o filecp.RevertOptions) (filecp.Report, error) {
			return tr.RestoreFilesToGeneration(ctx, gen, o)
		})
		if err != nil {
			return err
		}
	}
	filesTitle := fmt.Sprintf("files restored to the end of generation %d", gen)
	if fo.DryRun {
		w := &errWriter{w: rt.Stdout}
		w.printf("would restore generation %d as generation %d (%d %s); generation %d would be archived\n",
			gen, s.CurrentGen+1, target.Messages, plural(target.Messages, "message", "messages"), s.CurrentGen)
		return dryRunEnd(w, tr != nil, plan, fo.Force, fmt.Sprintf("files to restore to the end of generation %d", gen))
	}
	if err := conflictError(plan, fo.Force); err != nil {
		return err
	}
	g, err := db.Restore(ctx, s.ID, gen)
	if err != nil {
		return storeError(err, s.ID, what)
	}
	if _, err := fmt.Fprintf(rt.Stdout, "restored generation %d as generation %d (%d %s); generation %d archived\n",
		gen, g.Gen, g.Messages, plural(g.Messages, "message", "messages"), s.CurrentGen); err != nil {
		return err
	}
	if tr == nil {
		return nil
	}
	rep, err := tr.RestoreFilesToGeneration(ctx, gen, filecp.RevertOptions{Force: fo.Force})
	printReport(&errWriter{w: rt.Stdout}, rep, filesTitle)
	if err != nil {
		return fmt.Errorf("restore files of session %s to generation %d: %w", s.ID, gen, err)
	}
	return nil
}

// planFiles opens the session's file checkpoints and runs rewind as a dry
// run: what the files half of a revert or restore would do. Conflicts are
// checked on this plan before anything changes.
func planFiles(ctx context.Context, h *sessionHandle, fo FileOptions,
	rewind func(context.Context, *filecp.Tracker, filecp.RevertOptions) (filecp.Report, error)) (*filecp.Tracker, filecp.Report, error) {
	tr, err := tracker(h.db, h.s, h.cfg)
	if err != nil {
		return nil, filecp.Report{}, err
	}
	plan, err := rewind(ctx, tr, filecp.RevertOptions{DryRun: true, Force: fo.Force, Diffs: fo.Diffs})
	if err != nil {
		return nil, plan, fmt.Errorf("check files of session %s: %w", h.s.ID, err)
	}
	return tr, plan, nil
}

// findGeneration returns generation gen of a session without reading its
// records.
func findGeneration(ctx context.Context, db *store.DB, sessionID string, gen int) (store.Generation, error) {
	gens, err := db.Generations(ctx, sessionID)
	if err != nil {
		return store.Generation{}, err
	}
	for _, g := range gens {
		if g.Gen == gen {
			return g, nil
		}
	}
	return store.Generation{}, fmt.Errorf("%w: %d", store.ErrGenerationNotFound, gen)
}

// dryRunEnd prints the file plan of a dry run (when files were asked for),
// whether conflicts would stop the real command, and that nothing changed.
func dryRunEnd(w *errWriter, files bool, plan filecp.Report, force bool, title string) error {
	if files {
		printReport(w, plan, title)
		printDiffs(w, plan.Diffs)
		if n := len(plan.Conflicts); n > 0 && !force {
			w.printf("without --force the command would change nothing: %d %s changed since the agent last touched %s\n",
				n, plural(n, "file was", "files were"), plural(n, "it", "them"))
		}
	}
	w.printf("dry run: nothing was changed\n")
	return w.err
}

// tracker opens the file checkpoints of a session.
func tracker(db *store.DB, s store.Session, cfg Config) (*filecp.Tracker, error) {
	if s.WorkDir == "" {
		return nil, userErrorf(nil, "session %s has no work directory, so it has no file checkpoints", s.ID)
	}
	tr, err := filecp.New(db, s.ID, s.WorkDir, filecp.Options{MaxFileSize: cfg.FileSizeCap})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, userErrorf(err, "the work directory %s of session %s does not exist any more, so its files cannot be tracked or rewound", s.WorkDir, s.ID)
	case err != nil:
		return nil, userErrorf(err, "cannot use the work directory %s of session %s: %s", s.WorkDir, s.ID, oneLine(unwrapPathError(err).Error()))
	}
	return tr, nil
}

// conflictError refuses a file rewind that would overwrite someone else's
// changes, listing them.
func conflictError(dry filecp.Report, force bool) error {
	if force || len(dry.Conflicts) == 0 {
		return nil
	}
	var names []string
	for _, c := range dry.Conflicts {
		names = append(names, c.Path+" ("+c.Reason+")")
	}
	n := len(names)
	return userErrorf(nil, "%d %s changed since the agent last touched %s: %s; nothing was changed (pass --force to overwrite; the current content is kept and can be restored)",
		n, plural(n, "file was", "files were"), plural(n, "it", "them"), oneLine(strings.Join(names, ", ")))
}

// printReport lists what a file rewind did or, for a dry run, would do.
func printReport(w *errWriter, rep filecp.Report, title string) {
	if rep.Changed() == 0 && len(rep.Skipped) == 0 && len(rep.Conflicts) == 0 {
		if rep.DryRun {
			w.printf("%s: no file would change\n", title)
		} else {
			w.printf("%s: no file needed to change\n", title)
		}
		return
	}
	modified, created, deleted, overwritten, leftAlone := "modified", "created", "deleted", "overwritten", "left alone"
	if rep.DryRun {
		modified, created, deleted, overwritten, leftAlone = "modify", "create", "delete", "overwrite", "conflict"
		w.printf("%s: %d to modify, %d to create, %d to delete\n", title, len(rep.Modified), len(rep.Created), len(rep.Deleted))
	} else {
		w.printf("%s: %d modified, %d created, %d deleted\n", title, len(rep.Modified), len(rep.Created), len(rep.Deleted))
	}
	for _, p := range rep.Modified {
		w.printf("  %-9s %s\n", modified, sanitize(p))
	}
	for _, p := range rep.Created {
		w.printf("  %-9s %s\n", created, sanitize(p))
	}
	for _, p := range rep.Deleted {
		w.printf("  %-9s %s\n", deleted, sanitize(p))
	}
	for _, c := range rep.Conflicts {
		verb := leftAlone
		if c.Overwritten {
			verb = overwritten
		}
		w.printf("  %s (%s)  %s\n", verb, oneLine(c.Reason), sanitize(c.Path))
	}
	for _, sk := range rep.Skipped {
		w.printf("  skipped (%s)  %s\n", oneLine(sk.Reason), sanitize(sk.Path))
	}
}

// printDiffs prints the unified diffs of a file rewind, sorted by path.
// File content is sanitised: it must not reach the terminal raw.
func printDiffs(w *errWriter, diffs map[string]string) {
	paths := make([]string, 0, len(diffs))
	for p := range diffs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		d := diffs[p]
		if d == "" {
			continue
		}
		w.printf("\n%s", sanitize(d))
		if !strings.HasSuffix(d, "\n") {
			w.printf("\n")
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
