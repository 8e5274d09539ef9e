package views

import "strings"

// Hints, titles and messages never end in half a word: when they do not
// fit they lose whole words (or whole " · " parts) and say so with "…".

// hintSep separates the parts of a hint line or title ("Enter revert · Esc back").
const hintSep = " · "

// fitWords shortens s to at most w columns at a word boundary, ending in
// "…" when something was left out. Only a first word wider than w is cut
// inside (there is no boundary to cut at).
func fitWords(s string, w int) string {
	if strWidth(s) <= w {
		return s
	}
	if w <= 1 {
		return truncate(s, w)
	}
	head := cutWidth(s, w-1)
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		head = strings.TrimRight(head[:i], " ·,;:—-")
		if head != "" {
			return head + "…"
		}
	}
	return truncate(s, w)
}

// fitParts joins the " · "-separated parts of s that fit in w columns,
// dropping whole parts from the end and marking the cut with "…". A first
// part wider than w is shortened with fitWords.
func fitParts(s string, w int) string {
	if strWidth(s) <= w {
		return s
	}
	parts := strings.Split(s, hintSep)
	out := fitWords(parts[0], w)
	for _, p := range parts[1:] {
		next := out + hintSep + p
		if strWidth(next)+2 > w { // room for " …"
			break
		}
		out = next
	}
	if out != s && !strings.HasSuffix(out, "…") {
		out += " …"
	}
	return out
}

// wrapParts packs the " · "-separated parts of s into rows of at most w
// columns, breaking only between parts (or, for a part wider than a row,
// between its words), so no hint is ever cut.
func wrapParts(s string, w int) []string {
	w = max(1, w)
	var rows []string
	cur := ""
	for _, p := range strings.Split(s, hintSep) {
		switch {
		case cur == "":
			cur = p
		case strWidth(cur+hintSep+p) <= w:
			cur += hintSep + p
		default:
			rows = append(rows, cur)
			cur = p
		}
		for strWidth(cur) > w {
			lines := wrapSpans([]Span{{Text: cur}}, w, nil, nil)
			for _, l := range lines[:len(lines)-1] {
				rows = append(rows, l.String())
			}
			cur = lines[len(lines)-1].String()
		}
	}
	return append(rows, cur)
}
