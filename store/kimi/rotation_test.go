package kimi

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Early kimi-cli versions kept the context in history.jsonl, and rotated
// files as NAME.jsonl.N before NAME_N.jsonl: all of them are read, oldest
// first, the current file last.
func TestSessionFilesReadsOlderRotationNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		files []string
		want  []string
	}{
		{[]string{"context.jsonl", "context_2.jsonl", "context_1.jsonl", "notes.txt"}, []string{"context_1.jsonl", "context_2.jsonl", "context.jsonl"}},
		{[]string{"context.jsonl", "context.jsonl.2", "context.jsonl.1"}, []string{"context.jsonl.1", "context.jsonl.2", "context.jsonl"}},
		{[]string{"history.jsonl"}, []string{"history.jsonl"}},
		{[]string{"history.jsonl", "history.jsonl.1", "history_2.jsonl"}, []string{"history.jsonl.1", "history_2.jsonl", "history.jsonl"}},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		for _, f := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("{\"role\":\"user\",\"content\":\"hi\"}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		got, err := SessionFiles(dir)
		if err != nil {
			t.Fatalf("%v: %v", tc.files, err)
		}
		for i := range got {
			got[i] = filepath.Base(got[i])
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: SessionFiles = %v, want %v", tc.files, got, tc.want)
		}
	}
}

// A history.jsonl session dir is a session, as a context.jsonl one is.
func TestDiscoverHistoryJSONLSessionDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte("{\"role\":\"user\",\"content\":\"hi\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Discover(dir)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if len(d.Sources) != 1 || len(d.Sources[0].Files) != 1 || filepath.Base(d.Sources[0].Files[0]) != "history.jsonl" {
		t.Fatalf("sources = %+v", d.Sources)
	}
}
