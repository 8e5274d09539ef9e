package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// Resuming a session whose work dir is gone (another machine's history, an
// import) says so, and that it is open read-only: the agent's tools would
// otherwise fail there without a word of why. A work dir that exists gets
// no such warning.
func TestResumeSessionWhoseWorkDirIsGone(t *testing.T) {
	t.Parallel()
	var gone, there string
	h := newHarness(t, hopts{w: 160, h: 48,
		before: func(h *harness) {
			for _, s := range []struct {
				id  *string
				dir string
			}{{&gone, filepath.Join(h.dir, "no-such-dir")}, {&there, h.dir}} {
				sess, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "elsewhere", WorkDir: s.dir})
				if err != nil {
					t.Fatal(err)
				}
				seedTurns(t, h.db, sess.ID, "a prompt over there")
				*s.id = sess.ID
			}
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, gone },
	})
	// the question (missing_dir_test.go); r keeps it read-only
	h.waitFor("Work dir not on this machine", "[r] Read-only")
	waitForBoxSentence(h, "Work dir not on this machine", filepath.Join(h.dir, "no-such-dir")+", which is not on this machine")
	h.typeText("r", false)
	h.c.onUIThread(func() { h.c.onUIOpenSession(there) })
	h.waitFor("a prompt over there")
	waitForBoxSentence(h, "Conversation", "This session belongs to "+h.dir+":")
	if txt := flatText(h.text()); strings.Contains(txt, "not on this machine") {
		t.Errorf("the existing work dir was also called missing:\n%s", h.text())
	}
}

// waitForSentence waits for a frame showing a sentence that may wrap.
func waitForSentence(h *harness, sentence string) {
	h.t.Helper()
	if txt, ok := h.waitScreen(func(txt string) bool { return strings.Contains(flatText(txt), sentence) }); !ok {
		h.t.Fatalf("screen never showed %q:\n%s", sentence, txt)
	}
}

// flatText is the screen's words in reading order with frames and line
// breaks gone, so a check for a sentence does not depend on where it wraps.
func flatText(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\n' || strings.ContainsRune("│║▎┌┐└┘─╔╗╚╝═ℹ", r)
	}), " ")
}

// waitForBoxSentence waits for a frame whose box titled title (a pane, a
// dialog) shows sentence, however its lines wrap it: a path longer than the
// box is cut inside a word, so the box's lines are joined and spaces are
// not compared (a long TMPDIR made the tests depend on where it was cut).
func waitForBoxSentence(h *harness, title, sentence string) {
	h.t.Helper()
	want := squashed(sentence)
	if txt, ok := h.waitScreen(func(txt string) bool {
		return strings.Contains(squashed(boxText(strings.Split(txt, "\n"), title)), want)
	}); !ok {
		h.t.Fatalf("the box %q never showed %q:\n%s", title, sentence, txt)
	}
}

// boxText is the text inside the box whose top border holds title, its
// lines joined; "" when no box has that title.
func boxText(rows []string, title string) string {
	for y, row := range rows {
		i := strings.Index(row, title)
		if i < 0 {
			continue
		}
		top := []rune(row)
		at := len([]rune(row[:i]))
		left := at
		for left >= 0 && top[left] != '┌' && top[left] != '╔' {
			left--
		}
		right := at
		for right < len(top) && top[right] != '┐' && top[right] != '╗' {
			right++
		}
		if left < 0 || right == len(top) {
			continue
		}
		var b strings.Builder
		for _, r := range rows[y+1:] {
			line := []rune(r)
			if len(line) <= right || line[left] == '└' || line[left] == '╚' {
				break
			}
			b.WriteString(string(line[left+1 : right]))
		}
		return b.String()
	}
	return ""
}

// squashed is s without spaces, line breaks and the conversation's gutter
// marks.
func squashed(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || strings.ContainsRune("▎ℹ", r) {
			return -1
		}
		return r
	}, s)
}
