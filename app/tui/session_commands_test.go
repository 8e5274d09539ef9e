package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// TestStatusShowsModelContextAndAgentsMD: /status names the model, the work
// dir, the context use, the approval mode and the AGENTS.md files loaded.
func TestStatusShowsModelContextAndAgentsMD(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		if err := os.WriteFile(filepath.Join(h.work, "AGENTS.md"), []byte("PROJECT RULE: be brief."), 0o644); err != nil {
			t.Fatal(err)
		}
	}}, llmtest.Text("hello back"))
	h.submit("hello")
	h.waitFor("hello back")
	h.waitUntil("the run to end", h.idle)
	h.submit("/status")
	h.waitFor("Status", "fake-model", h.work, "context", "of 128,000 tokens", "ask before edits", filepath.Join(h.work, "AGENTS.md"), "no servers configured")
	if sys, _ := h.srv.Requests()[0].Last("system"); !strings.Contains(sys.Content.PlainText(), "PROJECT RULE: be brief.") {
		t.Errorf("the work dir's AGENTS.md is not in the system prompt")
	}
}

// TestShellApprovalScopeShownListedAndRevoked: the dialog says what [a]
// covers; /approvals lists it; revoking makes the next call ask again.
func TestShellApprovalScopeShownListedAndRevoked(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48},
		llmtest.Calls(llmtest.Call("s1", "Shell", map[string]any{"command": "echo one"})),
		llmtest.Calls(llmtest.Call("s2", "Shell", map[string]any{"command": "echo two"})),
		llmtest.Text("both ran"),
		llmtest.Calls(llmtest.Call("s3", "Shell", map[string]any{"command": "echo three"})),
		llmtest.Text("third ran"))
	h.submit("run echo")
	h.waitFor("Approve Shell", "[a] approves “echo …” for this session")
	h.clock.advance(approvalGrace)
	h.typeText("a", false)
	h.waitFor("both ran")
	h.waitUntil("the run to end", h.idle)
	h.submit("/approvals")
	h.waitFor("Approved for this session", "1. run shell command: echo …")
	h.submit("/approvals revoke 1")
	h.waitFor("revoked: run shell command: echo …")
	h.submit("run echo again")
	h.waitFor("Approve Shell", "echo three")
}

// TestRenameExportForkAndNew: the session commands act on the open session.
func TestRenameExportForkAndNew(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48}, llmtest.Text("first answer"))
	h.submit("hello")
	h.waitFor("first answer")
	h.waitUntil("the run to end", h.idle)
	id := h.sessionID()

	h.submit("/rename my renamed session")
	h.waitFor("renamed to my renamed session")
	if s, err := h.db.GetSession(h.ctx, id); err != nil || s.Title != "my renamed session" {
		t.Fatalf("title %q, %v", s.Title, err)
	}

	exported := make(chan string, 1)
	h.c.opts.Export = func(_ context.Context, sid, path string) (int, error) {
		exported <- sid + " " + path
		return 3, os.WriteFile(path, []byte("{}\n{}\n{}\n"), 0o600)
	}
	h.submit("/export")
	want := id + " " + filepath.Join(h.work, "rewind-"+shortID(id)+".jsonl")
	select {
	case got := <-exported:
		if got != want {
			t.Errorf("exported %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("/export did not export")
	}
	h.waitFor("exported 3 lines to")

	h.submit("/fork")
	h.waitUntil("the fork to open", func() bool { s := h.c.SessionID(); return s != "" && s != id })
	h.waitFor("Forked session")

	h.submit("/new")
	h.waitUntil("the new session", func() bool { return h.c.SessionID() == "" })
	h.waitFor("new session in")
}

// TestModelSwitchesMidSession: /model NAME makes the next answer come from
// the new client, in the same session.
func TestModelSwitchesMidSession(t *testing.T) {
	t.Parallel()
	other := llmtest.NewServer(t)
	other.Enqueue(llmtest.Text("answer from the other model"))
	h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) {
		o.Models = func() []string { return []string{"fake-model", "lab/other-model"} }
		o.SwitchModel = func(name string) (llm.Client, string, error) {
			if name != "lab/other-model" {
				return nil, "", fmt.Errorf("no model %q", name)
			}
			cl, err := llm.New(llm.Config{BaseURL: other.URL(), APIKey: "k2", Model: "other-model", Stream: true})
			return cl, name, err
		}
	}}, llmtest.Text("answer from the first model"))
	h.submit("one")
	h.waitFor("answer from the first model")
	h.waitUntil("the run to end", h.idle)
	id := h.sessionID()
	h.submit("/model lab/other-model")
	h.waitFor("model lab/other-model: the next answer comes from it")
	h.submit("two")
	h.waitFor("answer from the other model")
	if h.sessionID() != id {
		t.Error("switching the model changed the session")
	}
	if reqs := other.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "answer from the first model") {
		t.Errorf("the other model did not get the session's context")
	}
}

