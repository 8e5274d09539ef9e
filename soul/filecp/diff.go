package filecp

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/rewind-agent/rewind/soul/unidiff"
)

// UnifiedDiff returns a unified diff from old to new content of path; nil
// content means the file does not exist on that side. Binary content gives
// a one-line "Binary files differ". Equal contents give "".
func UnifiedDiff(path string, old, new []byte) string {
	if string(old) == string(new) && (old == nil) == (new == nil) {
		return ""
	}
	if isBinary(old) || isBinary(new) {
		from, to := "a/"+path, "b/"+path
		if old == nil {
			from = "/dev/null"
		}
		if new == nil {
			to = "/dev/null"
		}
		return fmt.Sprintf("Binary files %s and %s differ\n", from, to)
	}
	return unidiff.Unified(path, old, new)
}

// isBinary: content with a NUL byte, or not valid UTF-8, is diffed as binary.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}
