package shellenv

import (
	"io"
	"slices"
	"sort"
	"strings"
)

// MinSecretLen is the shortest value redacted. A shorter "key" (a local
// server's "ollama", a flag variable's "1") is no secret worth replacing
// every occurrence of in the transcript.
const MinSecretLen = 8

// APIKeyPlaceholder replaces a model key (the soul/llm failure messages use
// the same words).
const APIKeyPlaceholder = "[API key redacted]"

// Secret is one value rewind withholds, and what replaces it.
type Secret struct {
	Value       string
	Placeholder string
}

// Secrets are the values the processes rewind starts never get, so nothing
// they print may carry them either: the model keys (SecretValues) and the
// values of the variables the policy withholds as secrets from environ (the
// SecretVars, SecretNames and, unless IgnoreDefaultExcludes, every variable
// named like DefaultExclude). Values shorter than MinSecretLen and absolute
// paths (a *KEY* variable naming a keyring directory) are left out.
func (p Policy) Secrets(environ []string) []Secret {
	seen := map[string]bool{}
	var out []Secret
	add := func(value, placeholder string) {
		value = strings.TrimSpace(value)
		if len(value) < MinSecretLen || strings.HasPrefix(value, "/") || seen[value] {
			return
		}
		seen[value] = true
		out = append(out, Secret{Value: value, Placeholder: placeholder})
	}
	for _, v := range p.SecretValues {
		add(v, APIKeyPlaceholder)
	}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if slices.Contains(SecretVars, name) || slices.Contains(p.SecretNames, name) ||
			(!p.IgnoreDefaultExcludes && matchAny(DefaultExclude, name)) {
			add(value, "["+name+" redacted]")
		}
	}
	return out
}

// Redactor replaces secret values in text. The nil *Redactor redacts
// nothing, so callers need not check whether secrets are configured.
type Redactor struct {
	secrets []Secret // longest first: of two starting at one place, the longer wins
}

// NewRedactor returns a Redactor of secrets, or nil when there are none.
func NewRedactor(secrets []Secret) *Redactor {
	var keep []Secret
	for _, s := range secrets {
		if s.Value != "" {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	sort.SliceStable(keep, func(i, j int) bool { return len(keep[i].Value) > len(keep[j].Value) })
	return &Redactor{secrets: keep}
}

// Redact returns s with every secret replaced by its placeholder (s itself
// when it holds none).
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	out, _ := r.redact(s, true)
	return out
}

// Contains reports whether s holds a secret.
func (r *Redactor) Contains(s string) bool {
	if r == nil {
		return false
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec.Value) {
			return true
		}
	}
	return false
}

// redact replaces the secrets in s. Unless final, it stops before the
// longest tail of s that could still become a secret (a proper prefix of
// one) and returns that tail as rest, to be completed by the next text.
func (r *Redactor) redact(s string, final bool) (out, rest string) {
	end := len(s)
	if !final {
		end = len(s) - r.openTail(s)
	}
	if !r.Contains(s) {
		return s[:end], s[end:]
	}
	next := make([]int, len(r.secrets)) // each secret's next position, -1: none left
	for i, sec := range r.secrets {
		next[i] = strings.Index(s, sec.Value)
	}
	var b strings.Builder
	pos := 0
	for {
		best := -1
		for i := range r.secrets {
			if next[i] >= 0 && next[i] < pos {
				if j := strings.Index(s[pos:], r.secrets[i].Value); j >= 0 {
					next[i] = pos + j
				} else {
					next[i] = -1
				}
			}
			if next[i] >= 0 && (best < 0 || next[i] < next[best]) {
				best = i // ties keep the earlier, longer secret
			}
		}
		// A match starting inside the open tail waits for the next text,
		// which may make a longer secret of it; one starting before the
		// tail is decided already (a longer one would have opened the
		// tail earlier).
		if best < 0 || next[best] >= end {
			b.WriteString(s[pos:max(pos, end)])
			return b.String(), s[max(pos, end):]
		}
		b.WriteString(s[pos:next[best]])
		b.WriteString(r.secrets[best].Placeholder)
		pos = next[best] + len(r.secrets[best].Value)
	}
}

// openTail is the length of the longest tail of s that is a proper prefix
// of a secret.
func (r *Redactor) openTail(s string) int {
	longest := 0
	for _, sec := range r.secrets {
		for n := min(len(sec.Value)-1, len(s)); n > longest; n-- {
			if s[len(s)-n] == sec.Value[0] && strings.HasSuffix(s, sec.Value[:n]) {
				longest = n
				break
			}
		}
	}
	return longest
}

// Stream redacts a text that arrives in pieces (a streamed answer, a
// command's output), where a secret may be cut between two pieces.
type Stream struct {
	r    *Redactor
	held string
}

// Stream starts a Stream. A nil Redactor's Stream passes text through.
func (r *Redactor) Stream() *Stream { return &Stream{r: r} }

// Write takes the next piece and returns what can be shown of the text so
// far: all of it, redacted, except a tail that may be the start of a secret
// (held until the next piece or Flush decides).
func (st *Stream) Write(piece string) string {
	if st.r == nil {
		return piece
	}
	out, rest := st.r.redact(st.held+piece, false)
	st.held = rest
	return out
}

// Flush returns the held tail (the text ended there) and empties the Stream.
func (st *Stream) Flush() string {
	if st.r == nil {
		return ""
	}
	out, _ := st.r.redact(st.held, true)
	st.held = ""
	return out
}

// Reset drops the held tail (the text it belonged to was discarded).
func (st *Stream) Reset() { st.held = "" }

// Writer returns an io.WriteCloser that writes the redacted bytes to w;
// Close writes the held tail (it does not close w).
func (r *Redactor) Writer(w io.Writer) io.WriteCloser {
	return &redactWriter{st: r.Stream(), w: w}
}

type redactWriter struct {
	st *Stream
	w  io.Writer
}

func (rw *redactWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(rw.w, rw.st.Write(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (rw *redactWriter) Close() error {
	_, err := io.WriteString(rw.w, rw.st.Flush())
	return err
}
