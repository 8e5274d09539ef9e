package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, "a.txt"), "one\ntwo\r\nthree\nfour")
	rf := &ReadFile{}

	res := call(t, rf, env, map[string]any{"path": "a.txt"})
	mustOK(t, res)
	if res.Output != numbered("one", "two", "three", "four") {
		t.Fatalf("output:\n%s", res.Output)
	}
	if res.Brief != "read 4 lines of a.txt" {
		t.Fatalf("brief %q", res.Brief)
	}

	res = call(t, rf, env, map[string]any{"path": filepath.Join(env.WorkDir, "a.txt"), "line_offset": 2, "n_lines": 2})
	mustOK(t, res)
	if !strings.HasPrefix(res.Output, "     2\ttwo\n     3\tthree\n") || !strings.Contains(res.Output, "line_offset=4") {
		t.Fatalf("offset output:\n%s", res.Output)
	}
	if strings.Contains(res.Output, "four") {
		t.Fatalf("read past n_lines:\n%s", res.Output)
	}

	mustErr(t, call(t, rf, env, map[string]any{"path": "a.txt", "line_offset": 9}), "past the end", "4 lines")
	mustErr(t, call(t, rf, env, map[string]any{"path": "missing.txt"}), "missing.txt does not exist")
	mustErr(t, call(t, rf, env, map[string]any{"path": "."}), "is a directory", "ListDir")
	mustErr(t, call(t, rf, env, map[string]any{"path": "a.txt", "line_offset": 0}), `"line_offset" must be at least 1`)

	writeFile(t, filepath.Join(env.WorkDir, "empty"), "")
	if res := call(t, rf, env, map[string]any{"path": "empty"}); res.IsError || !strings.Contains(res.Output, "empty") {
		t.Fatalf("empty file: %+v", res)
	}
	if len(rec.approvals) != 0 {
		t.Fatalf("reads inside the work dir asked for approval: %+v", rec.approvals)
	}
}

func TestReadFileCaps(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	var b strings.Builder
	for i := 0; i < 1500; i++ {
		b.WriteString("line\n")
	}
	writeFile(t, filepath.Join(env.WorkDir, "long.txt"), b.String())
	res := call(t, &ReadFile{}, env, `{"path":"long.txt"}`)
	mustOK(t, res)
	if !strings.Contains(res.Output, "  1000\tline") || strings.Contains(res.Output, "  1001\t") || !strings.Contains(res.Output, "line_offset=1001") {
		t.Fatalf("line cap: ...%s", res.Output[len(res.Output)-200:])
	}

	writeFile(t, filepath.Join(env.WorkDir, "wide.txt"), "short\n"+strings.Repeat("é", 5000)+"\nend\n")
	res = call(t, &ReadFile{}, env, `{"path":"wide.txt"}`)
	mustOK(t, res)
	if !strings.Contains(res.Output, "[line truncated]") || !strings.Contains(res.Output, "     3\tend") || !strings.Contains(res.Output, "1 line longer than 2000") {
		t.Fatalf("long line:\n%.300s", res.Output)
	}

	// Byte cap: 300 lines of 1000 chars is ~300 KB.
	b.Reset()
	for i := 0; i < 300; i++ {
		b.WriteString(strings.Repeat("x", 1000) + "\n")
	}
	writeFile(t, filepath.Join(env.WorkDir, "big.txt"), b.String())
	res = call(t, &ReadFile{}, env, `{"path":"big.txt"}`)
	mustOK(t, res)
	if len(res.Output) > readMaxBytes+500 || !strings.Contains(res.Output, "Output truncated at 100.0 KB") {
		t.Fatalf("byte cap: %d bytes, tail %q", len(res.Output), res.Output[len(res.Output)-150:])
	}
}

