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
	h.waitFor("Work dir not on this machine", "no-such-dir, which is", "[r] Read-only")
	h.typeText("r", false)
	h.c.onUIThread(func() { h.c.onUIOpenSession(there) })
	h.waitFor("a prompt over there")
	waitForSentence(h, "This session belongs to "+h.dir+":")
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
