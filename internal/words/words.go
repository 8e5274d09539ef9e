// Package words holds the small text helpers several packages share (the
// CLI, the TUI, time travel, the tools), so each is written once.
package words

import (
	"fmt"
	"strconv"
	"strings"
)

// Plural is one when n is 1, else many: Plural(n, "message", "messages").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// AlsoInSessions is how a search hit shared with n other sessions (its
// source or forks) says so, in the CLI and the TUI alike: "(+1 session)",
// "(+2 sessions)".
func AlsoInSessions(n int) string {
	return fmt.Sprintf("(+%d %s)", n, Plural(n, "session", "sessions"))
}

// Thousands formats 128000 as "128,000".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Levenshtein is the edit distance between a and b, in runes (two-row
// dynamic programming). The CLI's "did you mean" and the tools' loop
// detector both use it; one small function is not worth a dependency.
func Levenshtein(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Size formats a byte count for people: "6 MB", "5.2 MB", "70 KB" (decimal
// units, as ls -h --si and most tools print them).
func Size(n int64) string {
	unit, div := "bytes", 1.0
	switch {
	case n >= 1e9:
		unit, div = "GB", 1e9
	case n >= 1e6:
		unit, div = "MB", 1e6
	case n >= 1e3:
		unit, div = "KB", 1e3
	}
	if unit == "bytes" {
		return fmt.Sprintf("%d %s", n, Plural(int(n), "byte", "bytes"))
	}
	s := strconv.FormatFloat(float64(n)/div, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + unit
}

// Clip cuts s to at most n runes, marking the cut with an ellipsis: the
// CLI's table cells, a tool call's one-line summary, a thought's first line.
func Clip(s string, n int) string {
	if len(s) <= n { // n bytes are at most n runes
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Count is n and its noun, the noun made plural by English's regular
// rules: "1 line", "3 lines", "2 matches", "4 entries".
func Count(n int, word string) string {
	switch {
	case n == 1:
		return fmt.Sprintf("%d %s", n, word)
	case strings.HasSuffix(word, "ch"), strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"):
		return fmt.Sprintf("%d %ses", n, word)
	case strings.HasSuffix(word, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}
