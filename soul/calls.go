package soul

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/tools"
)

// notRunOutput answers calls after a rejected one in the same step.
const notRunOutput = "This tool call was not run because an earlier tool call in the same step was rejected by the user."

// emptyOutput is what the model sees for a tool that printed nothing.
const emptyOutput = "<system>Tool output is empty.</system>"

type pendingCall struct {
	call     message.ToolCall
	tool     tools.Tool
	args     json.RawMessage
	invalid  string // set: do not run, this is the error for the model
	res      tools.Result
	duration time.Duration
}

// callsOutcome says whether the user rejected a call of the step.
type callsOutcome int

const (
	callsRan        callsOutcome = iota
	callsRedirected              // rejected with feedback: the run goes on
	callsRejected                // rejected: the run ends
)

// runCalls runs the tool calls of one step and returns their results in
// call order, and whether the user rejected one of them. Read-only calls
// next to each other run in parallel; the others one at a time. Unknown
// tools and malformed arguments become tool errors without running
// anything. After a rejection the remaining calls are answered with
// notRunOutput (they were planned before the user's answer). If ctx is cancelled the results are incomplete; the caller
// does not commit them.
func (s *Soul) runCalls(ctx context.Context, calls []message.ToolCall) ([]message.Message, callsOutcome) {
	if len(calls) == 0 {
		return nil, callsRan
	}
	pcs := make([]*pendingCall, len(calls))
	for i, c := range calls {
		pc := &pendingCall{call: c}
		t, ok := s.lookupTool(c.Name)
		switch {
		case !ok || s.hidden(c.Name):
			pc.invalid = fmt.Sprintf("Tool %q does not exist. Available tools: %s.", c.Name, strings.Join(s.set.Names(), ", "))
		case strings.TrimSpace(c.Args) == "":
			pc.tool, pc.args = t, json.RawMessage("{}")
		case !validArgs(c.Args):
			pc.invalid = fmt.Sprintf("Invalid arguments for %s: the arguments are not a valid JSON object (%s). Call the tool again with a JSON object matching its schema.", c.Name, jsonProblem(c.Args))
		default:
			pc.tool, pc.args = t, json.RawMessage(c.Args)
		}
		pcs[i] = pc
	}

	outcome := callsRan
	for i := 0; i < len(pcs); {
		if ctx.Err() != nil {
			return nil, outcome
		}
		// A group: a run of parallel-safe calls, or one call.
		j := i + 1
		if s.parallelSafe(pcs[i]) {
			for j < len(pcs) && s.parallelSafe(pcs[j]) {
				j++
			}
		}
		group := pcs[i:j]
		for _, pc := range group {
			s.emit(ToolCall{ID: pc.call.ID, Name: pc.call.Name, Arguments: pc.call.Args})
		}
		if outcome != callsRan {
			for _, pc := range group {
				pc.res = tools.Result{Output: notRunOutput, IsError: true, Brief: "not run"}
			}
		} else if len(group) == 1 {
			s.callOne(ctx, group[0])
		} else {
			var wg sync.WaitGroup
			for _, pc := range group {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s.callOne(ctx, pc)
				}()
			}
			wg.Wait()
		}
		for _, pc := range group {
			s.checkLoop(pc)
			switch {
			case pc.res.Rejected && !pc.res.Continue:
				outcome = callsRejected
			case pc.res.Rejected && outcome == callsRan:
				outcome = callsRedirected
			}
			s.emit(ToolResult{
				ID:       pc.call.ID,
				Name:     pc.call.Name,
				Output:   pc.res.Output,
				IsError:  pc.res.IsError,
				Brief:    pc.res.Brief,
				Duration: pc.duration,
				Todos:    convertTodos(pc.res.Todos),
				Images:   imageInfos(pc.res.Images),
			})
		}
		i = j
	}
	if ctx.Err() != nil {
		return nil, outcome
	}
	out := make([]message.Message, len(pcs))
	for i, pc := range pcs {
		out[i] = toolMessage(pc.call.ID, pc.res)
	}
	return out, outcome
}

// parallelSafe: calls of read-only tools (tools.ReadOnlyTool) and invalid
// calls, which run nothing, may run in parallel with each other; every
// other call runs alone, in call order.
func (s *Soul) parallelSafe(pc *pendingCall) bool {
	if pc.invalid != "" {
		return true
	}
	ro, ok := pc.tool.(tools.ReadOnlyTool)
	return ok && ro.ReadOnly()
}

