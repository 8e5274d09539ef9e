package filecp

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

type fileSnap struct {
	mode fs.FileMode
	data string // content, or a symlink's target
}

// snapshot reads the whole work dir (except .git and the given paths) so a
// revert can be compared byte for byte.
func snapshot(t *testing.T, root string, except ...string) map[string]fileSnap {
	t.Helper()
	skip := map[string]bool{}
	for _, e := range except {
		skip[e] = true
	}
	out := map[string]fileSnap{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if skip[rel] {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = fileSnap{mode: fs.ModeSymlink, data: target}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fileSnap{mode: info.Mode().Perm(), data: string(b)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnap(t *testing.T, label string, got, want map[string]fileSnap) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, "missing "+p)
		case g.mode != w.mode:
			diffs = append(diffs, fmt.Sprintf("%s mode %v, want %v", p, g.mode, w.mode))
		case g.data != w.data:
			diffs = append(diffs, fmt.Sprintf("%s content %q, want %q", p, trunc(g.data), trunc(w.data)))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, "unexpected "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("%s: tree differs:\n%s", label, strings.Join(diffs, "\n"))
	}
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

type env struct {
	t      *testing.T
	ctx    context.Context
	db     *store.DB
	sess   store.Session
	root   string
	out    string // a directory outside the work dir
	tr     *Tracker
	except []string
}

func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	ctx := context.Background()
	base := t.TempDir()
	db := storetest.OpenAt(t, filepath.Join(base, "db", "rewind.db"), store.Options{})
	root := filepath.Join(base, "work")
	out := filepath.Join(base, "outside")
	for _, d := range []string{root, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sess, err := db.CreateSession(ctx, store.NewSession{Title: "t", WorkDir: root})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := New(db, sess.ID, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: ctx, db: db, sess: sess, root: root, out: out, tr: tr}
}

func (e *env) path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// checkpoint appends a checkpoint record and returns its seq.
func (e *env) checkpoint() int64 {
	e.t.Helper()
	if _, err := e.db.Checkpoint(e.ctx, e.sess.ID, false); err != nil {
		e.t.Fatal(err)
	}
	v, err := e.db.SessionVersion(e.ctx, e.sess.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return v.MaxSeq
}

func (e *env) message(text string) {
	e.t.Helper()
	if _, err := e.db.AppendMessage(e.ctx, e.sess.ID, message.NewText("assistant", text)); err != nil {
		e.t.Fatal(err)
	}
}

// writeFile is what WriteFile does: BeforeWrite, then write.
func (e *env) writeFile(rel, content string) {
	e.t.Helper()
	if _, err := e.tr.BeforeWrite(e.ctx, []string{e.path(rel)}); err != nil {
		e.t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(e.path(rel)), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(e.path(rel), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// strReplace is what StrReplaceFile does.
func (e *env) strReplace(rel, old, new string) {
	e.t.Helper()
	if _, err := e.tr.BeforeWrite(e.ctx, []string{e.path(rel)}); err != nil {
		e.t.Fatal(err)
	}
	b, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		e.t.Fatalf("%s does not contain %q", rel, old)
	}
	if err := os.WriteFile(e.path(rel), bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// shell is what Shell does: AroundShell around a real sh -c.
func (e *env) shell(cmd string) ScanInfo {
	e.t.Helper()
	after, err := e.tr.AroundShell(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	c := exec.Command("sh", "-c", cmd)
	c.Dir = e.root
	c.Env = append(os.Environ(), "OUT="+e.out)
	outp, runErr := c.CombinedOutput()
	if _, err := after(e.ctx); err != nil {
		e.t.Fatal(err)
	}
	if runErr != nil {
		e.t.Fatalf("%s: %v\n%s", cmd, runErr, outp)
	}
	return e.tr.LastScan()
}

func (e *env) snap() map[string]fileSnap { return snapshot(e.t, e.root, e.except...) }

func (e *env) must(rep Report, err error) Report {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
	return rep
}

func TestRevertEachCheckpointAndUndo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{MaxFileSize: 64 << 10})
	writeTree(t, e.root, map[string]string{
		".gitignore": "*.log\n",
		"a.txt":      "alpha\nhello world\n",
		"b.txt":      "hello sed\n",
		"sub/c.txt":  "to be removed\n",
		"app.log":    "ignored\n",
		"bin.dat":    "\x00\x01\x02\xff\xfe",
	})
	if err := os.WriteFile(filepath.Join(e.out, "secret.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(e.out, "secret.txt"), e.path("link")); err != nil {
		t.Fatal(err)
	}
	e.except = []string{"app.log", "big.bin"}
	if err := prime(e.ctx, e.tr); err != nil {
		t.Fatal(err)
	}

	var seqs []int64
	var snaps []map[string]fileSnap
	step := func(do func()) {
		seqs = append(seqs, e.checkpoint())
		snaps = append(snaps, e.snap())
		do()
		e.message("done")
	}
	step(func() { e.writeFile("new.txt", "created by WriteFile\n") })
	step(func() { e.strReplace("a.txt", "hello", "goodbye") })
	step(func() {
		info := e.shell(`sed -i 's/hello/HELLO/' b.txt && rm sub/c.txt && touch empty.txt && mkdir -p d/e && printf x > d/e/f.txt && chmod 755 a.txt`)
		if len(info.Changes) != 5 {
			t.Fatalf("shell changes %+v", info.Changes)
		}
	})
	step(func() {
		info := e.shell(`printf '\000\377tail' >> bin.dat && echo more >> app.log && head -c 70000 /dev/zero > big.bin && rm link && echo replaced > link && ln -s "$OUT" outlink`)
		if len(info.Untracked) != 1 || info.Untracked[0].Path != "big.bin" {
			t.Fatalf("oversized file change not reported: %+v", info.Untracked)
		}
	})
	step(func() {
		e.writeFile("new.txt", "second version\n")
		e.strReplace("new.txt", "second", "third")
		e.shell(`mv empty.txt moved.txt && cp bin.dat bin2.dat`)
	})
	if err := e.tr.Flush(e.ctx); err != nil {
		t.Fatal(err)
	}
	final := e.snap()
	secret, _ := os.ReadFile(filepath.Join(e.out, "secret.txt"))

	for k := len(seqs) - 1; k >= 0; k-- {
		rep := e.must(e.tr.RevertFiles(e.ctx, seqs[k], RevertOptions{}))
		if len(rep.Conflicts) > 0 || len(rep.Skipped) > 0 {
			t.Fatalf("checkpoint %d: conflicts %+v skipped %+v", k, rep.Conflicts, rep.Skipped)
		}
		sameSnap(t, fmt.Sprintf("revert to checkpoint %d", k), e.snap(), snaps[k])
		if rep.Undo == 0 {
			t.Fatalf("checkpoint %d: no undo position", k)
		}
		// Undo the rewind: forward to the state before it.
		undo := e.must(e.tr.RestoreFilesTo(e.ctx, rep.Undo, RevertOptions{}))
		if undo.Changed() != rep.Changed() || len(undo.Conflicts) > 0 {
			t.Fatalf("checkpoint %d: undo changed %d of %d files, conflicts %+v", k, undo.Changed(), rep.Changed(), undo.Conflicts)
		}
		sameSnap(t, fmt.Sprintf("undo of revert to %d", k), e.snap(), final)
	}
	// Files the rewind does not track were left as they were.
	if b, _ := os.ReadFile(e.path("app.log")); string(b) != "ignored\nmore\n" {
		t.Fatalf("ignored file touched: %q", b)
	}
	if fi, err := os.Stat(e.path("big.bin")); err != nil || fi.Size() != 70000 {
		t.Fatalf("oversized file touched: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.out, "secret.txt")); !bytes.Equal(b, secret) {
		t.Fatal("file outside the work dir changed")
	}

	// Revert to checkpoint 0 again, then go forward to checkpoint 3 by its
	// seq: positions work in both directions.
	e.must(e.tr.RevertFiles(e.ctx, seqs[0], RevertOptions{}))
	sameSnap(t, "back to 0", e.snap(), snaps[0])
	e.must(e.tr.RevertFiles(e.ctx, seqs[3], RevertOptions{}))
	sameSnap(t, "forward to 3", e.snap(), snaps[3])
}

func TestConflictRefusedThenForced(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	writeTree(t, e.root, map[string]string{"a.txt": "v0\n", "b.txt": "b0\n"})
	cp := e.checkpoint()
	snap0 := e.snap()
	e.writeFile("a.txt", "v1 by agent\n")
	e.shell(`echo b1 > b.txt`)
	e.message("done")
	if err := e.tr.Flush(e.ctx); err != nil {
		t.Fatal(err)
	}
	// The user edits a.txt after the agent.
	if err := os.WriteFile(e.path("a.txt"), []byte("user edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dry := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{DryRun: true, Diffs: true}))
	if len(dry.Conflicts) != 1 || dry.Conflicts[0].Path != "a.txt" || len(dry.Modified) != 1 || dry.Modified[0] != "b.txt" {
		t.Fatalf("dry run %+v", dry)
	}
	if !strings.Contains(dry.Diffs["b.txt"], "-b1\n+b0\n") || !strings.Contains(dry.Diffs["a.txt"], "-user edit\n+v0\n") {
		t.Fatalf("diffs %q", dry.Diffs)
	}
	if b, _ := os.ReadFile(e.path("b.txt")); string(b) != "b1\n" {
		t.Fatal("dry run changed a file")
	}
	rep := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{}))
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Overwritten || len(rep.Modified) != 1 {
		t.Fatalf("revert %+v", rep)
	}
	if b, _ := os.ReadFile(e.path("a.txt")); string(b) != "user edit\n" {
		t.Fatal("conflicting user edit overwritten without force")
	}
	if b, _ := os.ReadFile(e.path("b.txt")); string(b) != "b0\n" {
		t.Fatal("non-conflicting file not reverted")
	}
	forced := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{Force: true}))
	if len(forced.Conflicts) != 1 || !forced.Conflicts[0].Overwritten || len(forced.Modified) != 1 || forced.Modified[0] != "a.txt" {
		t.Fatalf("forced %+v", forced)
	}
	sameSnap(t, "forced", e.snap(), snap0)
	// The user's edit is not lost: undoing the forced rewind brings it back.
	e.must(e.tr.RestoreFilesTo(e.ctx, forced.Undo, RevertOptions{}))
	if b, _ := os.ReadFile(e.path("a.txt")); string(b) != "user edit\n" {
		t.Fatalf("undo of the forced rewind: a.txt = %q", b)
	}
}

func TestSymlinkOutsideNeverWrittenThrough(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	writeTree(t, e.root, map[string]string{"new.txt": "x", "d/f.txt": "in d\n"})
	secret := filepath.Join(e.out, "secret.txt")
	if err := os.WriteFile(secret, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cp := e.checkpoint()
	e.writeFile("new.txt", "agent\n")
	e.shell(`echo changed > d/f.txt`)
	if err := e.tr.Flush(e.ctx); err != nil {
		t.Fatal(err)
	}
	// Someone replaces new.txt with a link to a file outside, and d with a
	// link to the outside directory.
	os.Remove(e.path("new.txt"))
	if err := os.Symlink(secret, e.path("new.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.out, "f.txt"), []byte("outside f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(e.path("d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.out, e.path("d")); err != nil {
		t.Fatal(err)
	}
	rep := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{Force: true}))
	if b, _ := os.ReadFile(secret); string(b) != "outside\n" {
		t.Fatalf("wrote through a symlink: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(e.out, "f.txt")); string(b) != "outside f\n" {
		t.Fatalf("wrote through a symlinked parent: %q", b)
	}
	fi, err := os.Lstat(e.path("new.txt"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("new.txt not restored as a regular file: %v", err)
	}
	if b, _ := os.ReadFile(e.path("new.txt")); string(b) != "x" {
		t.Fatalf("new.txt = %q", b)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Path != "d/f.txt" {
		t.Fatalf("symlinked parent not skipped: %+v", rep.Skipped)
	}
}

func TestBlobDedupAndBinaryRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	writeTree(t, e.root, map[string]string{"one.bin": string(bin), "two.bin": string(bin), "three.txt": "same\n"})
	cp := e.checkpoint()
	if err := prime(e.ctx, e.tr); err != nil {
		t.Fatal(err)
	}
	st, err := e.db.FileBlobStats(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Count != 2 {
		t.Fatalf("%d blobs for 2 distinct contents", st.Count)
	}
	snap0 := e.snap()
	e.shell(`cp three.txt four.txt && printf 'more' >> one.bin && rm two.bin`)
	st2, _ := e.db.FileBlobStats(e.ctx)
	if st2.Count != 3 { // only one.bin's new content is new
		t.Fatalf("%d blobs after the shell step, want 3", st2.Count)
	}
	e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{}))
	sameSnap(t, "binary revert", e.snap(), snap0)
	if b, _ := os.ReadFile(e.path("two.bin")); !bytes.Equal(b, bin) {
		t.Fatal("binary file not restored byte for byte")
	}
}

func TestConversationRevertAndRestoreGeneration(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	writeTree(t, e.root, map[string]string{"a.txt": "0\n"})
	// Checkpoint 0 and a step that edits a.txt.
	cp0 := e.checkpoint()
	snap0 := e.snap()
	e.writeFile("a.txt", "1\n")
	e.message("step 1")
	e.checkpoint()
	e.shell(`echo 2 > a.txt && echo b > b.txt`)
	e.message("step 2")
	if err := e.tr.Flush(e.ctx); err != nil {
		t.Fatal(err)
	}
	snapEnd := e.snap()
	// revert ID 0 --files: conversation first, then the files.
	v, err := e.db.View(e.ctx, e.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	seq, ok := SeqOfCheckpoint(v, 0)
	if !ok || seq != cp0 {
		t.Fatalf("checkpoint seq %d %v, want %d", seq, ok, cp0)
	}
	g, err := e.db.RevertTo(e.ctx, e.sess.ID, 0, store.CauseRevert, "")
	if err != nil {
		t.Fatal(err)
	}
	e.must(e.tr.RevertFiles(e.ctx, seq, RevertOptions{}))
	sameSnap(t, "revert --files", e.snap(), snap0)
	// The new generation edits on.
	e.checkpoint()
	e.writeFile("a.txt", "other branch\n")
	e.message("branch")
	if err := e.tr.Flush(e.ctx); err != nil {
		t.Fatal(err)
	}
	// restore ID 0 --files: the end of generation 0.
	if _, err := e.db.Restore(e.ctx, e.sess.ID, g.Gen-1); err != nil {
		t.Fatal(err)
	}
	rep := e.must(e.tr.RestoreFilesToGeneration(e.ctx, g.Gen-1, RevertOptions{}))
	if len(rep.Conflicts) > 0 {
		t.Fatalf("conflicts %+v", rep.Conflicts)
	}
	sameSnap(t, "restore generation 0 --files", e.snap(), snapEnd)
}

func TestPendingWriteSettledAfterRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	writeTree(t, e.root, map[string]string{"a.txt": "before\n"})
	cp := e.checkpoint()
	e.writeFile("a.txt", "after\n") // no Flush: the process "dies" here
	tr2, err := New(e.db, e.sess.ID, e.root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr2.Flush(e.ctx); err != nil {
		t.Fatal(err)
	}
	ev, err := e.db.FileEvents(e.ctx, e.sess.ID, 0)
	if err != nil || len(ev) != 1 || ev[0].Pending || ev[0].After.Hash != hashOf([]byte("after\n")) {
		t.Fatalf("events %+v %v", ev, err)
	}
	e.must(tr2.RevertFiles(e.ctx, cp, RevertOptions{}))
	if b, _ := os.ReadFile(e.path("a.txt")); string(b) != "before\n" {
		t.Fatalf("a.txt = %q", b)
	}
}

// A change that keeps size and mtime (a coarse-timestamp filesystem, or a
// tool restoring mtimes) is still seen when the index entry is racy: its
// mtime lies within the racy window of the moment it was recorded.
func TestRacyEntryRehashed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	writeTree(t, e.root, map[string]string{"a.txt": "aaaa\n"})
	cp := e.checkpoint()
	fi, err := os.Stat(e.path("a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	e.shell(`printf 'bbbb\n' > a.txt && touch -d "@` + fmt.Sprintf("%d.%09d", fi.ModTime().Unix(), fi.ModTime().Nanosecond()) + `" a.txt`)
	got, _ := os.Stat(e.path("a.txt"))
	if !got.ModTime().Equal(fi.ModTime()) || got.Size() != fi.Size() {
		t.Skip("touch -d cannot restore the mtime here")
	}
	if n := len(e.tr.LastScan().Changes); n != 1 {
		t.Fatalf("same-size same-mtime change: %d changes recorded, want 1", n)
	}
	e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{}))
	if b, _ := os.ReadFile(e.path("a.txt")); string(b) != "aaaa\n" {
		t.Fatalf("a.txt = %q", b)
	}
}

// Dry-run diffs name a missing side /dev/null, and an empty file is not a
// missing one.
func TestDryRunDiffHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	writeTree(t, e.root, map[string]string{"empty.txt": "", "gone.txt": "old\n"})
	cp := e.checkpoint()
	e.writeFile("empty.txt", "filled\n")
	e.writeFile("new.txt", "created\n")
	e.shell(`rm gone.txt`)
	if err := e.tr.Flush(e.ctx); err != nil {
		t.Fatal(err)
	}
	rep := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{DryRun: true, Diffs: true}))
	want := map[string]string{
		"empty.txt": "--- a/empty.txt\n+++ b/empty.txt\n",
		"new.txt":   "--- a/new.txt\n+++ /dev/null\n",
		"gone.txt":  "--- /dev/null\n+++ b/gone.txt\n",
	}
	if len(rep.Diffs) != len(want) {
		t.Fatalf("diffs %q", rep.Diffs)
	}
	for p, w := range want {
		if !strings.HasPrefix(rep.Diffs[p], w) {
			t.Errorf("diff of %s = %q, want it to start %q", p, rep.Diffs[p], w)
		}
	}
}

// Paths given to BeforeWrite map to work-dir-relative paths, also through a
// symlink to the work dir; the work dir itself and paths outside it do not.
func TestRelPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	via := filepath.Join(e.out, "via")
	if err := os.Symlink(e.root, via); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in   string
		want string // "" = not tracked
	}{
		{e.path("a/b.txt"), "a/b.txt"},
		{"a/b.txt", "a/b.txt"},
		{"./a/../c.txt", "c.txt"},
		{filepath.Join(via, "c.txt"), "c.txt"},
		{e.root, ""},
		{filepath.Join(e.root, ".."), ""},
		{"../x.txt", ""},
		{filepath.Join(e.out, "x.txt"), ""},
	}
	for _, c := range cases {
		got, ok := e.tr.rel(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("rel(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

// prime scans the work dir once so that what follows starts from a stored
// state (a Shell call that changed nothing).
func prime(ctx context.Context, tr *Tracker) error {
	after, err := tr.AroundShell(ctx)
	if err != nil {
		return err
	}
	_, err = after(ctx)
	return err
}
