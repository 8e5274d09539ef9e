package shellenv

import (
	"bytes"
	"strings"
	"testing"
)

const canary = "sk-canary-5f1d0c9e7b"

func TestSecretsAreTheKeysAndTheWithheldValues(t *testing.T) {
	t.Parallel()
	env := []string{"OPENAI_API_KEY=" + canary, "GITHUB_TOKEN=ghp_0123456789", "KEYTIMEOUT=1",
		"GNOME_KEYRING_CONTROL=/run/user/1000/keyring", "EDITOR=vi-editor-long", "MOON=sk-moon-12345"}
	p := Policy{SecretValues: []string{canary, "sk-other-provider"}, SecretNames: []string{"MOON"}}
	got := map[string]string{}
	for _, s := range p.Secrets(env) {
		got[s.Value] = s.Placeholder
	}
	want := map[string]string{
		canary:              APIKeyPlaceholder,
		"sk-other-provider": APIKeyPlaceholder,
		"ghp_0123456789":    "[GITHUB_TOKEN redacted]",
		"sk-moon-12345":     "[MOON redacted]",
	}
	if len(got) != len(want) {
		t.Errorf("secrets %v, want %v", got, want)
	}
	for v, ph := range want {
		if got[v] != ph {
			t.Errorf("%s: placeholder %q, want %q", v, got[v], ph)
		}
	}
	// Passed to Shell on purpose: not withheld, not redacted.
	p.IgnoreDefaultExcludes = true
	for _, s := range p.Secrets(env) {
		if s.Value == "ghp_0123456789" {
			t.Error("a token the policy passes on is redacted")
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]Secret{{canary, "[K]"}, {"abcdefgh", "[A]"}, {"abcdefghij", "[LONG]"}})
	cases := map[string]string{
		"":                            "",
		"no secret here":              "no secret here",
		"key=" + canary + "\n":        "key=[K]\n",
		canary + canary:               "[K][K]",
		"x abcdefghij y abcdefgh z":   "x [LONG] y [A] z",
		"sk-canary-5f1d0c9e7 (short)": "sk-canary-5f1d0c9e7 (short)",
	}
	for in, want := range cases {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	var nilR *Redactor
	if nilR.Redact(canary) != canary || NewRedactor(nil) != nil {
		t.Error("no secrets must redact nothing")
	}
}

// TestStreamRedactsASecretCutBetweenPieces: every way of cutting a text in
// two, three and one-byte pieces gives the text Redact gives, and nothing
// shown before Flush holds more than a proper prefix of a secret at its end.
func TestStreamRedactsASecretCutBetweenPieces(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]Secret{{canary, "[K]"}, {"abcdefgh", "[A]"}, {"abcdefghij", "[LONG]"}})
	text := "env: OPENAI_API_KEY=" + canary + "\nsk-can then abcdefgh, abcdefghij and sk-canary-5f1d0c9e7"
	want := r.Redact(text)
	if strings.Contains(want, canary) {
		t.Fatal("Redact left the key")
	}
	check := func(pieces []string) {
		st := r.Stream()
		var b strings.Builder
		for _, p := range pieces {
			b.WriteString(st.Write(p))
			if strings.Contains(b.String(), canary) {
				t.Fatalf("pieces %q: the key was shown", pieces)
			}
		}
		b.WriteString(st.Flush())
		if b.String() != want {
			t.Fatalf("pieces %q: got %q, want %q", pieces, b.String(), want)
		}
	}
	for i := 0; i <= len(text); i++ {
		check([]string{text[:i], text[i:]})
		for j := i; j <= len(text); j += 3 {
			check([]string{text[:i], text[i:j], text[j:]})
		}
	}
	var bytesOnly []string
	for i := range text {
		bytesOnly = append(bytesOnly, text[i:i+1])
	}
	check(bytesOnly)

	// Text that cannot start a secret is shown at once, not held.
	st := r.Stream()
	if got := st.Write("plain line\n"); got != "plain line\n" {
		t.Errorf("held back %q", got)
	}
	if got := st.Write("ends with sk-can"); got != "ends with " {
		t.Errorf("shown %q, want the possible key start held", got)
	}
	if got := st.Write("dy"); got != "sk-candy" {
		t.Errorf("shown %q once it could no longer be the key", got)
	}
}

func TestWriterRedactsAcrossWrites(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]Secret{{canary, APIKeyPlaceholder}})
	var buf bytes.Buffer
	w := r.Writer(&buf)
	w.Write([]byte(`{"text":"` + canary[:7]))
	w.Write([]byte(canary[7:] + `"}` + "\n"))
	w.Close()
	if got := buf.String(); got != `{"text":"[API key redacted]"}`+"\n" {
		t.Errorf("got %q", got)
	}
}