func TestReadFileRefusesBinary(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, "bin"), "ELF\x00\x01\x02rest")
	mustErr(t, call(t, &ReadFile{}, env, `{"path":"bin"}`), "binary file")

	// A NUL byte past the sniffed head does not make a file binary.
	late := strings.Repeat("x", binarySniffLen) + "\x00\n"
	writeFile(t, filepath.Join(env.WorkDir, "late"), late)
	mustOK(t, call(t, &ReadFile{}, env, `{"path":"late"}`))
}

func TestEditsOfBinaryContent(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, "bin"), "ELF\x00\x01\x02rest")
	mustErr(t, call(t, &StrReplaceFile{}, env, map[string]any{"path": "bin", "old": "rest", "new": "best"}), "bin is a binary file")
	if len(rec.approvals) != 0 {
		t.Fatalf("a refused edit asked for approval: %+v", rec.approvals)
	}

	// WriteFile may write binary content, but its approval shows no diff.
	mustOK(t, call(t, &WriteFile{}, env, map[string]any{"path": "bin", "content": "text\n"}))
	mustOK(t, call(t, &WriteFile{}, env, map[string]any{"path": "new", "content": "a\x00b"}))
	for i, a := range rec.approvals {
		if !strings.HasPrefix(a.Diff, "(binary content, diff omitted: ") {
			t.Fatalf("approval %d diff: %q", i, a.Diff)
		}
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	wf := &WriteFile{}
	path := filepath.Join(env.WorkDir, "sub", "dir", "new.go")

	res := call(t, wf, env, map[string]any{"path": "sub/dir/new.go", "content": "package x\n\nfunc A() {}\n"})
	mustOK(t, res)
	if got := readFile(t, path); got != "package x\n\nfunc A() {}\n" {
		t.Fatalf("content %q", got)
	}
	if res.Brief != "wrote 3 lines to sub/dir/new.go" {
		t.Fatalf("brief %q", res.Brief)
	}
	a := rec.approvals[0]
	if a.Tool != "WriteFile" || a.Action != ActionEditFile || !strings.Contains(a.Description, "Create sub/dir/new.go") {
		t.Fatalf("approval %+v", a)
	}
	if !strings.Contains(a.Diff, "--- /dev/null\n+++ b/sub/dir/new.go\n@@ -0,0 +1,3 @@\n+package x\n+\n+func A() {}\n") {
		t.Fatalf("create diff:\n%s", a.Diff)
	}

	// Overwrite: diff shows old → new with context.
	res = call(t, wf, env, map[string]any{"path": "sub/dir/new.go", "content": "package x\n\nfunc B() {}\n", "mode": "overwrite"})
	mustOK(t, res)
	want := "--- a/sub/dir/new.go\n+++ b/sub/dir/new.go\n@@ -1,3 +1,3 @@\n package x\n \n-func A() {}\n+func B() {}\n"
	if d := rec.approvals[1].Diff; d != want {
		t.Fatalf("overwrite diff:\n%s\nwant:\n%s", d, want)
	}

	// Append.
	res = call(t, wf, env, map[string]any{"path": "sub/dir/new.go", "content": "// end", "mode": "append"})
	mustOK(t, res)
	if got := readFile(t, path); got != "package x\n\nfunc B() {}\n// end" {
		t.Fatalf("append content %q", got)
	}
	if d := rec.approvals[2].Diff; !strings.Contains(d, "+// end\n\\ No newline at end of file\n") || !strings.Contains(rec.approvals[2].Description, "Append 1 line") {
		t.Fatalf("append approval %+v", rec.approvals[2])
	}

	mustErr(t, call(t, wf, env, map[string]any{"path": "x", "content": "y", "mode": "prepend"}), `"mode" must be one of "overwrite", "append"`)
	mustErr(t, call(t, wf, env, map[string]any{"path": "sub", "content": "y"}), "is a directory")
}