// callOne runs one call, filling pc.res and pc.duration.
func (s *Soul) callOne(ctx context.Context, pc *pendingCall) {
	start := time.Now()
	defer func() { pc.duration = time.Since(start) }()
	if pc.invalid != "" {
		pc.res = tools.Result{Output: pc.invalid, IsError: true, Brief: "invalid call"}
		return
	}
	id := pc.call.ID
	// Every tool's output passes here: its secrets are redacted before
	// anyone sees, stores or sends it. A secret cut between two chunks of
	// live output is held until the next chunk or the end decides.
	live := s.cfg.Redact.Stream()
	var liveMu sync.Mutex // a tool may write from several goroutines
	defer func() {
		if tail := live.Flush(); tail != "" {
			s.emit(ToolOutput{ID: id, Text: tail})
		}
		pc.res.Output = s.cfg.Redact.Redact(pc.res.Output)
		pc.res.Brief = s.cfg.Redact.Redact(pc.res.Brief)
	}()
	env := &tools.Env{
		WorkDir: s.workDir,
		Output: func(text string) {
			liveMu.Lock()
			defer liveMu.Unlock()
			if text = live.Write(text); text != "" {
				s.emit(ToolOutput{ID: id, Text: text})
			}
		},
		Approve: func(ctx context.Context, a tools.Approval) tools.Decision {
			return s.approve(ctx, pc.call, a)
		},
		Files: s.cfg.Files,
		DMail: s.sendDMail,
		Plan:  s,
	}
	if why := planRefusal(pc.call.Name, pc.args); why != "" && s.InPlanMode() {
		pc.res = tools.Result{Output: why, IsError: true, Brief: "refused: plan mode"}
		return
	}
	if at, ok := pc.tool.(*agentTool); ok {
		// The Agent tool needs the call's id: its child records it.
		pc.res = at.run(ctx, id, pc.args)
		return
	}
	pc.res = s.set.Call(ctx, env, pc.call.Name, pc.args)
}

// approve asks the user through an ApprovalRequest event unless yolo is on
// or the action was approved for the session. Cancelling ctx rejects.
func (s *Soul) approve(ctx context.Context, call message.ToolCall, a tools.Approval) tools.Decision {
	if p := s.parent; p != nil {
		// A sub-agent asks through its parent: the parent's dialog, yolo
		// and session approvals.
		return p.soul.approveFor(ctx, call, a, p)
	}
	return s.approveFor(ctx, call, a, nil)
}

// approveFor is approve for this Soul's call or, with from set, for a call
// of one of its sub-agents.
func (s *Soul) approveFor(ctx context.Context, call message.ToolCall, a tools.Approval, from *subagentParent) tools.Decision {
	keys := approvalKeys(a)
	// A plan is approved by the user each time: not by yolo, not for the
	// session (kimi-cli: yolo does not approve ExitPlanMode).
	isPlan := a.Action == tools.ActionApprovePlan
	granted := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if isPlan {
			return false
		}
		if s.yolo {
			return true
		}
		for _, k := range keys {
			if !s.approved[k] {
				return false
			}
		}
		return true
	}
	if granted() {
		return tools.Decision{Approved: true}
	}
	// One question at a time: parallel read-only calls may also ask (paths
	// outside the work dir), and an answer "for the session" may settle the
	// next question.
	s.approvalMu.Lock()
	defer s.approvalMu.Unlock()
	if granted() {
		return tools.Decision{Approved: true}
	}
	if ctx.Err() != nil {
		return tools.Decision{Approved: false, Feedback: "interrupted"}
	}
	req := &ApprovalRequest{
		ToolCallID:    call.ID,
		Tool:          a.Tool,
		Action:        a.Action,
		Description:   a.Description,
		Arguments:     call.Args,
		Diff:          s.cfg.Redact.Redact(a.Diff), // a file's old text may hold a key
		Command:       a.Command,
		SessionScopes: a.Scopes,
		Plan:          a.Plan,
		reply:         make(chan approvalReply, 1),
	}
	if from != nil {
		req.Subagent, req.SubagentCallID = from.typ, from.callID
	}
	s.emit(req)
	select {
	case r := <-req.reply:
		switch r.decision {
		case ApproveForSession:
			if isPlan {
				return tools.Decision{Approved: true}
			}
			s.mu.Lock()
			for _, k := range keys {
				s.approved[k] = true
			}
			s.mu.Unlock()
			return tools.Decision{Approved: true}
		case ApproveOnce:
			return tools.Decision{Approved: true}
		case RejectWithFeedback:
			return tools.Decision{Approved: false, Feedback: r.feedback, Continue: true}
		default:
			return tools.Decision{Approved: false, Feedback: r.feedback}
		}
	case <-ctx.Done():
		return tools.Decision{Approved: false, Feedback: "interrupted"}
	}
}

