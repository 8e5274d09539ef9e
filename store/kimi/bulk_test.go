package kimi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// shareDir builds a kimi-cli share dir: kimi.json naming workDirs, and for
// each session (work dir index → uuid → files) its context files.
type shareSession struct {
	workDir int // index into the work dirs; -1: a key kimi.json does not name
	uuid    string
	files   map[string]string // name → content
}

func writeShare(t *testing.T, workDirs []string, sessions []shareSession) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".kimi")
	var meta Metadata
	for _, w := range workDirs {
		meta.WorkDirs = append(meta.WorkDirs, WorkDirMeta{Path: w, Kaos: "local"})
	}
	data, _ := json.Marshal(meta)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, MetadataFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		key := "0123456789abcdef0123456789abcdef"
		if s.workDir >= 0 {
			key = meta.WorkDirs[s.workDir].Key()
		}
		sd := filepath.Join(dir, SessionsDir, key, s.uuid)
		if err := os.MkdirAll(sd, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range s.files {
			if err := os.WriteFile(filepath.Join(sd, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func importAll(t *testing.T, db *store.DB, path string, o BulkOptions) BulkResult {
	t.Helper()
	d, err := Discover(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ImportAll(context.Background(), db, d, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const (
	lineUser  = `{"role":"user","content":"fix the flaky lookahead test"}` + "\n"
	lineThink = `{"role":"assistant","content":[{"type":"think","think":"the map order"},{"type":"text","text":"Sorted the keys."}]}` + "\n"
	lineCP    = `{"role":"_checkpoint","id":0}` + "\n"
	lineUsage = `{"role":"_usage","token_count":321}` + "\n"
)

// TestImportShareDirTwice: a share dir with kimi.json imports every session
// with its recorded work dir, title (state file, else first prompt),
// rotated files as archived generations and think parts as reasoning; a
// second run imports nothing; a session that grew becomes a new generation
// on top of the old one (records shared), and ~/.kimi/sessions works too.
func TestImportShareDirTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	share := writeShare(t, []string{"/home/me/parser", "/home/me/site"}, []shareSession{
		{0, "uuid-a", map[string]string{"context.jsonl": lineCP + lineUser + lineThink + lineUsage, "state.json": `{"title":"Lookahead fix"}`}},
		{1, "uuid-b", map[string]string{"context_1.jsonl": lineUser, "context.jsonl": `{"role":"user","content":"deploy the site"}` + "\n"}},
		{1, "uuid-empty", map[string]string{"context.jsonl": ""}},
	})
	res := importAll(t, db, share, BulkOptions{WorkDir: "/fallback"})
	if res.Imported != 2 || res.Empty != 1 || res.Records != 6 || len(res.SessionIDs) != 2 {
		t.Fatalf("first run: %+v", res)
	}
	byTitle := map[string]store.Session{}
	for _, id := range res.SessionIDs {
		s, err := db.GetSession(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		byTitle[s.Title] = s
	}
	a, b := byTitle["Lookahead fix"], byTitle["fix the flaky lookahead test"] // b: the first prompt, in its rotated file
	if a.WorkDir != "/home/me/parser" || b.WorkDir != "/home/me/site" {
		t.Fatalf("work dirs not from kimi.json: %+v", byTitle)
	}
	if b.Generations != 2 {
		t.Errorf("rotated file: %d generations, want 2", b.Generations)
	}
	v, err := db.View(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.Records[2].Message()
	if err != nil || m.Content.Reasoning() != "the map order" || m.Content.PlainText() != "Sorted the keys." {
		t.Errorf("think part: reasoning %q, text %q (%v)", m.Content.Reasoning(), m.Content.PlainText(), err)
	}

	again := importAll(t, db, share, BulkOptions{WorkDir: "/fallback"})
	if again.Imported != 0 || again.Updated != 0 || again.Unchanged != 2 || again.Records != 0 || again.Bytes != 0 {
		t.Fatalf("second run imported again: %+v", again)
	}
	if n := len(listIDs(t, db)); n != 2 {
		t.Fatalf("%d sessions after two runs", n)
	}

	// kimi-cli appends to uuid-a; importing sessions/ picks up the growth.
	ctxFile := filepath.Join(share, SessionsDir, WorkDirMeta{Path: "/home/me/parser"}.Key(), "uuid-a", "context.jsonl")
	f, err := os.OpenFile(ctxFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"role":"user","content":"and the arm64 runner"}` + "\n")
	f.Close()
	grown := importAll(t, db, filepath.Join(share, SessionsDir), BulkOptions{WorkDir: "/fallback"})
	if grown.Updated != 1 || grown.Unchanged != 1 || grown.Records != 1 || grown.SessionIDs[0] != a.ID {
		t.Fatalf("after growth: %+v", grown)
	}
	if fi, err := os.Stat(ctxFile); err != nil || grown.Bytes != fi.Size() {
		t.Errorf("after growth: %d bytes counted, want the grown file's only (%v)", grown.Bytes, err)
	}
	gens, err := db.Generations(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 2 || gens[1].ParentGen == nil || *gens[1].ParentGen != 0 || gens[1].Cause != store.CauseImport {
		t.Fatalf("growth generation: %+v", gens)
	}
	if v, _ := db.View(ctx, a.ID); len(v.Records) != 5 {
		t.Errorf("grown view has %d records, want 5", len(v.Records))
	}
	if final := importAll(t, db, share, BulkOptions{}); final.Unchanged != 2 {
		t.Errorf("a run after the update: %+v", final)
	}
}

// TestImportTornFinalLine: a final line without a newline that does not
// parse (kimi-cli crashed mid-write) is skipped with a warning naming
// file:line; the same bad line followed by a newline is an error naming
// file:line and nothing of that session is imported, unless SkipInvalid.
func TestImportTornFinalLine(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	torn := `{"role":"assistant","content":"half a li`
	share := writeShare(t, []string{"/w"}, []shareSession{
		{0, "torn", map[string]string{"context.jsonl": lineUser + torn}},
	})
	var warnings []string
	res := importAll(t, db, share, BulkOptions{Warn: func(w string) { warnings = append(warnings, w) }})
	if res.Imported != 1 || res.Records != 1 {
		t.Fatalf("torn file: %+v", res)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "context.jsonl:2: torn final line") {
		t.Errorf("warnings %q", warnings)
	}

	bad := writeShare(t, []string{"/w"}, []shareSession{
		{0, "bad", map[string]string{"context.jsonl": lineUser + torn + "\n" + lineUsage}},
	})
	d, err := Discover(bad)
	if err != nil {
		t.Fatal(err)
	}
	before := listIDs(t, db)
	_, err = ImportAll(context.Background(), db, d, BulkOptions{})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || !strings.Contains(err.Error(), "context.jsonl:2:") {
		t.Fatalf("bad line: %v, want a LineError at line 2", err)
	}
	if after := listIDs(t, db); len(after) != len(before) {
		t.Fatalf("a session with a bad line was imported: %v", after)
	}
	skipped := importAll(t, db, bad, BulkOptions{SkipInvalid: true})
	if skipped.Imported != 1 || skipped.Records != 2 {
		t.Errorf("--skip-invalid: %+v", skipped)
	}
}

// TestImportMD5CollisionGuard: kimi.json may hold one directory twice,
// spelled with and without a trailing slash. The two spellings have
// different md5 keys: each session is found under its own key, and both
// land in the one clean work dir; an unknown key is reported, not guessed.
func TestImportMD5CollisionGuard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	share := writeShare(t, []string{"/x/proj", "/x/proj/", "/x/proj2"}, []shareSession{
		{0, "s1", map[string]string{"context.jsonl": `{"role":"user","content":"one"}` + "\n"}},
		{1, "s2", map[string]string{"context.jsonl": `{"role":"user","content":"two"}` + "\n"}},
		{2, "s3", map[string]string{"context.jsonl": `{"role":"user","content":"three"}` + "\n"}},
		{-1, "s4", map[string]string{"context.jsonl": `{"role":"user","content":"four"}` + "\n"}},
	})
	if k0, k1 := (WorkDirMeta{Path: "/x/proj"}).Key(), (WorkDirMeta{Path: "/x/proj/"}).Key(); k0 == k1 {
		t.Fatal("the two spellings share a key")
	}
	d, err := Discover(share)
	if err != nil {
		t.Fatal(err)
	}
	if n := d.Unmapped["0123456789abcdef0123456789abcdef"]; n != 1 || len(d.Unmapped) != 1 {
		t.Errorf("unmapped %v, want the one unknown key", d.Unmapped)
	}
	res, err := ImportAll(ctx, db, d, BulkOptions{WorkDir: "/fallback"})
	if err != nil || res.Imported != 4 {
		t.Fatalf("%+v %v", res, err)
	}
	got := map[string]string{}
	for _, id := range res.SessionIDs {
		s, _ := db.GetSession(ctx, id)
		got[s.Title] = s.WorkDir
	}
	want := map[string]string{"one": "/x/proj", "two": "/x/proj", "three": "/x/proj2", "four": "/fallback"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("work dirs %v, want %v", got, want)
	}
	// A kaos other than local prefixes the key.
	if k := (WorkDirMeta{Path: "/x/proj", Kaos: "ssh"}).Key(); !strings.HasPrefix(k, "ssh_") {
		t.Errorf("kaos key %q", k)
	}
}

// TestImportAllSessionsLargerThanTheReadAhead: the reader runs ahead of the
// writer by a budget of records; a session larger than the whole budget,
// between small ones, still imports (it waits for the writer to take the
// rest).
func TestImportAllSessionsLargerThanTheReadAhead(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	var sessions []shareSession
	for i, n := range []int{1, 30, 2, 50, 1, 1} {
		sessions = append(sessions, shareSession{0, fmt.Sprintf("uuid-%d", i), map[string]string{
			"context.jsonl": strings.Repeat(lineUser, n),
			"state.json":    fmt.Sprintf(`{"title":"session %d"}`, i),
		}})
	}
	share := writeShare(t, []string{"/w"}, sessions)
	res := importAll(t, db, share, BulkOptions{BatchRecords: 2}) // a budget of 4 records
	if res.Imported != 6 || res.Records != 85 {
		t.Fatalf("imported %+v, want 6 sessions and 85 records", res)
	}
	titles := map[string]bool{}
	for _, id := range res.SessionIDs {
		s, err := db.GetSession(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		titles[s.Title] = true
	}
	for i := range sessions {
		if want := fmt.Sprintf("session %d", i); !titles[want] {
			t.Errorf("%q was not imported: %v", want, titles)
		}
	}
}