func TestWriteFileRejectWithFeedback(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	rec.decide = func(Approval) Decision { return Decision{Feedback: "use tabs"} }
	path := filepath.Join(env.WorkDir, "f.txt")
	writeFile(t, path, "old\n")
	res := call(t, &WriteFile{}, env, map[string]any{"path": "f.txt", "content": "new\n"})
	if !res.Rejected || !res.IsError || !strings.HasPrefix(res.Output, RejectedOutput) || !strings.Contains(res.Output, "use tabs") {
		t.Fatalf("reject: %+v", res)
	}
	if got := readFile(t, path); got != "old\n" {
		t.Fatalf("rejected write changed the file: %q", got)
	}
	if log := rec.Log(); !slices.Equal(log, []string{"approve:" + ActionEditFile}) {
		t.Fatalf("tracker called after a reject: %v", log)
	}
}

func TestWriteFileTrackerOrder(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	path := filepath.Join(env.WorkDir, "f.txt")
	writeFile(t, path, "before\n")
	var seen string
	rec.snapshot = func(paths []string) { seen = readFile(t, paths[0]) }
	mustOK(t, call(t, &WriteFile{}, env, map[string]any{"path": "f.txt", "content": "after\n"}))
	want := []string{"approve:" + ActionEditFile, "before-write:" + path}
	if log := rec.Log(); !slices.Equal(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}
	if seen != "before\n" {
		t.Fatalf("BeforeWrite saw %q, want the old content", seen)
	}

	// A tracker error aborts the write.
	rec.failNext = errors.New("disk full")
	mustErr(t, call(t, &WriteFile{}, env, map[string]any{"path": "f.txt", "content": "lost\n"}), "disk full", "not changed")
	if got := readFile(t, path); got != "after\n" {
		t.Fatalf("write happened despite tracker error: %q", got)
	}
}

func TestStrReplaceFile(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	path := filepath.Join(env.WorkDir, "main.go")
	writeFile(t, path, "a := 1\nb := 2\na := 1\nc := 3\n")
	sr := &StrReplaceFile{}

	mustErr(t, call(t, sr, env, map[string]any{"path": "main.go", "old": "zzz", "new": "y"}), "old was not found in main.go")
	mustErr(t, call(t, sr, env, map[string]any{"path": "main.go", "old": "a := 1", "new": "a := 9"}), "found 2 times", "replace_all")
	mustErr(t, call(t, sr, env, map[string]any{"path": "nope.go", "old": "a", "new": "b"}), "does not exist")
	mustErr(t, call(t, sr, env, map[string]any{"path": "main.go", "old": "", "new": "b"}), "old is empty")
	if len(rec.approvals) != 0 {
		t.Fatalf("failed edits asked for approval: %+v", rec.approvals)
	}

	res := call(t, sr, env, map[string]any{"path": "main.go", "old": "b := 2\n", "new": "b := 20\nb2 := 21\n"})
	mustOK(t, res)
	if got := readFile(t, path); got != "a := 1\nb := 20\nb2 := 21\na := 1\nc := 3\n" {
		t.Fatalf("content %q", got)
	}
	if res.Brief != "edited main.go (+2 -1)" {
		t.Fatalf("brief %q", res.Brief)
	}
	a := rec.approvals[0]
	if a.Tool != "StrReplaceFile" || a.Action != ActionEditFile || !strings.Contains(a.Diff, "-b := 2\n+b := 20\n+b2 := 21\n") || !strings.Contains(a.Diff, "@@ -1,4 +1,5 @@") {
		t.Fatalf("approval %+v\n%s", a, a.Diff)
	}
	if log := rec.Log(); !slices.Equal(log, []string{"approve:" + ActionEditFile, "before-write:" + path}) {
		t.Fatalf("log %v", log)
	}

	res = call(t, sr, env, map[string]any{"path": "main.go", "old": "a := 1", "new": "a := 9", "replace_all": true})
	mustOK(t, res)
	if got := readFile(t, path); strings.Count(got, "a := 9") != 2 || !strings.Contains(res.Output, "2 occurrences") {
		t.Fatalf("replace_all: %q / %s", got, res.Output)
	}

	rec.decide = func(Approval) Decision { return Decision{Feedback: "keep c"} }
	res = call(t, sr, env, map[string]any{"path": "main.go", "old": "c := 3", "new": ""})
	if !res.Rejected || !strings.Contains(res.Output, "keep c") || !strings.Contains(readFile(t, path), "c := 3") {
		t.Fatalf("reject: %+v", res)
	}
}

