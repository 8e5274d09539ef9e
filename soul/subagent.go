package soul

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
)

// The Agent tool (kimi-cli 1.49's name; Task is the older one): the model
// starts a sub-agent, a Soul of its own on a session of its own, that sees
// only the prompt it is given and answers with its last message.

// Names of the sub-agent tool and its alias.
const (
	AgentToolName     = "Agent"
	agentAliasName    = "Task"
	defaultSubagent   = "coder"
	defaultMaxRunning = 4
	// maxAgentTimeout is kimi-cli's bound of the timeout argument.
	maxAgentTimeout = 3600
)

// Subagents lets the soul offer the Agent tool, with the sub-agent types
// its agent file defines (agentspec: their prompts and tools), when the
// file offers Agent. A Soul without it (nil) has no Agent tool; a
// sub-agent's Soul never has one.
type Subagents struct {
	// Host opens the session of each run (a new one, or a resumed one).
	Host SubagentHost
	// MaxRunning bounds the sub-agents running at once (several Agent calls
	// of one step); 0 means 4.
	MaxRunning int
}

// subagentType is one sub-agent type of the agent file.
type subagentType struct {
	name  string
	agent *agentspec.Agent
}

// SubagentHost opens and closes the sessions of sub-agent runs: app
// creates them in the store, holds their lease and publishes their live
// channel, which the soul does not know about.
type SubagentHost interface {
	StartSubagent(ctx context.Context, r SubagentStart) (SubagentRun, error)
}

// SubagentStart asks for the session of a sub-agent run.
type SubagentStart struct {
	Parent      string // the parent session
	CallID      string // the parent's Agent tool call
	Type        string
	Description string // the title of a new session
	WorkDir     string
	Model       string
	// Agent is the parent's agent (agentspec.Agent.Ref), the file that
	// defines Type: a new session records it, so opening the child on its
	// own runs it as that type again.
	Agent string
	// Resume continues this earlier sub-agent session instead of creating
	// one; its stored type wins over Type.
	Resume string
}

// SubagentRun is an opened sub-agent session, held until Close.
type SubagentRun struct {
	SessionID string
	Type      string
	// ArchivedWith, for a resumed run, is the parent's generation it was
	// archived with (a revert of the parent went back before its call); -1
	// when it was not archived.
	ArchivedWith int
	// Publish sends the child's events to its own watchers (rewind watch
	// CHILD); nil: none.
	Publish func(Event)
	// Close releases the session (lease, live channel).
	Close func()
}

// SubagentEvent is an event of a sub-agent run, forwarded on the parent's
// stream: the UI shows the child's progress under the Agent call
// ParentCallID. Its approval requests are not wrapped: they are the
// parent's (ApprovalRequest.Subagent names the child).
type SubagentEvent struct {
	ParentCallID string `json:"parent_call_id"`
	SessionID    string `json:"session_id"`
	Type         string `json:"subagent_type"`
	Event        Event  `json:"-"`
}

func (SubagentEvent) EventType() string { return "SubagentEvent" }

