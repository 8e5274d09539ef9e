package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/kimi"
)

// A re-run that finds nothing new says so plainly (it said "imported 0
// sessions … 0 updated, 1000 unchanged"), and its size is what was read: a
// session that grew by 4 records is hashed whole ("4 records, 0.9 MB" read
// as if 0.9 MB were new).
func TestImportSummary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		res  kimi.BulkResult
		want string
	}{
		{kimi.BulkResult{Unchanged: 1000, Empty: 20}, "nothing new: 1,000 sessions already imported, 20 sessions skipped (empty)"},
		{kimi.BulkResult{Unchanged: 1}, "nothing new: 1 session already imported"},
		{kimi.BulkResult{Imported: 2, Records: 2000, Bytes: 1_500_000}, "imported 2 sessions (2,000 records, 1.5 MB read) in 1s, 2,000 records/s"},
		{kimi.BulkResult{Updated: 1, Records: 1, Bytes: 900, Unchanged: 979}, "updated 1 session that grew (1 record, 0.0 MB read) in 1s, 1 records/s; 979 sessions already imported"},
		{kimi.BulkResult{Imported: 1, Updated: 3, Unchanged: 996, Records: 50, Bytes: 1000},
			"imported 1 session, updated 3 sessions that grew (50 records, 0.0 MB read) in 1s, 50 records/s; 996 sessions already imported"},
	} {
		if got := importSummary(c.res, time.Second, "kimi-cli"); got != c.want {
			t.Errorf("importSummary(%+v)\n got %q\nwant %q", c.res, got, c.want)
		}
	}
}

// TestImportOfANonSessionFile: a file that is not JSON lines at all (a PNG
// given by mistake) is named as not a session file; fixing "line 1" or
// --skip-invalid would not help it. A session file with one bad line still
// points at the line.
func TestImportOfANonSessionFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	png := filepath.Join(dir, "pic.png")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := importFailed(&kimi.LineError{File: png, Line: 1, Err: errors.New(`want a JSON object, got "\x89PNG"`)}, png, 0, 1)
	if msg := err.Error(); !strings.Contains(msg, "pic.png is not a session file") || strings.Contains(msg, "--skip-invalid") || strings.Contains(msg, "\x89") {
		t.Fatalf("non-session file: %q", msg)
	}
	jsonl := filepath.Join(dir, "context.jsonl")
	if err := os.WriteFile(jsonl, []byte("{\"role\":\"user\",\"content\":\"hi\"}\n{oops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = importFailed(&kimi.LineError{File: jsonl, Line: 2, Err: errors.New("invalid character 'o'")}, jsonl, 0, 1)
	if msg := err.Error(); !strings.Contains(msg, "context.jsonl:2:") || !strings.Contains(msg, "--skip-invalid") {
		t.Fatalf("bad line: %q", msg)
	}
}
