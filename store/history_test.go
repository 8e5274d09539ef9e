package store

import (
	"fmt"
	"slices"
	"testing"
)

func TestInputHistoryPerWorkDir(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	for _, e := range []struct{ dir, text string }{
		{"/a", "first"}, {"/b", "elsewhere"}, {"/a", "second"}, {"/a", "second"}, {"/a", "multi\nline"},
	} {
		if err := db.AddInputHistory(bg, e.dir, e.text); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.InputHistory(bg, "/a", 10)
	if err != nil || !slices.Equal(got, []string{"first", "second", "multi\nline"}) {
		t.Fatalf("history of /a = %q, %v", got, err)
	}
	if got, _ := db.InputHistory(bg, "/a", 2); !slices.Equal(got, []string{"second", "multi\nline"}) {
		t.Fatalf("newest two = %q", got)
	}
	for i := range MaxInputHistory + 5 {
		if err := db.AddInputHistory(bg, "/c", fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := db.Reader().QueryRow("SELECT count(*) FROM input_history WHERE work_dir = '/c'").Scan(&n); err != nil || n != MaxInputHistory {
		t.Fatalf("kept %d entries, want %d (%v)", n, MaxInputHistory, err)
	}
}
