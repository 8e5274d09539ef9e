package store

import (
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestSnippetIsFTS4s: the snippets built from the record's text are the
// ones FTS4's snippet() made when the index held its own copy of the text
// (schema 12): generated texts (words, punctuation, newlines, accents,
// long and short) and queries (words, phrases, prefixes, OR) are run
// through both, on a content FTS4 table as migration 6 made it.
func TestSnippetIsFTS4s(t *testing.T) {
	t.Parallel()
	raw, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "fts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE VIRTUAL TABLE f USING fts4 (text, tokenize=unicode61, prefix="2,3", order=DESC)`); err != nil {
		t.Fatal(err)
	}
	words := []string{"the", "build", "builds", "fix", "error", "refactor", "test", "retry", "return", "deadlock",
		"café", "Crème", "naïve", "Über", "zeppelin", "quokka", "a", "of", "go", "x1", "v2.3", "snake_case", "日本語"}
	seps := []string{" ", " ", " ", ", ", ". ", "\n", " -- ", "(", ") ", ": ", "/", "\t", "!? "}
	rng := rand.New(rand.NewPCG(1, 2))
	var texts []string
	tx, err := raw.Begin() // one commit, not 400 synced ones
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		n := 1 + rng.IntN(60)
		if i%10 == 0 {
			n = 200 + rng.IntN(200)
		}
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		for j := range n {
			if j > 0 {
				b.WriteString(seps[rng.IntN(len(seps))])
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		if rng.IntN(3) == 0 {
			b.WriteString(".\n")
		}
		texts = append(texts, b.String())
		if _, err := tx.Exec(`INSERT INTO f (docid, text) VALUES (?, ?)`, i+1, b.String()); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	queries := []string{"build", "the", "fix error", "refactor test deadlock", "re*", "ret*", "bu*", "café", "creme",
		"über", `"fix error"`, `"the build"`, "zeppelin OR quokka", "build OR the", "naive cafe", "quo*", "日本語",
		"x1", "v2", "snake", "case", "the build fix error refactor", `"build fix" test*`, "of a"}
	compared := 0
	for _, in := range queries {
		q := ftsQuery(in)
		phrases := queryPhrases(q)
		rows, err := raw.Query(`SELECT docid, snippet(f, '«', '»', '…', -1, 16) FROM f WHERE f MATCH ? ORDER BY docid`, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var id int
			var want string
			if err := rows.Scan(&id, &want); err != nil {
				t.Fatal(err)
			}
			got, matched := snippet(texts[id-1], phrases)
			if got != want || !matched {
				t.Errorf("query %s, text %q:\n got %q (matched %v)\nwant %q", q, texts[id-1], got, matched, want)
			}
			compared++
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d snippets compared", compared)
	}
	t.Logf("%d snippets compared", compared)
}

// TestSnippetWithoutAMatch: a text the query's phrases are not in (a
// stale index entry) gives its start and matched false.
func TestSnippetWithoutAMatch(t *testing.T) {
	t.Parallel()
	got, matched := snippet("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen", queryPhrases(ftsQuery("zebra")))
	if matched || got != "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen…" {
		t.Fatalf("got %q, %v", got, matched)
	}
	if got, _ := snippet("", nil); got != "" {
		t.Fatalf("empty text: %q", got)
	}
}