func TestStrReplaceFileHints(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, "crlf.txt"), "one\r\ntwo\r\n")
	mustErr(t, call(t, &StrReplaceFile{}, env, map[string]any{"path": "crlf.txt", "old": "one\ntwo", "new": "x"}), "CRLF")
	writeFile(t, filepath.Join(env.WorkDir, "ws.txt"), "\tindented\n")
	mustErr(t, call(t, &StrReplaceFile{}, env, map[string]any{"path": "ws.txt", "old": "  indented", "new": "x"}), "whitespace")
}

func TestPathEscapeRefusedUnlessApproved(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	writeFile(t, secret, "s3cret\n")
	rel, err := filepath.Rel(env.WorkDir, secret)
	if err != nil {
		t.Fatal(err)
	}
	rec.decide = func(Approval) Decision { return Decision{} }

	for name, tc := range map[string]struct {
		tool Tool
		args map[string]any
	}{
		"ReadFile abs":    {&ReadFile{}, map[string]any{"path": secret}},
		"ReadFile dotdot": {&ReadFile{}, map[string]any{"path": rel}},
		"ListDir":         {&ListDir{}, map[string]any{"path": outside}},
		"Glob":            {&Glob{}, map[string]any{"pattern": "*", "directory": "../"}},
		"Grep":            {&Grep{}, map[string]any{"pattern": "s3cret", "path": outside}},
		"WriteFile":       {&WriteFile{}, map[string]any{"path": secret, "content": "x"}},
		"StrReplaceFile":  {&StrReplaceFile{}, map[string]any{"path": rel, "old": "s3cret", "new": "x"}},
	} {
		t.Run(name, func(t *testing.T) {
			rec.approvals = nil
			res := call(t, tc.tool, env, tc.args)
			if !res.Rejected || strings.Contains(res.Output, "s3cret") {
				t.Fatalf("escape not refused: %+v", res)
			}
			if len(rec.approvals) != 1 {
				t.Fatalf("approvals %+v", rec.approvals)
			}
			want := ActionAccessOutside
			if name == "WriteFile" || name == "StrReplaceFile" {
				want = ActionEditOutside
			}
			if rec.approvals[0].Action != want {
				t.Fatalf("action %q, want %q", rec.approvals[0].Action, want)
			}
		})
	}
	if got := readFile(t, secret); got != "s3cret\n" {
		t.Fatalf("outside file changed: %q", got)
	}

	// Approved (or yolo): allowed.
	rec.decide = nil
	if res := call(t, &ReadFile{}, env, map[string]any{"path": secret}); res.IsError || !strings.Contains(res.Output, "s3cret") {
		t.Fatalf("approved read: %+v", res)
	}
	yolo := &Env{WorkDir: env.WorkDir}
	mustOK(t, call(t, &WriteFile{}, yolo, map[string]any{"path": rel, "content": "changed\n"}))
	if got := readFile(t, secret); got != "changed\n" {
		t.Fatalf("yolo write outside: %q", got)
	}
}