// MarshalJSON nests the child's event as MarshalEvent writes it.
func (e SubagentEvent) MarshalJSON() ([]byte, error) {
	var inner json.RawMessage
	if e.Event != nil {
		b, err := MarshalEvent(e.Event)
		if err != nil {
			return nil, err
		}
		inner = b
	}
	type plain SubagentEvent
	return json.Marshal(struct {
		plain
		Event json.RawMessage `json:"event,omitempty"`
	}{plain(e), inner})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (e *SubagentEvent) UnmarshalJSON(b []byte) error {
	type plain SubagentEvent
	var w struct {
		plain
		Event json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = SubagentEvent(w.plain)
	if len(w.Event) > 0 && string(w.Event) != "null" {
		ev, err := UnmarshalEvent(w.Event)
		if err != nil {
			return err
		}
		e.Event = ev
	}
	return nil
}

// agentArgs are the Agent tool's arguments (Task's subagent_name is read
// into SubagentType).
type agentArgs struct {
	Description string `json:"description" jsonschema:"A short (3-5 word) description of the task."`
	Prompt      string `json:"prompt" jsonschema:"The task for the sub-agent, with everything it needs to know."`
	// Only one of the two type keys is offered (agentTool.Schema).
	SubagentType string `json:"subagent_type,omitempty"`
	SubagentName string `json:"subagent_name,omitempty"`
	Resume       string `json:"resume,omitempty" jsonschema:"The agent_id of an earlier sub-agent to continue, instead of starting a new one."`
	Timeout      int    `json:"timeout,omitempty" jsonschema:"Stop the sub-agent after this many seconds (no limit by default)."`
}

// About: the name, description and types are each agentTool's own.
func (agentArgs) About() tools.About {
	return tools.About{Name: AgentToolName, ReadOnly: true, Params: map[string]tools.Param{
		"timeout": {Minimum: tools.Min(1), Maximum: tools.Min(maxAgentTimeout)},
	}}
}

// Label is "coder · count the failing tests": the type (the default when
// none is given, or the agent id a resumed run continues) and the task.
func (a agentArgs) Label() string {
	typ := a.SubagentType
	if typ == "" {
		typ = a.SubagentName
	}
	switch {
	case typ == "" && a.Resume != "":
		typ = "resume " + a.Resume[:min(len(a.Resume), 10)]
	case typ == "":
		typ = defaultSubagent
	}
	if d := strings.TrimSpace(a.Description); d != "" {
		return typ + " · " + d
	}
	return typ
}

func init() {
	// Stored sessions label Agent and Task calls as live ones do.
	tools.RegisterLabeler(AgentToolName, tools.Typed[agentArgs]{})
	tools.RegisterLabeler(agentAliasName, tools.Typed[agentArgs]{})
}

// agentTool is the Agent tool of one Soul (alias: Task).
type agentTool struct {
	tools.Typed[agentArgs] // label and argument checks; the rest is per Soul
	s                      *Soul
	name                   string // AgentToolName or agentAliasName
	types                  []subagentType
}

var _ tools.ReadOnlyTool = (*agentTool)(nil)

func (t *agentTool) Name() string { return t.name }

// ReadOnly: Agent calls of one step run at once (up to MaxRunning), as
// kimi-cli's model is told it may; each sub-agent's own writes ask the
// parent's approval.
func (t *agentTool) ReadOnly() bool { return true }

func (t *agentTool) Description() string {
	var b strings.Builder
	b.WriteString("Start a sub-agent to work on a focused task in a context of its own, and get its final answer back.\n\n")
	b.WriteString("The sub-agent does not see this conversation: give it everything it needs in `prompt`. Only its last message comes back to you; the user does not see it, so summarise it yourself when it matters to them.\n\n")
	b.WriteString("**Available types**\n\n")
	for _, ty := range t.types {
		fmt.Fprintf(&b, "- `%s`: %s (Tools: %s).", ty.name, ty.agent.Description, strings.Join(ty.agent.Tools, ", "))
		if w := strings.Join(strings.Fields(ty.agent.WhenToUse), " "); w != "" {
			b.WriteString(" When to use: " + w)
		}
		b.WriteString("\n")
	}
	b.WriteString(`
**Usage**

- Always give a short ` + "`description`" + ` (3-5 words).
- ` + "`subagent_type`" + ` selects the type; without it ` + "`" + t.defaultType() + "`" + ` is used.
- To continue an earlier sub-agent with what it already knows, pass its agent_id as ` + "`resume`" + `.
- Several Agent calls in one step run at the same time: use that for independent questions.
- Say whether the sub-agent should change code or only research.
- Do not use it for what one or two direct tool calls do (reading a known file, one search).
`)
	return b.String()
}

func (t *agentTool) defaultType() string {
	for _, ty := range t.types {
		if ty.name == defaultSubagent {
			return ty.name
		}
	}
	if len(t.types) > 0 {
		return t.types[0].name
	}
	return defaultSubagent
}

// Schema offers the type under the key the tool is called by (Task's is
// subagent_name), as an enum of the agent file's types.
func (t *agentTool) Schema() json.RawMessage {
	typeKey, other := "subagent_type", "subagent_name"
	if t.name == agentAliasName {
		typeKey, other = other, typeKey
	}
	names := make([]any, len(t.types))
	for i, ty := range t.types {
		names[i] = ty.name
	}
	return t.SchemaWith(func(s *jsonschema.Schema) {
		delete(s.Properties, other)
		s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(k string) bool { return k == other })
		p := s.Properties[typeKey]
		p.Enum = names
		p.Default, _ = json.Marshal(t.defaultType()) // a string: cannot fail
		p.Description = "The sub-agent type. Defaults to `" + t.defaultType() + "`."
	})
}

// Call is the Agent tool run outside a step (no tool call id); the soul
// calls run with the id.
func (t *agentTool) Call(ctx context.Context, _ *tools.Env, args json.RawMessage) tools.Result {
	return t.run(ctx, "", args)
}

func (t *agentTool) run(ctx context.Context, callID string, raw json.RawMessage) tools.Result {
	a, res, ok := tools.DecodeAs[agentArgs](t.name, raw)
	if !ok {
		return res
	}
	if t.name == agentAliasName && a.SubagentType == "" {
		a.SubagentType = a.SubagentName
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return toolError("invalid arguments", "Invalid arguments for %s: the prompt is empty; give the sub-agent its task.", t.name)
	}
	if a.SubagentType == "" {
		a.SubagentType = t.defaultType()
	}
	return t.s.runSubagent(ctx, callID, a, t.types)
}

func toolError(brief, format string, args ...any) tools.Result {
	return tools.Result{Output: fmt.Sprintf(format, args...), IsError: true, Brief: brief}
}

// subagentParent is what a sub-agent's Soul keeps of its parent.
type subagentParent struct {
	soul   *Soul
	callID string
	typ    string
}

// addAgentTools puts the Agent tool (and its alias Task, which the model
// is not offered but may call) into the set, when the agent file offers it
// and defines sub-agent types.
func (s *Soul) addAgentTools(agent *agentspec.Agent) {
	sa := s.cfg.Subagents
	if sa == nil || sa.Host == nil || !agent.Offers(AgentToolName) {
		return
	}
	var types []subagentType
	for _, name := range agent.SubagentNames() {
		if child, ok := agent.Subagent(name); ok {
			types = append(types, subagentType{name: name, agent: child})
		}
	}
	if len(types) == 0 {
		return
	}
	n := sa.MaxRunning
	if n <= 0 {
		n = defaultMaxRunning
	}
	s.agentSlots = make(chan struct{}, n)
	s.agentTool = &agentTool{s: s, name: AgentToolName, types: types}
	s.taskAlias = &agentTool{s: s, name: agentAliasName, types: types}
	s.set = tools.NewSet(append([]tools.Tool{s.agentTool}, s.set.All()...)...)
}

// lookupTool is the set's tool, or the Agent tool's alias.
func (s *Soul) lookupTool(name string) (tools.Tool, bool) {
	if t, ok := s.set.Get(name); ok {
		return t, true
	}
	if name == agentAliasName && s.taskAlias != nil {
		return s.taskAlias, true
	}
	return nil, false
}

// runSubagent runs one sub-agent to its end and makes its answer (or what
// it did before it failed) the tool result.
func (s *Soul) runSubagent(ctx context.Context, callID string, a agentArgs, types []subagentType) tools.Result {
	if s.parent != nil {
		return toolError("Agent unavailable", "Sub-agents cannot start other sub-agents.")
	}
	typeByName := func(name string) (subagentType, bool) {
		i := slices.IndexFunc(types, func(t subagentType) bool { return t.name == name })
		if i < 0 {
			return subagentType{}, false
		}
		return types[i], true
	}
	ty, ok := typeByName(a.SubagentType)
	if !ok && a.Resume == "" {
		names := make([]string, len(types))
		for i, t := range types {
			names[i] = t.name
		}
		return toolError("unknown sub-agent type", "There is no sub-agent type %q. The types are: %s.", a.SubagentType, strings.Join(names, ", "))
	}
	// Wait for a free slot: several Agent calls of a step run at once, up
	// to MaxRunning.
	select {
	case s.agentSlots <- struct{}{}:
		defer func() { <-s.agentSlots }()
	case <-ctx.Done():
		return toolError("interrupted", "The sub-agent was interrupted before it started.")
	}
	s.mu.Lock()
	client := s.client
	s.mu.Unlock()
	run, err := s.cfg.Subagents.Host.StartSubagent(ctx, SubagentStart{
		Parent: s.sessionID, CallID: callID, Type: ty.name, Description: strings.TrimSpace(a.Description),
		WorkDir: s.workDir, Model: client.Model(), Agent: s.cfg.agent().Ref, Resume: a.Resume,
	})
	if err != nil {
		return toolError("Agent failed", "The sub-agent could not start: %v", err)
	}
	defer run.Close()
	if a.Resume != "" {
		if ty, ok = typeByName(run.Type); !ok {
			return toolError("unknown sub-agent type", "Sub-agent %s is of type %q, which this agent does not define.", run.SessionID, run.Type)
		}
	}

	childCfg := s.cfg
	childCfg.Agent = ty.agent
	childCfg.Subagents = nil
	childCfg.DMailRevertsFiles = false
	childCfg.Thinking = s.thinkingEffort()
	childCfg.NoImages = !s.imageIn() // the model of the moment (/model)
	prog := &subagentProgress{}
	sink := func(e Event) {
		prog.note(e)
		if run.Publish != nil {
			run.Publish(e)
		}
		s.emit(SubagentEvent{ParentCallID: callID, SessionID: run.SessionID, Type: ty.name, Event: e})
	}
	child := New(childCfg, s.st, run.SessionID, client, s.subagentTools(ty), s.workDir, sink)
	child.parent = &subagentParent{soul: s, callID: callID, typ: ty.name}
	if run.Publish != nil {
		run.Publish(child.Status())
	}

	cctx := ctx
	if a.Timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, time.Duration(a.Timeout)*time.Second)
		defer cancel()
	}
	runErr := child.Run(cctx, a.Prompt)

	head := []string{"agent_id: " + run.SessionID, fmt.Sprintf("resumed: %t", a.Resume != "")}
	if a.Resume != "" && run.ArchivedWith >= 0 {
		head = append(head, fmt.Sprintf("note: this sub-agent was archived with generation %d of its parent (a revert went back before its call); it continues from its own last state", run.ArchivedWith))
	}
	head = append(head, "actual_subagent_type: "+ty.name)
	if runErr == nil {
		answer := strings.TrimSpace(s.lastAnswer(ctx, run.SessionID))
		if answer == "" {
			return tools.Result{Output: strings.Join(append(head, "status: failed", "", "The sub-agent finished without an answer."), "\n"),
				IsError: true, Brief: ty.name + " · no answer"}
		}
		return tools.Result{Output: strings.Join(append(head, "status: completed", "", "[summary]", answer), "\n"),
			Brief: fmt.Sprintf("%s · %d %s", ty.name, prog.steps(), words.Plural(prog.steps(), "step", "steps"))}
	}
	status, brief := subagentFailure(ctx, cctx, runErr, a.Timeout)
	out := append(head, "status: "+status, "")
	out = append(out, prog.summary()...)
	return tools.Result{Output: strings.Join(out, "\n"), IsError: true, Brief: ty.name + " · " + brief}
}

