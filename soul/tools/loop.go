package tools

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rewind-agent/rewind/internal/words"
)

// LoopDetector watches the shell commands of one run and warns when the
// model keeps running the same or a nearly identical command.
//
// Similarity is 1 − Levenshtein(a, b) / max(len a, len b) over runes of the
// whitespace-normalised commands (internal/words.Levenshtein, shared with
// the CLI's "did you mean").
type LoopDetector struct {
	// Threshold is how many similar commands (this one included) trigger a
	// warning; 0 means 3.
	Threshold int
	// Similarity is the ratio at or above which two commands count as the
	// same; 0 means 0.85.
	Similarity float64

	mu   sync.Mutex
	seen [][]rune
}

const (
	loopDefaultThreshold  = 3
	loopDefaultSimilarity = 0.85
	loopMaxRunes          = 500 // longer commands are compared on their first 500 runes
	loopMaxHistory        = 200
)

// NewLoopDetector returns a detector with the defaults (3 repeats, 85 %).
func NewLoopDetector() *LoopDetector { return &LoopDetector{} }

// Reset forgets the recorded commands (call it when a run starts).
func (d *LoopDetector) Reset() {
	d.mu.Lock()
	d.seen = nil
	d.mu.Unlock()
}

// Record notes a shell command. count is how many of the recorded commands,
// this one included, are similar to it; warning is the note for the model
// once count reaches the threshold, else "".
func (d *LoopDetector) Record(command string) (warning string, count int) {
	threshold, sim := d.Threshold, d.Similarity
	if threshold <= 0 {
		threshold = loopDefaultThreshold
	}
	if sim <= 0 {
		sim = loopDefaultSimilarity
	}
	cmd := []rune(strings.Join(strings.Fields(command), " "))
	if len(cmd) > loopMaxRunes {
		cmd = cmd[:loopMaxRunes]
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	count = 1
	for _, prev := range d.seen {
		if similarity(prev, cmd, sim) >= sim {
			count++
		}
	}
	d.seen = append(d.seen, cmd)
	if len(d.seen) > loopMaxHistory {
		d.seen = d.seen[len(d.seen)-loopMaxHistory:]
	}
	if count < threshold {
		return "", count
	}
	return fmt.Sprintf("Loop warning: this command or a nearly identical one has now been run %d times in this run. Repeating it is not making progress; stop, think about why it keeps failing, and try a different approach (or ask the user).", count), count
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
