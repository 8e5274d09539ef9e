package main

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestFilesOverTheCapAreNamed (issue 20, item 6): a Shell call writes a
// 6 MB big.bin and small.txt. The tool result names big.bin as not kept,
// and the revert's dry run and the revert itself list it ("not kept:
// big.bin, 6 MB, over file_size_cap") beside small.txt.
func TestFilesOverTheCapAreNamed(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "Shell", map[string]any{"command": "head -c 6000000 /dev/zero > big.bin && echo small > small.txt"})),
		llmtest.Text("written"),
	)
	e := newEnv(t).withServer(srv)
	e.mustOK("-p", "write two files", "--yolo")
	id := e.onlySession()
	if show := e.mustOK("show", id).stdout; !strings.Contains(show, "big.bin (6 MB)") {
		t.Errorf("the tool result does not name big.bin:\n%s", show)
	}
	notKept := "  not kept: big.bin, 6 MB, over file_size_cap"
	expectLines(t, "revert --dry-run", e.mustOK("revert", id, "0", "--files", "--dry-run").stdout,
		"  delete    small.txt", notKept)
	expectLines(t, "revert", e.mustOK("revert", id, "0", "--files").stdout,
		"  deleted   small.txt", notKept)
}
