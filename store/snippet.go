package store

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The full-text index is contentless (migration 13): it keeps no copy of
// the text, so FTS4's snippet() has nothing to read. Snippets are built
// here from the record's own text (searchText of its body) the way FTS4
// builds them (fts3_snippet.c): the same 16-token fragments, chosen and
// centred by the same scores, « » around the matched phrases and … where
// the fragment does not reach the text's start or end. Tokens are those
// of the unicode61 tokenizer: runs of letters, digits and private-use
// characters (combining marks continue a token), case-folded, diacritics
// removed.

const (
	snippetTokens = 16 // snippet(context_fts, '«', '»', '…', -1, 16)
	snippetOpen   = "«"
	snippetClose  = "»"
	snippetEllip  = "…"
)

// snipToken is one token of a text: its bytes text[start:end] and its
// folded form.
type snipToken struct {
	start, end int
	term       string
}

func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// foldTerm lowercases s and removes its diacritics, as unicode61 with
// remove_diacritics=1 does.
func foldTerm(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// tokenize splits text as the unicode61 tokenizer does.
func tokenize(text string) []snipToken {
	var out []snipToken
	start := -1
	for i, r := range text {
		switch {
		case isTokenRune(r) || start >= 0 && unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			out = append(out, snipToken{start: start, end: i, term: foldTerm(text[start:i])})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, snipToken{start: start, end: len(text), term: foldTerm(text[start:])})
	}
	return out
}

// queryPhrase is one phrase of an ftsQuery: its folded words, the last a
// prefix when prefix is set.
type queryPhrase struct {
	words  []string
	prefix bool
}

// queryPhrases reads back the phrases of an ftsQuery result (quoted
// phrases and bare ORs), in order: FTS4 numbers them the same way.
func queryPhrases(q string) []queryPhrase {
	var out []queryPhrase
	parts := strings.Split(q, `"`)
	for i := 1; i < len(parts); i += 2 {
		p := parts[i]
		prefix := strings.HasSuffix(p, "*")
		var words []string
		for _, w := range strings.Fields(strings.TrimSuffix(p, "*")) {
			words = append(words, foldTerm(w))
		}
		if len(words) > 0 {
			out = append(out, queryPhrase{words: words, prefix: prefix})
		}
	}
	return out
}

// phrasePositions lists, per phrase, the positions of the last token of
// each of its occurrences in toks (as FTS4's position lists for snippets).
func phrasePositions(toks []snipToken, phrases []queryPhrase) [][]int {
	out := make([][]int, len(phrases))
	for pi, p := range phrases {
		n := len(p.words)
		for i := 0; i+n <= len(toks); i++ {
			ok := true
			for j, w := range p.words {
				t := toks[i+j].term
				if j == n-1 && p.prefix {
					ok = strings.HasPrefix(t, w)
				} else {
					ok = t == w
				}
				if !ok {
					break
				}
			}
			if ok {
				out[pi] = append(out[pi], i+n-1)
			}
		}
	}
	return out
}

// snipFragment is a fragment of nTok tokens from pos; hl marks the tokens
// to highlight (bit k: token pos+k), covered the phrases it holds.
type snipFragment struct {
	pos     int
	hl      uint64
	covered uint64
}

// bestFragment is fts3BestSnippet: of the windows of nTok tokens starting
// at 0 or ending at an occurrence of a phrase, the first with the highest
// score (1000 for each phrase not covered yet, 1 for each other
// occurrence).
func bestFragment(pos [][]int, nPhrases []int, nTok int, covered uint64) snipFragment {
	starts := []int{0}
	var ends []int
	for _, ps := range pos {
		for _, p := range ps {
			if p >= nTok {
				ends = append(ends, p)
			}
		}
	}
	slices.Sort(ends)
	for i, e := range ends {
		if i > 0 && e == ends[i-1] {
			continue
		}
		starts = append(starts, e-nTok+1)
	}
	best, bestScore := snipFragment{}, -1
	for _, s := range starts {
		var f snipFragment
		f.pos = s
		score := 0
		for i, ps := range pos {
			bit := uint64(1) << (i % 64)
			for _, p := range ps {
				if p < s || p >= s+nTok {
					continue
				}
				if (f.covered|covered)&bit != 0 {
					score++
				} else {
					score += 1000
				}
				f.covered |= bit
				for j := 0; j < nPhrases[i] && j < nTok; j++ {
					if p-j >= s {
						f.hl |= 1 << (p - j - s)
					}
				}
			}
		}
		if score > bestScore {
			best, bestScore = f, score
		}
	}
	return best
}

// snippet is FTS4's snippet(…, '«', '»', '…', -1, 16) of text for the
// query phrases; matched reports whether any phrase occurs in it.
func snippet(text string, phrases []queryPhrase) (out string, matched bool) {
	toks := tokenize(text)
	pos := phrasePositions(toks, phrases)
	nWords := make([]int, len(phrases))
	var seen uint64
	for i, p := range phrases {
		nWords[i] = len(p.words)
		if len(pos[i]) > 0 {
			seen |= 1 << (i % 64)
		}
	}
	var frags []snipFragment
	nTok := snippetTokens
	for n := 1; ; n++ {
		nTok = (snippetTokens + n - 1) / n
		frags = frags[:0]
		var covered uint64
		for range n {
			f := bestFragment(pos, nWords, nTok, covered)
			frags = append(frags, f)
			covered |= f.covered
		}
		if covered == seen || n == 4 {
			break
		}
	}
	var b strings.Builder
	for i, f := range frags {
		writeFragment(&b, text, toks, f, i, i == len(frags)-1, nTok)
	}
	return b.String(), seen != 0
}

// writeFragment is fts3SnippetText (with fts3SnippetShift): the fragment,
// moved right so that about as many plain tokens follow its last
// highlight as precede its first, when the text has them.
func writeFragment(b *strings.Builder, text string, toks []snipToken, f snipFragment, i int, last bool, nTok int) {
	if f.pos >= len(toks) {
		b.WriteString(text) // no tokens: FTS4 copies it whole
		return
	}
	first := toks[f.pos].start
	if f.hl != 0 {
		left, right := 0, 0
		for f.hl&(1<<left) == 0 {
			left++
		}
		for f.hl&(1<<(nTok-1-right)) == 0 {
			right++
		}
		if want := (left - right) / 2; want > 0 {
			if shift := min(want, len(toks)-f.pos-nTok); shift > 0 {
				f.pos += shift
				f.hl >>= shift
			}
		}
	}
	if f.pos > 0 || i > 0 {
		b.WriteString(snippetEllip)
	} else {
		b.WriteString(text[:first])
	}
	end := 0
	for k := f.pos; k < f.pos+nTok; k++ {
		if k >= len(toks) {
			b.WriteString(text[end:])
			return
		}
		t := toks[k]
		if k > f.pos {
			b.WriteString(text[end:t.start])
		}
		hl := f.hl&(1<<(k-f.pos)) != 0
		if hl {
			b.WriteString(snippetOpen)
		}
		b.WriteString(text[t.start:t.end])
		if hl {
			b.WriteString(snippetClose)
		}
		end = t.end
	}
	if f.pos+nTok < len(toks) {
		if last {
			b.WriteString(snippetEllip)
		}
		return
	}
	b.WriteString(text[end:])
}
