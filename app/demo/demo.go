package demo

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// ModelName is the model the demo reports.
const ModelName = "rewind-demo"

// Title is the demo session's title ("demo:" marks it in the session list).
const Title = "demo: a scripted tour of rewind"

// DefaultRate is the streaming pace in tokens (≈ 4-character chunks) per second.
const DefaultRate = 250

// Welcome is shown in an empty demo session.
const Welcome = "Welcome to the rewind demo: a scripted model runs on this machine, nothing goes over the network. Try, in order:\n" +
	"1. show me some code — a markdown answer with a highlighted code block\n" +
	"2. write a file — a tool round trip: approve the WriteFile with y\n" +
	"3. backtrack — the model sends a D-Mail to its past self, then answers better\n" +
	"4. /compact — summarise the context into a new generation (nothing is lost)\n" +
	"5. sub-agents — two sub-agents work at once; select the Agent row to watch one\n" +
	"6. Shift-Tab, then: plan a change\n" +
	"Esc interrupts a running step · Tab cycles panes · ? or /help lists every key and command"

// Options tune the demo model.
type Options struct {
	// TokensPerSecond is the streaming pace (default DefaultRate; tests go faster).
	TokensPerSecond int
}

// Model is the running demo model.
type Model struct {
	srv    *llmtest.Server
	client *llm.Provider
	sc     *script
}

// Start serves the script on a local port and returns a Provider for it.
func Start(o Options) (*Model, error) {
	if o.TokensPerSecond <= 0 {
		o.TokensPerSecond = DefaultRate
	}
	srv := llmtest.NewServer(nil)
	sc := &script{rate: o.TokensPerSecond, answers: map[string]int{}}
	srv.Handle(sc.reply)
	p, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "demo-key-not-secret", Model: ModelName, Stream: true, MaxRetries: 1})
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("demo model: %w", err)
	}
	return &Model{srv: srv, client: p, sc: sc}, nil
}

// Client is the provider talking to the demo server.
func (m *Model) Client() llm.Client { return m.client }

// Requests returns what the demo model was sent (tests).
func (m *Model) Requests() []llmtest.Request { return m.srv.Requests() }

// Answered tells the script who answered the approval of its tool call
// toolCallID: watcherPID 0 for the workspace's own screen, else the
// process of the watcher that did. The tool round trip's table says so;
// a call nobody was asked about (--yolo, approved for the session) is
// "not asked". The workspace calls it as the answer counts, before the
// tool runs: two requests before the table is written.
func (m *Model) Answered(toolCallID string, watcherPID int) {
	m.sc.mu.Lock()
	defer m.sc.mu.Unlock()
	m.sc.answers[toolCallID] = watcherPID
}

// Close stops the server.
func (m *Model) Close() { m.srv.Close() }

// WorkDir returns (creating it) the demo's work directory under home, so the
// demo never writes into the user's tree.
func WorkDir(home string) (string, error) {
	dir := filepath.Join(home, "demo-workdir")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("demo work dir: %w", err)
	}
	readme := filepath.Join(dir, "README.txt")
	if _, err := os.Stat(readme); os.IsNotExist(err) {
		_ = os.WriteFile(readme, []byte("rewind demo work directory: files the demo model writes land here.\n"), 0o600)
	}
	return dir, nil
}

type script struct {
	rate int

	mu      sync.Mutex
	writes  int            // WriteFile calls made: each gets its own id
	answers map[string]int // tool call id → who answered (Model.Answered)
}

// turn is what the script reads from a request.
type turn struct {
	compaction bool
	subagent   bool              // the request is a sub-agent's (its system prompt's role)
	planning   bool              // the request ends with plan mode's reminder
	prompt     string            // the last real user message (lower case)
	dmail      bool              // the last real user message is a D-Mail
	results    []message.Message // tool results after it, in order
	calls      []string          // tool names called after it
	writeID    string            // the id of the WriteFile call after it
	stepCP     int               // first checkpoint after the prompt (-1 none)
}

