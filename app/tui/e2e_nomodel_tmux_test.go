package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// noModel is an environment with no model configured, whatever the machine
// running the tests has set.
var noModel = []string{"OPENAI_API_KEY=", "KIMI_API_KEY=", "REWIND_MODEL=", "OPENAI_BASE_URL="}

// TestResumeWithoutModelInTmux: with no model configured, `rewind
// --session ID` still opens that session to read (under the setup screen),
// and an unknown id is refused with the CLI's one-line error, as with a
// model. Both were ignored: the workspace opened empty.
func TestResumeWithoutModelInTmux(t *testing.T) {
	t.Parallel()
	// A private home, as rewind makes it: t.TempDir's 0755 made rewind say
	// so in the status bar for the message's 6 s, which cut the title the
	// test waits for ("parser …").
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := storetest.OpenAt(t, filepath.Join(home, "rewind.db"), store.Options{})
	sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: t.TempDir(), Title: "parser work"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []message.Message{message.NewText("user", "why is the lexer slow"), message.NewText("assistant", "it copies every token twice")} {
		if _, err := db.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	tt := startTmux(t, noModel, "--home "+home+" --session "+sess.ID)
	tt.waitFor("Connect a model")
	tt.waitFor("why is the lexer slow", "it copies every token twice", "READ-ONLY · no model", "parser work")
	if screen := tt.capture(); strings.Contains(screen, "the agent works there now") {
		t.Fatalf("a read-only session says the agent works in its dir:\n%s", screen)
	}
	tt.send("C-c")
	tt.send("C-c")

	bad := startTmux(t, noModel, "")
	bad.start("--home " + home + " --session nope")
	bad.waitUntilExited()
	errOut, _ := os.ReadFile(filepath.Join(bad.dir, "stderr.txt"))
	if !strings.Contains(string(errOut), `no session matches "nope"`) {
		t.Fatalf("stderr %q, want the unknown-session error", errOut)
	}
}
