package filecp

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestOversizedChangesAreListedInEveryPlan (issue 20, item 6): a Shell
// command writes a file over the size cap and a small one; the command's
// scan names the big one, and every plan of a rewind over that command
// lists it as not kept (its size too), the dry run and the rewind alike,
// and leaves it alone.
func TestOversizedChangesAreListedInEveryPlan(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{MaxFileSize: 64 << 10})
	writeTree(t, e.root, map[string]string{"keep.txt": "k\n"})
	cp := e.checkpoint()
	info := e.shell(`head -c 70000 /dev/zero > big.bin && echo small > small.txt`)
	if len(info.Untracked) != 1 || info.Untracked[0].Path != "big.bin" || info.Untracked[0].Size != 70000 {
		t.Fatalf("the command's scan names %+v, want big.bin (70000 bytes)", info.Untracked)
	}
	e.message("done")
	want := []NotKept{{Path: "big.bin", Size: 70000}}
	dry := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{DryRun: true}))
	if !slices.Equal(dry.Deleted, []string{"small.txt"}) || !slices.Equal(dry.NotKept, want) {
		t.Fatalf("the dry run deletes %v and lists %+v as not kept, want small.txt and %+v", dry.Deleted, dry.NotKept, want)
	}
	rep := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{}))
	if !slices.Equal(rep.NotKept, want) {
		t.Fatalf("the revert lists %+v as not kept, want %+v", rep.NotKept, want)
	}
	if fi, err := os.Stat(e.path("big.bin")); err != nil || fi.Size() != 70000 {
		t.Fatalf("big.bin: %v", err)
	}
	// The agent's later write grows a kept file over the cap: the plan
	// names it with its size instead of skipping it without one.
	cp2 := e.checkpoint()
	e.writeFile("keep.txt", string(make([]byte, 80000)))
	e.message("done")
	dry = e.must(e.tr.RevertFiles(e.ctx, cp2, RevertOptions{DryRun: true}))
	if !slices.Equal(dry.NotKept, []NotKept{{Path: "keep.txt", Size: 80000}}) || len(dry.Skipped) != 0 {
		t.Fatalf("after keep.txt grew over the cap: not kept %+v, skipped %+v", dry.NotKept, dry.Skipped)
	}
}

// A write to a file over the cap says so to its caller (WriteFile's and
// StrReplaceFile's results name it), as a Shell command's scan does.
func TestBeforeWriteNamesAFileOverTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{MaxFileSize: 64 << 10})
	writeTree(t, e.root, map[string]string{"big.log": strings.Repeat("x", 70000), "small.txt": "s\n"})
	e.checkpoint()
	got, err := e.tr.BeforeWrite(e.ctx, []string{e.path("big.log"), e.path("small.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []NotKept{{Path: "big.log", Size: 70000}}; !slices.Equal(got, want) {
		t.Fatalf("BeforeWrite named %+v, want %+v", got, want)
	}
}
