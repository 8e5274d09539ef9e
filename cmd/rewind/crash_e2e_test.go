package main

// kill -9 of a running `rewind -p`: nothing committed is lost, the database
// passes integrity_check, no step is half-present, and `-c` resumes the
// session with a valid request.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
)

func TestKill9MidRunLosesNothingCommitted(t *testing.T) {
	t.Parallel()
	// Each case kills the process when the n-th event of a type streams by:
	// mid-stream of the third step, and right after a tool of step two ran.
	cases := []struct {
		name  string
		event string
		nth   int
	}{
		{"mid-stream", "ContentPart", 1},
		{"after-tool", "ToolResult", 2},
		{"step-begin", "StepBegin", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			var calls atomic.Int32
			srv.Handle(func(req llmtest.Request) llmtest.Reply {
				for _, m := range req.Messages {
					if m.Role == "user" && m.Content.PlainText() == "carry on" {
						return llmtest.Text("resumed")
					}
				}
				switch calls.Add(1) {
				case 1:
					return llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "a.txt", "content": "one\n"}))
				case 2:
					return llmtest.Calls(llmtest.Call("c2", "Shell", map[string]any{"command": "echo two > b.txt"}))
				default:
					return llmtest.Hang(2)
				}
			})
			e := newEnv(t).withServer(srv)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := e.command(ctx, "-p", "make two files", "--output", "jsonl", "--yolo")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			seen := map[string]int{}
			killed := false
			for sc.Scan() {
				var ev event
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
					t.Fatalf("not a JSON line: %q", sc.Text())
				}
				seen[ev.Type]++
				if ev.Type == tc.event && seen[ev.Type] == tc.nth {
					if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					killed = true
					break
				}
			}
			_ = cmd.Wait()
			if !killed {
				t.Fatalf("the run ended before %s #%d: saw %v", tc.event, tc.nth, seen)
			}
			// Steps known to be committed: every step whose successor began.
			committedSteps := seen["StepBegin"] - 1

			db, err := store.Open(context.Background(), e.dbPath())
			if err != nil {
				t.Fatalf("reopen after kill -9: %v", err)
			}
			var check string
			if err := db.Reader().QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
				t.Fatalf("integrity_check = %q, %v", check, err)
			}
			sessions, err := db.ListSessions(context.Background(), store.ListOptions{})
			if err != nil || len(sessions) != 1 {
				t.Fatalf("sessions after kill: %v, %v", sessions, err)
			}
			v, err := db.View(context.Background(), sessions[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			db.Close()
			msgs := v.Messages()
			assertWholeSteps(t, msgs)
			if !hasUserText(msgs, "make two files") {
				t.Fatalf("the prompt was not committed before the model was called: %s", describeRoles(msgs))
			}
			if got := countRole(msgs, "assistant"); got < committedSteps {
				t.Fatalf("%d assistant steps in the view, %d were committed: %s", got, committedSteps, describeRoles(msgs))
			}

			// --continue finds the session (the dead process's lease is taken
			// over) and the next request is valid.
			r := e.run("-c", "-p", "carry on")
			if r.code != 0 || r.stdout != "resumed\n" {
				t.Fatalf("resume after kill -9: %s", r)
			}
			reqs := srv.Requests()
			assertValidRequest(t, reqs[len(reqs)-1])
		})
	}
}

// assertWholeSteps fails when an assistant's tool calls are not all answered
// by the tool messages right after it.
func assertWholeSteps(t *testing.T, msgs []message.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		for k, c := range m.ToolCalls {
			j := i + 1 + k
			if j >= len(msgs) || msgs[j].Role != "tool" || msgs[j].ToolCallID != c.ID {
				t.Fatalf("step at message %d is half-present (call %s has no result): %s", i, c.ID, describeRoles(msgs))
			}
		}
	}
}

func assertValidRequest(t *testing.T, req llmtest.Request) {
	t.Helper()
	assertWholeSteps(t, req.Messages)
	for _, m := range req.Messages {
		if strings.HasPrefix(m.Role, "_") {
			t.Fatalf("pseudo-role %q sent to the model", m.Role)
		}
		for _, c := range m.ToolCalls {
			if !json.Valid([]byte(c.Args)) {
				t.Fatalf("invalid JSON arguments sent back: %q", c.Args)
			}
		}
	}
}

func hasUserText(msgs []message.Message, text string) bool {
	for _, m := range msgs {
		if m.Role == "user" && m.Content.PlainText() == text {
			return true
		}
	}
	return false
}

func countRole(msgs []message.Message, role string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

func describeRoles(msgs []message.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = fmt.Sprintf("%s(%d calls)", m.Role, len(m.ToolCalls))
	}
	return strings.Join(parts, ",")
}
