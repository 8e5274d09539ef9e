package demo

import (
	"context"
	"github.com/rewind-agent/rewind/store/message"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// demoEnv opens a store and a demo work dir under a temporary home and
// starts the demo model; all are closed when the test ends.
func demoEnv(t *testing.T) (context.Context, *store.DB, string, *Model) {
	t.Helper()
	ctx := context.Background()
	home := t.TempDir()
	db := storetest.OpenAt(t, filepath.Join(home, "rewind.db"), store.Options{})
	work, err := WorkDir(home)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Start(Options{TokensPerSecond: 20000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return ctx, db, work, m
}

// TestScriptEndToEnd drives the whole demo script through a real Soul, the
// real provider and the demo's HTTP server, and checks what the store keeps.
func TestScriptEndToEnd(t *testing.T) {
	t.Parallel()
	ctx, db, work, m := demoEnv(t)
	sess, err := db.CreateSession(ctx, store.NewSession{Title: Title, WorkDir: work, Model: ModelName})
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var events []soul.Event
	approvals := 0
	sink := func(e soul.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
		if r, ok := e.(*soul.ApprovalRequest); ok {
			approvals++
			if r.Tool != "WriteFile" || !strings.Contains(r.Diff, "hello from the rewind demo") {
				t.Errorf("approval = %+v", r)
			}
			if r.Answer(soul.ApproveOnce, "") {
				m.Answered(r.ToolCallID, 0) // as the workspace does
			}
		}
	}
	s := soul.New(soul.Config{MaxContextSize: 32000, ReservedTokens: 4000}, db, sess.ID, m.Client(), tools.Default(), work, sink)
	last := func() string {
		v, err := db.View(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		msgs := v.Messages()
		return msgs[len(msgs)-1].Content.PlainText()
	}

	// 1. Markdown with a fenced code block.
	if err := s.Run(ctx, "show me some code"); err != nil {
		t.Fatalf("code: %v", err)
	}
	if a := last(); !strings.Contains(a, "```go") || !strings.Contains(a, "## ") {
		t.Fatalf("code answer = %q", a)
	}

	// 2. Tool round trip with an approval.
	if err := s.Run(ctx, "write a file"); err != nil {
		t.Fatalf("tool trip: %v", err)
	}
	if approvals != 1 {
		t.Fatalf("approvals = %d, want 1", approvals)
	}
	if b, err := os.ReadFile(filepath.Join(work, "hello.go")); err != nil || !strings.Contains(string(b), "package main") {
		t.Fatalf("hello.go = %q, %v", b, err)
	}
	if a := last(); !strings.Contains(a, "reads back as written") || !strings.Contains(a, "| WriteFile | asked you |") {
		t.Fatalf("tool trip answer = %q", a)
	}

	// 3. Model-initiated backtrack: a failed read, a D-Mail, a better answer.
	if err := s.Run(ctx, "backtrack"); err != nil {
		t.Fatalf("backtrack: %v", err)
	}
	var bt *soul.Backtrack
	mu.Lock()
	for _, e := range events {
		if b, ok := e.(soul.Backtrack); ok {
			bt = &b
		}
	}
	mu.Unlock()
	if bt == nil || bt.ReturnedTo != "backtrack" || bt.Discarded == 0 || !strings.Contains(bt.Note, "settings.yaml") {
		t.Fatalf("backtrack event = %+v", bt)
	}
	if a := last(); !strings.Contains(a, "note from my future self") {
		t.Fatalf("answer after the D-Mail = %q", a)
	}
	v, _ := db.View(ctx, sess.ID)
	for _, msg := range v.Messages() {
		for _, c := range msg.ToolCalls {
			if c.Name == "SendDMail" || strings.Contains(c.Args, "settings.yaml") {
				t.Fatalf("the detour is still in the view: %+v", c)
			}
		}
	}

	// 4. /compact gets the demo's summary.
	if err := s.Compact(ctx); err != nil {
		t.Fatalf("compact: %v", err)
	}
	gens, err := db.Generations(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var causes []string
	for _, g := range gens {
		causes = append(causes, string(g.Cause))
	}
	if got := strings.Join(causes, ","); got != "start,backtrack,compact" {
		t.Fatalf("generation causes = %s", got)
	}
	// As kimi-cli writes one: checkpoint 0 (and its marker), then the summary.
	v, _ = db.View(ctx, sess.ID)
	if msgs := v.Messages(); len(msgs) < 2 || !message.IsCheckpoint(msgs[0]) || !strings.Contains(msgs[1].Content.PlainText(), "## Current focus") {
		t.Fatalf("compacted view starts with %q", msgs[0].Content.PlainText())
	}
	// The archived generations still hold everything.
	old, err := db.GenerationView(ctx, sess.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, msg := range old.Messages() {
		for _, c := range msg.ToolCalls {
			if c.Name == "SendDMail" {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("the archived generation lost the D-Mail step")
	}

	// 5. Anything else: a friendly reply saying what to try.
	if err := s.Run(ctx, "what is the weather like"); err != nil {
		t.Fatal(err)
	}
	if a := last(); !strings.Contains(a, "/compact") || !strings.Contains(a, "Esc") {
		t.Fatalf("fallback answer = %q", a)
	}
	for _, r := range m.Requests() {
		if r.Model != ModelName {
			t.Fatalf("request for model %q", r.Model)
		}
	}
}

func TestRejectedWriteStopsTheRun(t *testing.T) {
	t.Parallel()
	ctx, db, work, m := demoEnv(t)
	sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	s := soul.New(soul.Config{}, db, sess.ID, m.Client(), tools.Default(), work, func(e soul.Event) {
		if r, ok := e.(*soul.ApprovalRequest); ok {
			r.Respond(soul.Reject, "not now")
		}
	})
	if err := s.Run(ctx, "write a file"); err == nil {
		t.Fatal("a rejected write did not stop the run")
	}
	if _, err := os.Stat(filepath.Join(work, "hello.go")); err == nil {
		t.Fatal("hello.go was written after a reject")
	}
}

// TestToolTripSaysWhoAnswered: the tool round trip's table says who
// answered the WriteFile's approval: it said "asked you" also when a
// watcher (another process) had answered, or when nobody was asked.
func TestToolTripSaysWhoAnswered(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		yolo       bool
		watcherPID int
		want       string
	}{
		{"this screen", false, 0, "| 1 | WriteFile | asked you |"},
		{"a watcher", false, 4242, "| 1 | WriteFile | by watcher pid 4242 |"},
		{"yolo", true, 0, "| 1 | WriteFile | not asked |"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, db, work, m := demoEnv(t)
			sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: work})
			if err != nil {
				t.Fatal(err)
			}
			s := soul.New(soul.Config{Yolo: tc.yolo}, db, sess.ID, m.Client(), tools.Default(), work, func(e soul.Event) {
				if r, ok := e.(*soul.ApprovalRequest); ok {
					if r.Answer(soul.ApproveOnce, "") {
						m.Answered(r.ToolCallID, tc.watcherPID) // as the workspace does
					}
				}
			})
			if err := s.Run(ctx, "write a file"); err != nil {
				t.Fatal(err)
			}
			v, err := db.View(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			msgs := v.Messages()
			if a := msgs[len(msgs)-1].Content.PlainText(); !strings.Contains(a, tc.want) {
				t.Fatalf("the answer does not say %q:\n%s", tc.want, a)
			}
		})
	}
}

// TestPlanModeTurnEnds: in plan mode the request ends with rewind's plan
// reminder, which the script took for the user's prompt: it mentions
// sub-agents, so every reply called the sub-agents again until max steps.
// The script reads the user's real prompt and the turn ends.
func TestPlanModeTurnEnds(t *testing.T) {
	t.Parallel()
	ctx, db, work, m := demoEnv(t)
	sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	var answer strings.Builder
	s := soul.New(soul.Config{MaxStepsPerRun: 6}, db, sess.ID, m.Client(), tools.Default(), work, func(e soul.Event) {
		if p, ok := e.(soul.ContentPart); ok {
			answer.WriteString(p.Text)
		}
	})
	s.SetPlanMode(true)
	if err := s.Run(ctx, "write a file"); err != nil {
		t.Fatalf("the run did not end: %v", err)
	}
	if !strings.Contains(answer.String(), "The write did not happen") {
		t.Fatalf("answer %q", answer.String())
	}
}

// TestPlanScene: asked for a plan in plan mode, the demo model tries a
// write, which plan mode refuses with a tool error saying why, then shows
// its plan with ExitPlanMode; approving it ends plan mode. Outside plan
// mode it says how to enter it.
func TestPlanScene(t *testing.T) {
	t.Parallel()
	ctx, db, work, m := demoEnv(t)
	sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var answer strings.Builder
	var refused string
	var plan string
	s := soul.New(soul.Config{MaxStepsPerRun: 6}, db, sess.ID, m.Client(), tools.Default(), work, func(e soul.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := e.(type) {
		case soul.ContentPart:
			answer.WriteString(ev.Text)
		case soul.ToolResult:
			if ev.IsError && refused == "" {
				refused = ev.Output
			}
		case *soul.ApprovalRequest:
			plan = ev.Plan
			ev.Answer(soul.ApproveOnce, "")
		}
	})
	if err := s.Run(ctx, "plan a change"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer.String(), "Shift-Tab") {
		t.Errorf("outside plan mode: %q", answer.String())
	}
	answer.Reset()
	s.SetPlanMode(true)
	if err := s.Run(ctx, "plan a change"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(refused, "Plan mode is on: WriteFile was not run") {
		t.Errorf("the write's result: %q", refused)
	}
	if !strings.Contains(plan, "1.") {
		t.Errorf("the plan shown: %q", plan)
	}
	if s.InPlanMode() || !strings.Contains(answer.String(), "approved") {
		t.Errorf("after approving: plan mode %v, answer %q", s.InPlanMode(), answer.String())
	}
	if _, err := os.Stat(filepath.Join(work, "CHANGES.md")); err == nil {
		t.Error("plan mode let the write through")
	}
}