func readTurn(req llmtest.Request) turn {
	t := turn{stepCP: -1}
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Role == "system" && strings.Contains(msgs[0].Content.PlainText(), "compacts conversation context") {
		t.compaction = true
		return t
	}
	t.subagent = len(msgs) > 0 && msgs[0].Role == "system" && strings.Contains(msgs[0].Content.PlainText(), "running as a subagent")
	if n := len(msgs); n > 0 {
		kind, _ := message.MarkerOf(msgs[n-1])
		t.planning = kind == message.MarkerSystemNote && strings.Contains(msgs[n-1].Content.PlainText(), "Plan mode is on")
	}
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		// Checkpoints and rewind's notes (plan mode's reminder) are not
		// what the user asked.
		if kind, _ := message.MarkerOf(m); m.Role == "user" && kind != message.MarkerCheckpoint && kind != message.MarkerSystemNote {
			last = i
			break
		}
	}
	if last < 0 {
		return t
	}
	text := strings.TrimSpace(msgs[last].Content.PlainText())
	kind, _ := message.MarkerOf(msgs[last])
	t.dmail = kind == message.MarkerDMail
	t.prompt = strings.ToLower(text)
	for _, m := range msgs[last+1:] {
		switch m.Role {
		case "user":
			if kind, n := message.MarkerOf(m); kind == message.MarkerCheckpoint && t.stepCP < 0 {
				t.stepCP, _ = strconv.Atoi(n)
			}
		case "assistant":
			for _, c := range m.ToolCalls {
				t.calls = append(t.calls, c.Name)
				if c.Name == "WriteFile" {
					t.writeID = c.ID
				}
			}
		case "tool":
			t.results = append(t.results, m)
		}
	}
	return t
}

func hasAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func (s *script) text(content string) llmtest.Reply {
	return llmtest.Text(content).WithRate(s.rate)
}

func (s *script) reply(req llmtest.Request) llmtest.Reply {
	t := readTurn(req)
	tokens := llm.EstimateTokens(req.Messages)
	var r llmtest.Reply
	switch {
	case t.compaction:
		r = llmtest.Text(summary)
	case t.subagent:
		r = s.subagentWork(t)
	case t.dmail:
		r = s.text(afterDMail)
	case hasAny(t.prompt, "plan"):
		r = s.planScene(t)
	case hasAny(t.prompt, "sub-agent", "subagent", "agents", "delegate", "parallel"):
		r = s.delegate(t)
	case hasAny(t.prompt, "backtrack", "d-mail", "dmail", "future", "time travel"):
		r = s.backtrack(t)
	case hasAny(t.prompt, "write", "file", "tool"):
		r = s.toolTrip(t)
	case hasAny(t.prompt, "code", "markdown", "example", "show"):
		r = s.text(codeAnswer)
	case strings.TrimSpace(t.prompt) == "":
		r = s.text(otherwise)
	default:
		r = s.text(otherwise)
	}
	return r.WithUsage(tokens, max(1, len(r.Content)/4))
}

// toolTrip: WriteFile (asks for approval) → ReadFile → answer.
func (s *script) toolTrip(t turn) llmtest.Reply {
	switch len(t.results) {
	case 0:
		s.mu.Lock()
		s.writes++
		id := "demo_write_" + strconv.Itoa(s.writes)
		s.mu.Unlock()
		r := llmtest.Calls(llmtest.Call(id, "WriteFile", map[string]any{"path": "hello.go", "content": helloGo}))
		r.Content = "I'll write a small Go program into the demo work directory. rewind asks you first — press **y** to approve once, **a** for the rest of the session, **n** to reject.\n"
		return r.WithRate(s.rate)
	case 1:
		if strings.HasPrefix(t.results[0].Content.PlainText(), "ERROR") {
			return s.text("The write did not happen, so there is nothing to read back. Ask again when you want to see the round trip.")
		}
		r := llmtest.Calls(llmtest.Call("demo_read_1", "ReadFile", map[string]any{"path": "hello.go"}))
		r.Content = "Written. Reading it back to check (reads need no approval):\n"
		return r.WithRate(s.rate)
	}
	return s.text(fmt.Sprintf(toolDone, s.approval(t.writeID)))
}