// TestInitAsksForAgentsMD: /init sends the model the prompt to write one.
func TestInitAsksForAgentsMD(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Text("wrote AGENTS.md"))
	h.submit("/init")
	h.waitFor("wrote AGENTS.md")
	if got := string(h.srv.Requests()[0].Body); !strings.Contains(got, "Write an AGENTS.md file for this project") {
		t.Errorf("/init did not send the init prompt: %s", got)
	}
}

// TestSetupScreenWithoutModel: with no model configured the workspace
// opens on a screen saying what to set, and prompts are refused.
func TestSetupScreenWithoutModel(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		h := newHarness(t, hopts{w: size[0], h: size[1], mutate: func(o *Options) {
			o.Client, o.ReadOnly = nil, true
			o.Setup = "To connect one, set:\n  API key   export OPENAI_API_KEY=sk-…\n\nNo key at hand? `rewind demo` runs the workspace."
		}})
		h.waitFor("Connect a model", "OPENAI_API_KEY", "rewind demo")
		h.typeText("b", false)
		h.waitGone("Connect a model")
		h.waitUntil("b to open the session browser", func() bool { return h.c.pages.top() == browserPage })
		h.waitFor("NO MODEL")
		h.key(tcell.KeyEscape)
		h.waitUntil("the browser closes", func() bool { return !h.c.pages.has(browserPage) })
		h.typeText("hello", true) // refused: the text stays in the input
		h.waitFor("no model configured")
		if n := len(h.srv.Requests()); n != 0 {
			t.Errorf("%d model requests without a model", n)
		}
	}
}

// /status names the session by the title the lists show (it said
// "(untitled)" after the first prompt had titled it), and a long row wraps
// under its value, not under the label column.
func TestStatusTitleAndWrappedRowsAt80(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24}, llmtest.Text("hello back"))
	h.submit("fix the parser bug")
	h.waitFor("hello back")
	h.waitUntil("the run to end", h.idle)
	long := "a notice long enough to wrap at eighty columns, twice over: the status bar cuts it, /status shows it whole"
	h.c.onUIThread(func() { h.c.msg.setMessage(long, false) })
	h.submit("/status")
	h.waitFor("Status", "session")
	rows := h.rows()
	if txt := strings.Join(rows, "\n"); strings.Contains(txt, "(untitled)") || !strings.Contains(txt, "the parser bug") {
		t.Errorf("/status does not name the session by its title:\n%s", txt)
	}
	y := -1
	for i, r := range rows {
		if strings.Contains(r, "notices") {
			y = i
		}
	}
	if y < 0 || y+1 >= len(rows) {
		t.Fatalf("no notices row:\n%s", strings.Join(rows, "\n"))
	}
	label := []rune(rows[y])
	at := 0
	for i := range label {
		if strings.HasPrefix(string(label[i:]), "notices") {
			at = i
			break
		}
	}
	next := []rune(rows[y+1])
	if len(next) < at+11 || strings.TrimSpace(string(next[at:at+11])) != "" {
		t.Errorf("the notice's second row starts under the label column:\n%s\n%s", rows[y], rows[y+1])
	}
}

// A session's opening warning (file rewinds off) goes when the workspace
// opens another session: it outlived its session.
func TestOpeningWarningGoesWithItsSession(t *testing.T) {
	t.Parallel()
	var ids []string
	h := newHarness(t, hopts{w: 80, h: 24,
		before: func(h *harness) { ids = browserSessions(t, h.db, h.work) },
		mutate: func(o *Options) {
			o.Mode, o.SessionID = ModeResume, ids[2]
			o.Files = func(s store.Session) (tools.FileTracker, error) {
				if s.ID == ids[0] {
					return nil, fmt.Errorf("work dir not on this machine")
				}
				return nil, nil
			}
		},
	})
	h.waitUntil("the session open", func() bool { return h.c.SessionID() == ids[2] && h.idle() })
	h.c.onUIThread(func() { h.c.onUIOpenSession(ids[0]) })
	h.waitUntil("the warned session open", func() bool { return h.c.SessionID() == ids[0] && h.idle() })
	h.waitFor("file rewinds off")
	h.c.onUIThread(func() { h.c.onUIOpenSession(ids[1]) })
	h.waitUntil("the other session open", func() bool { return h.c.SessionID() == ids[1] && h.idle() })
	start := time.Now()
	h.waitGone("file rewinds off")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the warning stayed %v on the next session", d)
	}
}

