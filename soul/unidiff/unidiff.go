package unidiff

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffContext is the number of unchanged lines around each hunk.
const diffContext = 3

// maxDiffBytes caps the diff put into an approval request.
const maxDiffBytes = 256 << 10

type diffLine struct {
	op   byte // ' ', '-', '+'
	text string
}

// Unified returns a unified diff of old → new for path ("" when equal).
// nil content means the file does not exist on that side (/dev/null).
// Callers decide what to do with binary content; this diffs lines.
func Unified(path string, old, new []byte) string {
	if string(old) == string(new) && (old == nil) == (new == nil) {
		return ""
	}
	dmp := diffmatchpatch.New()
	r1, r2, lines := dmp.DiffLinesToRunes(string(old), string(new))
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(r1, r2, false), lines)

	var ops []diffLine
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				ops = append(ops, diffLine{op, l})
			}
		}
	}

	var b strings.Builder
	from, to := "a/"+path, "b/"+path
	if old == nil {
		from = "/dev/null"
	}
	if new == nil {
		to = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)

	// oldNo[i], newNo[i]: line numbers (0-based) before ops[i].
	oldNo := make([]int, len(ops)+1)
	newNo := make([]int, len(ops)+1)
	for i, o := range ops {
		oldNo[i+1], newNo[i+1] = oldNo[i], newNo[i]
		if o.op != '+' {
			oldNo[i+1]++
		}
		if o.op != '-' {
			newNo[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].op == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i // last changed index of the hunk
		for j := i; j < len(ops); j++ {
			if ops[j].op != ' ' {
				if j-end > 2*diffContext {
					break
				}
				end = j
			}
		}
		stop := min(len(ops), end+diffContext+1)
		oldLen := oldNo[stop] - oldNo[start]
		newLen := newNo[stop] - newNo[start]
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(oldNo[start], oldLen), hunkRange(newNo[start], newLen))
		for _, o := range ops[start:stop] {
			b.WriteByte(o.op)
			b.WriteString(o.text)
			if !strings.HasSuffix(o.text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		if b.Len() > maxDiffBytes {
			s := b.String()[:maxDiffBytes]
			return strings.ToValidUTF8(s, "") + "\n… diff truncated …\n"
		}
		i = stop
	}
	return b.String()
}

// hunkRange formats "start,len" of a hunk header (1-based; start is the
// line before an empty range).
func hunkRange(start0, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start0)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start0+1)
	}
	return fmt.Sprintf("%d,%d", start0+1, n)
}
