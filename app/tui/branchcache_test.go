package tui

import "testing"

// TestBranchCacheKeepsOneLine: fork points are kept for one (session,
// current generation) only, so the cache is bounded by one session's
// generations and a new current generation never reads stale entries.
func TestBranchCacheKeepsOneLine(t *testing.T) {
	t.Parallel()
	var b branchCache
	for g := 0; g < 5; g++ {
		b.put(branchKey{"a", 5, g}, g+10)
	}
	if fc, ok := b.get(branchKey{"a", 5, 3}); !ok || fc != 13 {
		t.Fatalf("get = %d %v", fc, ok)
	}
	if _, ok := b.get(branchKey{"a", 6, 3}); ok {
		t.Fatal("an entry of generation 5's line served for generation 6")
	}
	b.put(branchKey{"b", 1, 0}, 7)
	if _, ok := b.get(branchKey{"a", 5, 3}); ok || len(b.forks) != 1 {
		t.Fatalf("session a's entries kept after session b's: %v", b.forks)
	}
}