// subagentFailure says why a sub-agent's run ended without an answer.
func subagentFailure(parent, child context.Context, err error, timeout int) (status, brief string) {
	switch {
	case parent.Err() != nil:
		return "interrupted by the user", "interrupted"
	case child.Err() != nil && errors.Is(child.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("timed out after %ds", timeout), fmt.Sprintf("timed out (%ds)", timeout)
	case errors.Is(err, ErrMaxSteps):
		return "stopped: " + err.Error() + "; split the task into smaller ones", "max steps reached"
	case errors.Is(err, ErrRejected):
		return "stopped: the user rejected one of its tool calls", "rejected"
	}
	return "failed: " + oneLineText(err.Error()), "failed"
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// subagentTools is the parent's tools narrowed to the type's file, never
// with the Agent tool or SendDMail (a sub-agent has no checkpoints of its
// parent's to send to, and starts no sub-agents).
func (s *Soul) subagentTools(ty subagentType) *tools.Set {
	return ty.agent.ToolSet(s.set).Without(AgentToolName, agentAliasName, sendDMailName)
}

// lastAnswer is the text of the last assistant message of a session.
func (s *Soul) lastAnswer(ctx context.Context, sessionID string) string {
	v, err := s.st.ViewBefore(context.WithoutCancel(ctx), sessionID, -1, store.ViewPos{}, statusTailRecords)
	if err != nil {
		return ""
	}
	msgs := v.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			return msgs[i].Content.PlainText()
		}
	}
	return ""
}

