package tools

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestSimilarity(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"go test ./...", "go test ./...", 1},
		{"go  test\t./...", "go test ./...", 1},
		{"kitten", "sitting", 1 - 3.0/7},
		{"abc", "xyz", 0},
		{"abc", "abcd", 0.75},
	}
	for _, c := range cases {
		if got := Similarity(c.a, c.b); fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", c.want) {
			t.Errorf("Similarity(%q, %q) = %.4f, want %.4f", c.a, c.b, got, c.want)
		}
	}
}

func TestLoopDetector(t *testing.T) {
	t.Parallel()
	d := NewLoopDetector()
	if w, n := d.Record("go test ./store/..."); w != "" || n != 1 {
		t.Fatalf("first command: count %d, warned: %s", n, w)
	}
	if w, n := d.Record("go test ./store/...  "); w != "" || n != 2 {
		t.Fatalf("second in a row: count %d, warned: %s", n, w)
	}
	// ≥85 % similar: one character differs in 19.
	w, n := d.Record("go test ./store/..,")
	if !strings.Contains(w, "3 times in a row") || n != 3 {
		t.Fatalf("third similar command in a row: count %d, %q", n, w)
	}
	if w, n := d.Record("go test ./store/..."); !strings.Contains(w, "4 times") || n != 4 {
		t.Fatalf("fourth: count %d, %q", n, w)
	}
	// Below 85 %: the streak starts again.
	if w, n := d.Record("go vet ./soul/tools/"); w != "" || n != 1 {
		t.Fatalf("dissimilar command: count %d, warned: %s", n, w)
	}
	d.Reset()
	if w, n := d.Record("go test ./store/..."); w != "" || n != 1 {
		t.Fatalf("after Reset: count %d, warned: %s", n, w)
	}
}

// Running the tests after each edit is how work goes, not a loop: only
// near-identical calls one after the other count, as in kimi-cli.
func TestLoopDetectorIgnoresRepeatsApart(t *testing.T) {
	t.Parallel()
	d := NewLoopDetector()
	for i := 0; i < 6; i++ {
		if w, n := d.Record(fmt.Sprintf("StrReplaceFile {\"path\":\"main.go\",\"old\":\"v%d\"}", i*1000)); w != "" {
			t.Fatalf("edit %d warned (count %d): %s", i, n, w)
		}
		if w, n := d.Record("go test ./..."); w != "" || n != 1 {
			t.Fatalf("go test after edit %d: count %d, warned: %s", i, n, w)
		}
	}
}

func TestLoopDetectorOff(t *testing.T) {
	t.Parallel()
	d := &LoopDetector{Threshold: -1}
	for i := 0; i < 10; i++ {
		if w, _ := d.Record("make"); w != "" {
			t.Fatalf("a detector turned off warned: %s", w)
		}
	}
}

func TestLoopDetectorThresholdAndConcurrency(t *testing.T) {
	t.Parallel()
	d := &LoopDetector{Threshold: 5, Similarity: 1}
	var wg sync.WaitGroup
	warnings := make(chan string, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w, _ := d.Record("make"); w != "" {
				warnings <- w
			}
		}()
	}
	wg.Wait()
	close(warnings)
	if n := len(warnings); n != 6 { // the 5th … 10th
		t.Fatalf("got %d warnings, want 6", n)
	}
	if w, _ := d.Record("make " + strings.Repeat("x", 2000)); w != "" {
		t.Fatalf("long distinct command warned: %s", w)
	}
}