// approvalKeys are the session approvals a request needs, all of them:
// the action ("edit file"), or for a shell command one per scope
// ("run shell command: go test …").
func approvalKeys(a tools.Approval) []string {
	action := a.Action
	if action == "" {
		action = a.Tool
	}
	if len(a.Scopes) == 0 {
		return []string{action}
	}
	keys := make([]string, len(a.Scopes))
	for i, sc := range a.Scopes {
		keys[i] = action + ": " + sc
	}
	return keys
}

// ApprovedForSession lists what was approved for the session, sorted:
// actions ("edit file") and shell scopes ("run shell command: go test …").
func (s *Soul) ApprovedForSession() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.approved))
	for k := range s.approved {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RevokeApproval withdraws one session approval (as ApprovedForSession
// lists it); the next such call asks again. It reports whether there was
// such an approval.
func (s *Soul) RevokeApproval(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok := s.approved[key]
	delete(s.approved, key)
	return ok
}

// RevokeAllApprovals withdraws every session approval and returns how many
// there were.
func (s *Soul) RevokeAllApprovals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.approved)
	clear(s.approved)
	return n
}

// sendDMail is tools.Env.DMail: it queues a D-Mail, delivered after the step.
func (s *Soul) sendDMail(message string, checkpointID int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.pending != nil:
		return errors.New("only one D-Mail can be sent at a time")
	case checkpointID < 0 || checkpointID >= s.nextCheckpoint:
		if s.nextCheckpoint == 0 {
			return fmt.Errorf("there is no checkpoint %d: the context has no checkpoints yet", checkpointID)
		}
		return fmt.Errorf("there is no checkpoint %d: checkpoints of the current context are 0 to %d", checkpointID, s.nextCheckpoint-1)
	}
	s.pending = &dmail{message: message, checkpoint: checkpointID}
	return nil
}

// checkLoop feeds every call to the loop detector (a Shell call as its
// command, any other as its name and arguments); a streak of near-identical
// calls adds a note to the result for the model and a LoopWarning for the
// user.
func (s *Soul) checkLoop(pc *pendingCall) {
	if pc.invalid != "" {
		return
	}
	call := pc.call.Name + " " + string(pc.args)
	if pc.call.Name == "Shell" {
		var a struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(pc.args, &a) == nil && a.Command != "" {
			call = a.Command
		}
	}
	s.mu.Lock()
	ld := s.loop
	s.mu.Unlock()
	if ld == nil {
		return
	}
	if w, count := ld.Record(call); w != "" {
		s.emit(LoopWarning{Command: call, Count: count})
		pc.res.Output = strings.TrimRight(pc.res.Output, "\n") + "\n\n<system>" + w + "</system>"
	}
}

// toolMessage is the tool result message the model sees.
func toolMessage(id string, r tools.Result) message.Message {
	if r.IsError {
		return message.ToolError(id, r.Output)
	}
	out := r.Output
	if strings.TrimSpace(out) == "" {
		out = emptyOutput
	}
	if len(r.Images) > 0 {
		parts := []message.Part{{Type: "text", Text: out}}
		for _, im := range r.Images {
			parts = append(parts, message.ImageParts(im.Path, im.DataURL())...)
		}
		return message.Message{Role: "tool", Content: message.Content{Parts: parts}, ToolCallID: id}
	}
	return message.Message{Role: "tool", Content: message.TextContent(out), ToolCallID: id}
}

func convertTodos(ts []tools.Todo) []Todo {
	if len(ts) == 0 {
		return nil
	}
	out := make([]Todo, len(ts))
	for i, t := range ts {
		out[i] = Todo{Title: t.Title, Status: t.Status}
	}
	return out
}

// jsonProblem describes why args are not a JSON object, briefly.
func jsonProblem(args string) string {
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return err.Error()
	}
	switch v.(type) {
	case []any:
		return "got a JSON array"
	case string:
		return "got a JSON string"
	case float64:
		return "got a JSON number"
	case bool:
		return "got a JSON boolean"
	default:
		return "got JSON null"
	}
}