// The work dir the agent works in is always in view, in the conversation's
// header, cut in the middle when narrow (its last element kept), and it
// follows a session resumed from another dir.
func TestWorkDirInTheConversationHeader(t *testing.T) {
	t.Parallel()
	var other store.Session
	h := newHarness(t, hopts{w: 80, h: 24, before: func(h *harness) {
		dir := filepath.Join(h.dir, "a-rather-long-directory-name", "elsewhere-project")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		other, err = h.db.CreateSession(h.ctx, store.NewSession{Title: "over there", WorkDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, other.ID, "an old task")
	}})
	waitHeader := func(what string, cond func(string) bool) {
		t.Helper()
		txt, ok := h.waitScreen(func(txt string) bool {
			for r := range strings.SplitSeq(txt, "\n") {
				if strings.Contains(r, "Conversation") && cond(r) {
					return true
				}
			}
			return false
		})
		if !ok {
			t.Fatalf("the header never showed %s:\n%s", what, txt)
		}
	}
	waitHeader("the work dir's last element", func(r string) bool { return strings.Contains(r, "…/work") })
	h.resize(160, 48)
	waitHeader("the whole work dir at 160 columns", func(r string) bool { return strings.Contains(r, h.work) })
	h.c.onUIThread(func() { h.c.onUIOpenSession(other.ID) })
	waitHeader("the resumed session's dir", func(r string) bool { return strings.Contains(r, "elsewhere-project") })
	h.resize(80, 24)
	waitHeader("the dir cut in the middle at 80 columns", func(r string) bool { return strings.Contains(r, "…/elsewhere-project") })
}

// /model without a name opens a picker of the config's models (the list was
// only in a status line, cut at 80 columns); ↓ and Enter switch.
func TestModelPicker(t *testing.T) {
	t.Parallel()
	other := llmtest.NewServer(t)
	other.Enqueue(llmtest.Text("answer from the picked model"))
	models := []string{"fake-model", "lab/a-model-with-a-rather-long-name", "lab/other-model"}
	h := newHarness(t, hopts{w: 80, h: 24, mutate: func(o *Options) {
		o.Models = func() []string { return models }
		o.SwitchModel = func(name string) (llm.Client, string, error) {
			if name != "lab/other-model" {
				return nil, "", fmt.Errorf("no model %q", name)
			}
			cl, err := llm.New(llm.Config{BaseURL: other.URL(), APIKey: "k2", Model: "other-model", Stream: true})
			return cl, name, err
		}
	}})
	h.submit("/model")
	h.waitFor("Switch model", "fake-model (current)", "lab/a-model-with-a-rather-long-name", "lab/other-model")
	h.key(tcell.KeyDown)
	h.key(tcell.KeyDown)
	h.key(tcell.KeyEnter)
	h.waitUntil("the model switched", func() bool { return h.c.statusM.Model == "lab/other-model" })
	h.submit("hello")
	h.waitFor("answer from the picked model")
}

// TestStatusOfChildNamesItsParent: /status of a sub-agent's session names
// the session whose Agent call started it, by id and title.
func TestStatusOfChildNamesItsParent(t *testing.T) {
	t.Parallel()
	var parentID, childID string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		parent, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "the parent task", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		parentID = parent.ID
		child, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "the child task", WorkDir: h.work,
			Subagent: store.SubagentOrigin{Of: parent.ID, CallID: "c1", Type: "coder"}})
		if err != nil {
			t.Fatal(err)
		}
		h.db.AppendMessage(h.ctx, child.ID, message.NewText("user", "look around"))
		childID = child.ID
	}, mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, childID }})
	h.submit("/status")
	h.waitFor("Status", "parent     "+parentID+" · the parent task")
}
