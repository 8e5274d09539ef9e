package kimi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// viewText is a session's current view as text: each record's kind,
// role, counters and body.
func viewText(t *testing.T, db *store.DB, id string) string {
	t.Helper()
	v, err := db.View(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range v.Records {
		fmt.Fprintf(&b, "%s %s %d %d %s\n", r.Kind, r.Role, r.CheckpointID, r.TokenCount, r.Body)
	}
	return b.String()
}

// TestGrownSessionParsesOnlyItsNewLines: re-importing a session whose
// context file grew parses the lines added since the last import, not the
// whole file (BulkResult.Parsed counts the records parsed), and its view
// is what importing the grown file afresh makes: a last line the first
// import met torn and kimi-cli then finished counts once (and is not
// warned of again), a last line that was whole without its newline is not
// taken twice, and a long line added says its own line number.
func TestGrownSessionParsesOnlyItsNewLines(t *testing.T) {
	t.Parallel()
	const turns = 100 // 4 records each; the file is read 256 KiB at a time, so any count is one read
	var before strings.Builder
	for i := range turns {
		fmt.Fprintf(&before, `{"role":"_checkpoint","id":%d}`+"\n", i)
		fmt.Fprintf(&before, `{"role":"user","content":"step %d"}`+"\n", i)
		before.WriteString(lineThink)
		fmt.Fprintf(&before, `{"role":"_usage","token_count":%d}`+"\n", 100+i)
	}
	long := `{"role":"tool","tool_call_id":"c9","content":"` + strings.Repeat("x", 3000) + `"}` + "\n"
	for _, tc := range []struct {
		name       string
		first, add string // the file at the first import, then what is appended
		records    int    // records the re-import adds
		parsed     int    // records it parses: the new lines', and the old last line's when it had no newline
	}{
		{"whole lines", before.String(), lineUser + lineUsage + long, 3, 3},
		{"a torn last line finished", before.String() + `{"role":"user","content":"half`, ` a line"}` + "\n" + lineUsage, 2, 2},
		{"a whole last line without its newline", before.String() + strings.TrimSuffix(lineUser, "\n"), "\n" + lineUsage, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			share := writeShare(t, []string{"/w"}, []shareSession{{0, "grows", map[string]string{"context.jsonl": tc.first}}})
			o := BulkOptions{MaxLine: 2048}
			db := openDB(t)
			first := importAll(t, db, share, o)
			if first.Imported != 1 {
				t.Fatalf("first import: %+v", first)
			}
			cur := filepath.Join(share, SessionsDir, WorkDirMeta{Path: "/w"}.Key(), "grows", "context.jsonl")
			f, err := os.OpenFile(cur, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(tc.add); err != nil {
				t.Fatal(err)
			}
			f.Close()
			var warnings []string
			o.Warn = func(w string) { warnings = append(warnings, w) }
			grown := importAll(t, db, share, o)
			if len(warnings) > 0 {
				t.Errorf("re-import warned %q", warnings)
			}
			o.Warn = nil
			if grown.Updated != 1 || grown.Records != tc.records {
				t.Fatalf("re-import: %+v, want 1 updated with %d records", grown, tc.records)
			}
			if grown.Parsed != tc.parsed {
				t.Errorf("re-import parsed %d records, want %d (the new lines only)", grown.Parsed, tc.parsed)
			}
			fresh := openDB(t)
			whole := importAll(t, fresh, share, o)
			if got, want := viewText(t, db, first.SessionIDs[0]), viewText(t, fresh, whole.SessionIDs[0]); got != want {
				t.Errorf("grown view differs from a fresh import's:\n got %.300s…\nwant %.300s…", got[max(len(got)-600, 0):], want[max(len(want)-600, 0):])
			}
			if again := importAll(t, db, share, o); again.Unchanged != 1 || again.Parsed != 0 {
				t.Errorf("a run after the update: %+v", again)
			}
		})
	}
}
