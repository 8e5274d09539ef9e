package filecp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

const diffContext = 3

// maxDiffBytes caps one file's diff.
const maxDiffBytes = 256 << 10

func utf8Valid(b []byte) bool { return utf8.Valid(b) }

type diffLine struct {
	op   byte // ' ', '-', '+'
	text string
}

// UnifiedDiff returns a unified diff from old to new content of path; nil
// content means the file does not exist on that side. Binary content gives
// a one-line "Binary files differ". Equal contents give "".
func UnifiedDiff(path string, old, new []byte) string {
	if string(old) == string(new) && (old == nil) == (new == nil) {
		return ""
	}
	from, to := "a/"+path, "b/"+path
	if old == nil {
		from = "/dev/null"
	}
	if new == nil {
		to = "/dev/null"
	}
	if isBinary(old) || isBinary(new) {
		return fmt.Sprintf("Binary files %s and %s differ\n", from, to)
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
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
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
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].op != ' ' {
				if j-end > 2*diffContext {
					break
				}
				end = j
			}
		}
		stop := min(len(ops), end+diffContext+1)
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(oldNo[start], oldNo[stop]-oldNo[start]), hunkRange(newNo[start], newNo[stop]-newNo[start]))
		for _, o := range ops[start:stop] {
			b.WriteByte(o.op)
			b.WriteString(o.text)
			if !strings.HasSuffix(o.text, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		if b.Len() > maxDiffBytes {
			return strings.ToValidUTF8(b.String()[:maxDiffBytes], "") + "\n… diff truncated …\n"
		}
		i = stop
	}
	return b.String()
}

func hunkRange(start0, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start0)
	case 1:
		return fmt.Sprintf("%d", start0+1)
	}
	return fmt.Sprintf("%d,%d", start0+1, n)
}
