package main

// The database's own guarantees end to end through the binary: damage is
// found whatever the file's times say.

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestDamageHiddenByTouchIsFound is the attack of issue 20 item 9 with the
// same tools: pages of a real database overwritten by `dd conv=notrunc`,
// then its mtime put back with `touch -d`. The next write is refused as on
// any damaged file, and the .checked stamp is not rewritten. (The cache
// answered from size and mtime: rewind wrote a session onto the damaged
// file and stamped it again.)
func TestDamageHiddenByTouchIsFound(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"dd", "touch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	for i := range 12 {
		srv.Enqueue(llmtest.Text(strings.Repeat(fmt.Sprintf("answer %d fills a page or two. ", i), 60)))
		e.mustOK("-p", fmt.Sprintf("question %d", i))
	}
	var pages int64
	db, err := sql.Open("sqlite3", e.dbPath()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil || pages < 10 {
		t.Fatalf("page_count %d: %v", pages, err)
	}
	db.Close()
	st, err := os.Stat(e.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	stamp, _ := os.ReadFile(e.dbPath() + ".checked")
	mtime := fmt.Sprintf("@%d.%09d", st.ModTime().Unix(), st.ModTime().Nanosecond())
	for _, args := range [][]string{
		{"dd", "if=/dev/urandom", "of=" + e.dbPath(), "bs=4096", fmt.Sprintf("seek=%d", pages/2), "count=3", "conv=notrunc", "status=none"},
		{"touch", "-d", mtime, e.dbPath()},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	if after, _ := os.Stat(e.dbPath()); after.Size() != st.Size() || !after.ModTime().Equal(st.ModTime()) {
		t.Fatalf("size or mtime changed (%d %v, was %d %v): the damage is not hidden", after.Size(), after.ModTime(), st.Size(), st.ModTime())
	}
	before, _ := os.ReadFile(e.dbPath())

	srv.Enqueue(llmtest.Text("never asked"))
	expectError(t, e.run("-p", "one more question"), 1, "is damaged", ".recover")
	if after, _ := os.ReadFile(e.dbPath()); !bytes.Equal(before, after) {
		t.Error("the damaged database was written to")
	}
	if got, _ := os.ReadFile(e.dbPath() + ".checked"); !bytes.Equal(got, stamp) {
		t.Errorf("the .checked stamp was rewritten over the damaged file: %q, was %q", got, stamp)
	}
	if got := len(srv.Requests()); got != 12 {
		t.Errorf("the model was asked %d times, want 12 (none after the damage)", got)
	}
}