// subagentProgress records what a sub-agent did, for the tool result of
// a run that ends without an answer.
type subagentProgress struct {
	mu       sync.Mutex
	n        int
	calls    []string
	text     strings.Builder // the current step's answer text
	lastText string
}

func (p *subagentProgress) note(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := e.(type) {
	case StepBegin:
		p.n = ev.N
		p.keepText()
	case StepRetry:
		p.text.Reset()
	case ContentPart:
		p.text.WriteString(ev.Text)
	case ToolCall:
		p.calls = append(p.calls, ev.Name+" "+clipText(oneLineText(ev.Arguments), 100))
	case ToolResult:
		if ev.IsError && len(p.calls) > 0 {
			p.calls[len(p.calls)-1] += " (error)"
		}
	}
}

func (p *subagentProgress) keepText() {
	if t := strings.TrimSpace(p.text.String()); t != "" {
		p.lastText = t
	}
	p.text.Reset()
}

func (p *subagentProgress) steps() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// summary is what the sub-agent did so far: its tool calls and its last text.
func (p *subagentProgress) summary() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keepText()
	out := []string{fmt.Sprintf("What it did so far (%d %s):", p.n, words.Plural(p.n, "step", "steps"))}
	if len(p.calls) == 0 {
		out = append(out, "- no tool calls")
	}
	const maxCalls = 30
	for i, c := range p.calls {
		if i == maxCalls {
			out = append(out, fmt.Sprintf("- … and %d more", len(p.calls)-maxCalls))
			break
		}
		out = append(out, "- "+c)
	}
	if p.lastText != "" {
		out = append(out, "", "Its last message:", clipText(p.lastText, 4000))
	}
	return out
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