func TestSymlinkOutWriteRefused(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	outside := t.TempDir()
	target := filepath.Join(outside, "target.txt")
	writeFile(t, target, "outside\n")
	if err := os.Symlink(target, filepath.Join(env.WorkDir, "link.txt")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if err := os.Symlink(outside, filepath.Join(env.WorkDir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	// Even in yolo mode (nil Approve) and for new files below a linked dir.
	yolo := &Env{WorkDir: env.WorkDir, Files: rec}
	mustErr(t, call(t, &WriteFile{}, yolo, map[string]any{"path": "link.txt", "content": "pwned"}), "symlink", "outside the work dir")
	mustErr(t, call(t, &WriteFile{}, yolo, map[string]any{"path": "linkdir/new.txt", "content": "pwned"}), "symlink")
	mustErr(t, call(t, &StrReplaceFile{}, yolo, map[string]any{"path": "link.txt", "old": "outside", "new": "pwned"}), "symlink")
	if got := readFile(t, target); got != "outside\n" {
		t.Fatalf("symlink target changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("file created through a symlinked dir")
	}
	if log := rec.Log(); len(log) != 0 {
		t.Fatalf("tracker called for refused writes: %v", log)
	}

	// Reading through it asks like any outside access.
	rec.decide = func(Approval) Decision { return Decision{} }
	if res := call(t, &ReadFile{}, env, map[string]any{"path": "link.txt"}); !res.Rejected {
		t.Fatalf("read through outside symlink not asked: %+v", res)
	}

	// A symlink inside the work dir pointing inside is fine; the tracker
	// gets the real file.
	real := filepath.Join(env.WorkDir, "real.txt")
	writeFile(t, real, "in\n")
	if err := os.Symlink("real.txt", filepath.Join(env.WorkDir, "inlink.txt")); err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, &WriteFile{}, yolo, map[string]any{"path": "inlink.txt", "content": "in2\n"}))
	if got := readFile(t, real); got != "in2\n" {
		t.Fatalf("inside symlink write: %q", got)
	}
	if log := rec.Log(); !slices.Contains(log, "before-write:"+real) {
		t.Fatalf("tracker log %v, want before-write of %s", log, real)
	}
}

func TestInterruptedWriteDoesNothing(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := (&WriteFile{}).Call(ctx, env, []byte(`{"path":"f","content":"x"}`))
	mustErr(t, res, "interrupted")
	if _, err := os.Stat(filepath.Join(env.WorkDir, "f")); err == nil || len(rec.Log()) != 0 {
		t.Fatalf("interrupted write: err=%v log=%v", err, rec.Log())
	}
}

func TestReadFileAndGrepSkipFIFOs(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	fifo := filepath.Join(env.WorkDir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	writeFile(t, filepath.Join(env.WorkDir, "a.txt"), "needle\n")
	done := make(chan Result, 2)
	go func() { done <- call(t, &ReadFile{}, env, map[string]any{"path": "pipe"}) }()
	go func() { done <- call(t, &Grep{}, env, map[string]any{"pattern": "needle", "path": "."}) }()
	for range 2 {
		select {
		case res := <-done:
			if res.Brief == "not a regular file" {
				if !res.IsError || !strings.Contains(res.Output, "named pipe (FIFO)") {
					t.Errorf("ReadFile on a FIFO: %+v", res)
				}
			} else if !strings.Contains(res.Output, "a.txt") {
				t.Errorf("Grep: %+v", res)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a tool blocked on the FIFO")
		}
	}
}

// TestDanglingSymlinkOutWriteRefused: a symlink in the work dir to a file
// outside that does not exist yet was taken for a new file inside ("Create
// dangle"), and with --yolo WriteFile created the file outside. A dangling
// link is resolved like any other, and refused.
func TestDanglingSymlinkOutWriteRefused(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	outside := t.TempDir()
	links := map[string]string{
		"dangle":        filepath.Join(outside, "created.txt"),                   // absolute
		"dangle-rel":    "",                                                      // relative, through .. (set below)
		"dangle-chain":  "dangle-hop",                                            // a link to a dangling link
		"dangle-hop":    filepath.Join(outside, "created-chain.txt"),             //
		"dangle-dir":    filepath.Join(outside, "newdir"),                        // a missing dir
		"dangle-parent": filepath.Join(outside, "missing", "deeper", "file.txt"), // several missing levels
	}
	links["dangle-rel"] = relTo(t, env.WorkDir, filepath.Join(outside, "created-rel.txt"))
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(env.WorkDir, name)); err != nil {
			t.Skip("symlinks unsupported:", err)
		}
	}
	yolo := &Env{WorkDir: env.WorkDir, Files: rec}
	for _, path := range []string{"dangle", "dangle-rel", "dangle-chain", "dangle-dir/new.txt", "dangle-parent"} {
		mustErr(t, call(t, &WriteFile{}, yolo, map[string]any{"path": path, "content": "pwned"}), "symlink", "outside the work dir")
		mustErr(t, call(t, &WriteFile{}, yolo, map[string]any{"path": path, "content": "pwned", "mode": "append"}), "symlink", "outside the work dir")
		mustErr(t, call(t, &StrReplaceFile{}, yolo, map[string]any{"path": path, "old": "a", "new": "pwned"}), "symlink", "outside the work dir")
	}
	// Asked (no yolo), the approval never says "Create dangle": nothing is
	// asked at all, the write is refused.
	mustErr(t, call(t, &WriteFile{}, env, map[string]any{"path": "dangle", "content": "pwned"}), "symlink", "outside the work dir")
	if len(rec.approvals) != 0 {
		t.Fatalf("asked to approve a write through a dangling link: %+v", rec.approvals)
	}
	err := filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != outside {
			t.Errorf("created outside the work dir: %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if log := rec.Log(); len(log) != 0 {
		t.Fatalf("tracker called for refused writes: %v", log)
	}

	// A dangling link that stays inside the work dir is written through,
	// creating its target, and the tracker gets the target.
	if err := os.Symlink("sub/made.txt", filepath.Join(env.WorkDir, "inside-dangle")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(env.WorkDir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, &WriteFile{}, yolo, map[string]any{"path": "inside-dangle", "content": "ok\n"}))
	made := filepath.Join(env.WorkDir, "sub", "made.txt")
	if got := readFile(t, made); got != "ok\n" {
		t.Fatalf("inside dangling link: %q", got)
	}
	if log := rec.Log(); !slices.Contains(log, "before-write:"+made) {
		t.Fatalf("tracker log %v, want before-write of %s", log, made)
	}

	// A link loop is a bad path, not a hang.
	if err := os.Symlink("loop-b", filepath.Join(env.WorkDir, "loop-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop-a", filepath.Join(env.WorkDir, "loop-b")); err != nil {
		t.Fatal(err)
	}
	mustErr(t, call(t, &WriteFile{}, yolo, map[string]any{"path": "loop-a", "content": "x"}), "symlink")
}

// relTo is target relative to dir.
func relTo(t *testing.T, dir, target string) string {
	t.Helper()
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// WriteFile and StrReplaceFile say when the file's content could not be
// kept for rewinds (over file_size_cap).
func TestWritesNameAFileNotKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.log"), []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{notKept: []NotKeptFile{{Path: "big.log", Size: 6_000_000}}}
	env := &Env{WorkDir: dir, Files: rec}
	res := (&WriteFile{}).Call(context.Background(), env, json.RawMessage(`{"path":"big.log","content":"new\n","mode":"append"}`))
	if res.IsError || !strings.Contains(res.Output, "big.log (6 MB)") || !strings.Contains(res.Output, "file_size_cap") {
		t.Fatalf("WriteFile: %+v", res)
	}
	res = (&StrReplaceFile{}).Call(context.Background(), env, json.RawMessage(`{"path":"big.log","old":"new","new":"newer"}`))
	if res.IsError || !strings.Contains(res.Output, "big.log (6 MB)") {
		t.Fatalf("StrReplaceFile: %+v", res)
	}
}