// delegate: two sub-agents at once (explore lists the files, coder
// counts README's lines with Shell, which asks "coder · Shell"), then a
// summary of their answers.
func (s *script) delegate(t turn) llmtest.Reply {
	if len(t.results) == 0 {
		r := llmtest.Calls(
			llmtest.Call("demo_agent_explore", "Agent", map[string]any{"description": "list the demo files", "subagent_type": "explore",
				"prompt": "List the files of the work directory and say what each is for."}),
			llmtest.Call("demo_agent_coder", "Agent", map[string]any{"description": "count README lines", "subagent_type": "coder",
				"prompt": "Count the lines of README.txt with wc -l and report the number."}),
		)
		r.Content = "I'll split this between two sub-agents working at the same time, each in a context of its own. Select an **Agent** row (Tab, then ↑/↓) to watch one in the tool output pane; the coder's Shell call asks you through this dialog.\n"
		return r.WithRate(s.rate)
	}
	return s.text(delegated)
}

// planScene: in plan mode, a write (refused: plan mode's tool error),
// then the plan through ExitPlanMode; outside it, how to enter it.
func (s *script) planScene(t turn) llmtest.Reply {
	switch {
	case len(t.results) == 0 && !t.planning:
		return s.text(planOff)
	case len(t.results) == 0:
		r := llmtest.Calls(llmtest.Call("demo_plan_write", "WriteFile", map[string]any{"path": "CHANGES.md", "content": "# Changes\n\n- hello.go greets by name\n"}))
		r.Content = "Plan mode is on, so I should only read and plan. Let me try a write anyway, to show what happens:\n"
		return r.WithRate(s.rate)
	case len(t.results) == 1:
		r := llmtest.Calls(llmtest.Call("demo_plan_exit", "ExitPlanMode", map[string]any{"plan": demoPlan}))
		r.Content = "Refused, with a tool error that says why: while planning only read-only tools run. So here is the plan instead, for your approval (**y** approves and leaves plan mode, **f** keeps planning with your feedback, **n** rejects):\n"
		return r.WithRate(s.rate)
	}
	last := t.results[len(t.results)-1].Content.PlainText()
	if strings.HasPrefix(last, "The user approved the plan") {
		return s.text(planApproved)
	}
	return s.text("The plan was not approved, so plan mode stays on and nothing was changed. Tell me what to change in it, or press Shift-Tab to leave plan mode.")
}

const demoPlan = "# Greet by name\n\n1. Read hello.go and README.txt.\n2. Make hello.go take a name from its arguments.\n3. Note the change in CHANGES.md.\n4. Run `go run hello.go Ada` to check it."

const planOff = "Plan mode is off. Press **Shift-Tab** in the input (or type `/plan`): the status bar shows **PLAN**, and only read-only tools run until you approve a plan. Then ask me to plan a change again."

const planApproved = "Plan approved: plan mode is off (the **PLAN** label is gone) and every tool runs again. This demo stops here; a real model would now carry out the plan, each write still asking you first."

// subagentWork is a sub-agent's side of delegate.
func (s *script) subagentWork(t turn) llmtest.Reply {
	count := strings.Contains(t.prompt, "wc -l")
	switch {
	case len(t.results) == 0 && count:
		r := llmtest.Calls(llmtest.Call("demo_wc", "Shell", map[string]any{"command": "wc -l README.txt"}))
		r.Content = "Counting with wc.\n"
		return r.WithRate(s.rate)
	case len(t.results) == 0:
		r := llmtest.Calls(llmtest.Call("demo_ls", "ListDir", map[string]any{"path": "."}))
		r.Content = "Listing the work directory.\n"
		return r.WithRate(s.rate)
	case count:
		out, _, _ := strings.Cut(strings.TrimSpace(t.results[0].Content.PlainText()), "\n")
		return s.text("README.txt: " + out + " (from `wc -l`).")
	}
	return s.text("The work directory holds:\n\n" + strings.TrimSpace(t.results[0].Content.PlainText()) + "\n\nREADME.txt says what the directory is for; the rest are files the demo wrote.")
}

// approval is who answered the approval of tool call id, for the table.
func (s *script) approval(id string) string {
	s.mu.Lock()
	pid, ok := s.answers[id]
	s.mu.Unlock()
	switch {
	case !ok:
		return "not asked"
	case pid == 0:
		return "asked you"
	default:
		return fmt.Sprintf("by watcher pid %d", pid)
	}
}

