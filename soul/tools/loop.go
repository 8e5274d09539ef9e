package tools

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rewind-agent/rewind/internal/words"
)

// LoopDetector watches the tool calls of one run and warns when the model
// makes the same or a nearly identical call several times in a row, as
// kimi-cli's repeat detection does. Calls apart from each other are normal
// work (the tests after each edit) and reset the streak.
//
// Similarity is 1 − Levenshtein(a, b) / max(len a, len b) over runes of the
// whitespace-normalised calls (internal/words.Levenshtein, shared with the
// CLI's "did you mean").
type LoopDetector struct {
	// Threshold is how many similar calls in a row (this one included)
	// trigger a warning; 0 means 3, a negative value turns warnings off.
	Threshold int
	// Similarity is the ratio at or above which two calls count as the
	// same; 0 means 0.85.
	Similarity float64

	mu     sync.Mutex
	last   []rune
	streak int
}

const (
	loopDefaultThreshold  = 3
	loopDefaultSimilarity = 0.85
	loopMaxRunes          = 500 // longer calls are compared on their first 500 runes
)

// NewLoopDetector returns a detector with the defaults (3 in a row, 85 %).
func NewLoopDetector() *LoopDetector { return &LoopDetector{} }

// Reset forgets the recorded calls (call it when a run starts).
func (d *LoopDetector) Reset() {
	d.mu.Lock()
	d.last, d.streak = nil, 0
	d.mu.Unlock()
}

// Record notes a tool call (a Shell command, or a tool's name and
// arguments). count is the length of the streak of similar calls it ends;
// warning is the note for the model once count reaches the threshold.
func (d *LoopDetector) Record(call string) (warning string, count int) {
	threshold, sim := d.Threshold, d.Similarity
	if threshold == 0 {
		threshold = loopDefaultThreshold
	}
	if sim <= 0 {
		sim = loopDefaultSimilarity
	}
	cur := []rune(strings.Join(strings.Fields(call), " "))
	if len(cur) > loopMaxRunes {
		cur = cur[:loopMaxRunes]
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.last != nil && similarity(d.last, cur, sim) >= sim {
		d.streak++
	} else {
		d.streak = 1
	}
	d.last = cur
	if threshold < 0 || d.streak < threshold {
		return "", d.streak
	}
	return fmt.Sprintf("Loop warning: this call or a nearly identical one has now been made %d times in a row. Repeating it is not making progress; stop, think about why it keeps failing, and try a different approach (or ask the user).", d.streak), d.streak
}

// Similarity returns 1 − Levenshtein/max length of two commands (after
// whitespace normalisation), in [0, 1].
func Similarity(a, b string) float64 {
	ra := []rune(strings.Join(strings.Fields(a), " "))
	rb := []rune(strings.Join(strings.Fields(b), " "))
	return similarity(ra, rb, 0)
}

// similarity is the ratio; when the lengths alone rule out reaching floor
// it returns a cheap upper bound below floor instead.
func similarity(a, b []rune, floor float64) float64 {
	la, lb := len(a), len(b)
	longest := max(la, lb)
	if longest == 0 {
		return 1
	}
	if bound := 1 - float64(abs(la-lb))/float64(longest); bound < floor {
		return bound
	}
	return 1 - float64(words.Levenshtein(a, b))/float64(longest)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
