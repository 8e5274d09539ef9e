package store

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rewind-agent/rewind/store/message"
)

// FuzzSearchQuery: whatever the user types into search, the FTS query built
// from it is never an SQLite syntax error, and a query whose words appear
// in a message finds that message.
func FuzzSearchQuery(f *testing.F) {
	for _, s := range []string{`refactor parser`, `"exact phrase" OR docs*`, `"unbalanced`, `a OR OR b OR`,
		`NEAR(a b)`, `-x +y ^z`, `col:value`, `*`, `""`, `é漢字 ünïcode`, "tab\tand\nnewline", "refactor"} {
		f.Add(s)
	}
	db := openTest(f)
	sid := newSession(f, db, "fuzz", "/w").ID
	if _, err := db.AppendMessage(bg, sid, message.NewText("user", "refactor the parser module")); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q := ftsQuery(in)
		if !utf8.ValidString(q) && utf8.ValidString(in) {
			t.Fatalf("ftsQuery(%q) = %q is not UTF-8", in, q)
		}
		hits, err := db.Search(bg, SearchOptions{Query: in, Limit: 5})
		if err != nil {
			t.Fatalf("Search(%q) (fts %q): %v", in, q, err)
		}
		if strings.EqualFold(strings.TrimSpace(in), "refactor") && len(hits) != 1 {
			t.Fatalf("Search(%q) found %d messages, want the one", in, len(hits))
		}
	})
}