// backtrack: a failed attempt, then a D-Mail to the step's checkpoint.
func (s *script) backtrack(t turn) llmtest.Reply {
	switch len(t.results) {
	case 0:
		r := llmtest.Calls(llmtest.Call("demo_read_cfg", "ReadFile", map[string]any{"path": "config/settings.yaml"}))
		r.Content = "Let me look for the project's settings first.\n"
		return r.WithRate(s.rate)
	case 1:
		cp := t.stepCP
		if cp < 0 {
			cp = 0
		}
		r := llmtest.Calls(llmtest.Call("demo_dmail", "SendDMail", map[string]any{
			"checkpoint_id": cp,
			"message":       "There is no config/settings.yaml in this directory: do not look for it. The demo project is just hello.go and README.txt; answer from those.",
		}))
		r.Content = "That file does not exist — a dead end. Rather than leave the detour in the context, I'll send a D-Mail to my past self at checkpoint " + strconv.Itoa(cp) + " and take the better path.\n"
		return r.WithRate(s.rate)
	}
	return s.text(afterDMail)
}

const delegated = "Both sub-agents are done. Each ran as a **session of its own** (`rewind sessions` lists them with `↳ explore` and `↳ coder`, folded under this one in the browser), saw only the prompt it was given, and only its last message came back here.\n\n" +
	"Their file edits, if they made any, are checkpoints of this step: reverting this turn undoes them too."

const helloGo = `package main

import "fmt"

func main() {
	fmt.Println("hello from the rewind demo")
}
`

const codeAnswer = "## A tiny checkpointed store\n\n" +
	"rewind never deletes history: a revert starts a new **generation** that shares the old records. Here is the idea in a few lines of Go:\n\n" +
	"```go\ntype Generation struct {\n\tGen       int\n\tParentGen *int   // nil for a root (compaction, clear)\n\tForkSeq   *int64 // parent's records before this seq are shared\n}\n\n" +
	"// RevertTo writes one row: nothing is copied or deleted.\nfunc (db *DB) RevertTo(session string, checkpoint int) (Generation, error) {\n\tseq := db.checkpointSeq(session, checkpoint)\n\treturn db.startGeneration(session, &seq)\n}\n```\n\n" +
	"- each user prompt and each step starts with a **checkpoint** (see the Timeline pane)\n" +
	"- `/revert N` goes back to before checkpoint N; the rest is *archived*, not deleted\n" +
	"- `/restore G` brings an archived generation back\n\n" +
	"Next, try **write a file** to see a tool call and the approval dialog."

const toolDone = "Done: `hello.go` is in the demo work directory and reads back as written.\n\n" +
	"| step | tool | approval |\n|---|---|---|\n| 1 | WriteFile | %s |\n| 2 | ReadFile | not needed |\n\n" +
	"Each step started at a checkpoint — the Timeline pane lists them. Next, try **backtrack** to watch the model send a D-Mail to its past self, or `/compact`."

const afterDMail = "Following the note from my future self, I skipped the missing settings file.\n\n" +
	"The demo project is small:\n\n- `README.txt` — what this directory is for\n- `hello.go` — written by the tool round trip (if you ran it)\n\n" +
	"The detour is not lost: it sits in an **archived generation** (see the Timeline pane, dimmed), and the banner above says which checkpoint the D-Mail went to. Now try `/compact`."

const summary = "## Current focus\nTouring rewind's demo: code answers, tool calls with approval, D-Mail backtracks and compaction.\n\n" +
	"## Environment\nA demo work directory under $REWIND_HOME/demo-workdir; a scripted local model.\n\n" +
	"## Completed tasks\n- showed a markdown answer with code\n- wrote and read back hello.go (with approval)\n- backtracked with a D-Mail past a dead end\n\n" +
	"## Active issues\nNone.\n\n## Code state\nhello.go prints a greeting.\n\n## Important context\nThe original messages are kept in the archived generation; /restore brings them back."

const otherwise = "I'm the rewind demo model, so my repertoire is scripted. Things to try:\n\n" +
	"1. **show me some code** — markdown with a highlighted code block\n" +
	"2. **write a file** — a tool call that asks for your approval\n" +
	"3. **backtrack** — I hit a dead end and send a D-Mail to my past self\n" +
	"4. `/compact` — summarise the context into a new generation\n\n" +
	"Press **Esc** while I'm answering to interrupt, **Tab** to move between panes, and **?** for every key and command."
