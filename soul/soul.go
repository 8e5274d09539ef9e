package soul

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/soul/instructions"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/shellenv"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
)

// Errors returned by Run (besides *llm.Error and errors wrapping
// context.Canceled for an interrupt).
var (
	ErrMaxSteps = errors.New("max steps reached")
	ErrRejected = errors.New("tool call rejected by the user")
	// ErrBusy is returned when Run, Compact, Clear, RevertTo or Restore is
	// called while another of them is still running.
	ErrBusy = errors.New("soul is busy with another run or operation")
	// ErrNotSaved: the run stopped before its prompt was saved (the
	// database refused it, or the run was interrupted while it waited for
	// another process's write lock); nothing of the run is in the session,
	// so a front end gives the prompt back.
	ErrNotSaved = errors.New("the prompt was not saved")
)

// Defaults of Config (kimi-cli's values where it has them).
const (
	DefaultMaxContextSize = 128000
	DefaultReservedTokens = 50000
	DefaultMaxStepsPerRun = 100
)

// compactRatio: auto-compaction also starts once the context holds this
// share of MaxContextSize, whatever ReservedTokens says.
const compactRatio = 0.85

// Config tunes the loop. Zero numbers take the defaults; a negative
// ReservedTokens means no reserve (only the 85 % rule triggers compaction),
// and a reserve not smaller than MaxContextSize is cut to a quarter of it.
type Config struct {
	MaxContextSize int
	ReservedTokens int
	MaxStepsPerRun int
	Yolo           bool
	// Plan starts the soul in plan mode (--plan): only read-only tools run
	// until an approved ExitPlanMode or SetPlanMode(false).
	Plan bool
	// Agent is the agent file whose prompt the soul renders (nil: the
	// built-in default). The tool set is the caller's: Agent.ToolSet
	// narrows one to the file's tools.
	Agent *agentspec.Agent
	// Instructions are the project's AGENTS.md files (see package
	// instructions): the prompt's ${KIMI_AGENTS_MD}, or appended to it.
	Instructions []instructions.File
	// DMailRevertsFiles makes a D-Mail also move the work tree back, when
	// Files implements FileReverter.
	DMailRevertsFiles bool
	// Files records file checkpoints for WriteFile/StrReplaceFile/Shell;
	// nil disables them.
	Files tools.FileTracker
	// LoopWarnAfter is how many near-identical tool calls in a row make
	// the loop warning; 0 means 3, a negative value turns it off.
	LoopWarnAfter int
	// Thinking is the effort asked of the model at the start; SetThinking
	// changes it. "" is off.
	Thinking llm.Effort
	// Subagents offers the Agent tool (nil: no sub-agents).
	Subagents *Subagents
	// Redact takes rewind's own secrets (model keys, the environment values
	// Shell is not given) out of everything that enters the conversation:
	// tool output, model text, the prompt (see redact.go). nil: none.
	Redact *shellenv.Redactor
	// NoImages: the model is declared without image_in, so a prompt that
	// attaches an image is refused (ReadMediaFile is not offered either).
	NoImages bool
}

// DefaultConfig is Config with every default filled in.
func DefaultConfig() Config {
	return Config{
		MaxContextSize: DefaultMaxContextSize,
		ReservedTokens: DefaultReservedTokens,
		MaxStepsPerRun: DefaultMaxStepsPerRun,
	}
}

func (c Config) withDefaults() Config {
	if c.MaxContextSize <= 0 {
		c.MaxContextSize = DefaultMaxContextSize
	}
	switch {
	case c.ReservedTokens < 0:
		c.ReservedTokens = 0
	case c.ReservedTokens == 0:
		c.ReservedTokens = DefaultReservedTokens
	}
	// A reserve as large as the window would compact before every step.
	if c.ReservedTokens >= c.MaxContextSize {
		c.ReservedTokens = c.MaxContextSize / 4
	}
	if c.MaxStepsPerRun <= 0 {
		c.MaxStepsPerRun = DefaultMaxStepsPerRun
	}
	return c
}

// FileReverter is implemented by a Config.Files tracker that can move the
// work tree back to the state of a checkpoint (used for D-Mail when
// Config.DMailRevertsFiles is set).
type FileReverter interface {
	RevertFiles(ctx context.Context, sessionID string, checkpointID int) error
}

// Soul runs the agent loop of one session. Its methods may be called from
// any goroutine; Run, Compact, Clear, RevertTo and Restore exclude each other
// (ErrBusy). Events reach the sink synchronously, in order, from the
// goroutine doing the work; the sink may call Status, SetYolo and
// ApprovalRequest.Respond.
type Soul struct {
	cfg          Config
	st           Store
	sessionID    string
	client       llm.Client
	set          *tools.Set
	workDir      string
	sink         Sink
	systemPrompt string
	dmailEnabled bool

	emitMu     sync.Mutex // serialises sink calls (parallel tools emit output)
	approvalMu sync.Mutex // one ApprovalRequest outstanding at a time

	mu             sync.Mutex // guards the fields below; never held while calling the sink
	busy           bool
	yolo           bool
	thinking       llm.Effort
	noImages       bool            // the model takes no images (SetImageIn)
	plan           bool            // plan mode (plan.go)
	approved       map[string]bool // approval actions approved for the session
	step           int
	tokens         int
	gen            int
	nextCheckpoint int
	pending        *dmail
	loop           *tools.LoopDetector

	// The Agent tool (subagent.go): its slots bound the sub-agents running
	// at once. parent is set in a sub-agent's own Soul.
	agentTool  *agentTool
	taskAlias  *agentTool
	agentSlots chan struct{}
	parent     *subagentParent
}

type dmail struct {
	message    string
	checkpoint int
}

// SystemPrompt is the system prompt a Soul with cfg sends in workDir: its
// agent's prompt (the built-in default's when cfg names none) rendered
// with the project instructions. An export writes it as kimi-cli's
// _system_prompt line.
func SystemPrompt(cfg Config, workDir string) string {
	return cfg.agent().SystemPrompt(agentspec.Vars{WorkDir: workDir, Instructions: cfg.Instructions})
}

// agent is the agent file cfg names, or the built-in default.
func (cfg Config) agent() *agentspec.Agent {
	if cfg.Agent == nil {
		return agentspec.Default()
	}
	return cfg.Agent
}

// New builds a Soul for sessionID. set may be nil (no tools); sink may be nil.
func New(cfg Config, st Store, sessionID string, client llm.Client, set *tools.Set, workDir string, sink Sink) *Soul {
	cfg = cfg.withDefaults()
	if set == nil {
		set = tools.NewSet()
	}
	if sink == nil {
		sink = func(Event) {}
	}
	if cfg.Redact != nil {
		st = redactingStore{Store: st, r: cfg.Redact}
	}
	s := &Soul{
		cfg:          cfg,
		st:           st,
		sessionID:    sessionID,
		client:       client,
		set:          set,
		workDir:      workDir,
		sink:         sink,
		systemPrompt: SystemPrompt(cfg, workDir),
		dmailEnabled: set.Has(sendDMailName),
		yolo:         cfg.Yolo,
		thinking:     cfg.Thinking,
		noImages:     cfg.NoImages,
		plan:         cfg.Plan,
		approved:     map[string]bool{},
		gen:          -1,
	}
	s.addAgentTools(cfg.agent())
	// Status shows the resumed session's numbers from the start; a failure
	// here surfaces on the first operation instead. The view's tail is
	// enough (its last usage record and what follows it): resuming a long
	// session reads none of the rest.
	if v, err := st.ViewBefore(context.Background(), sessionID, -1, store.ViewPos{}, statusTailRecords); err == nil {
		s.noteView(v)
	}
	return s
}

const sendDMailName = "SendDMail"

// statusTailRecords is how much of a resumed view New reads for its status.
const statusTailRecords = 200

// toolSpecs is what the model is told about the tools, taken afresh for each
// step: tools from a source (MCP servers) come and go while a session runs.
func (s *Soul) toolSpecs() []llm.ToolSpec {
	sets := s.set.Specs()
	specs := make([]llm.ToolSpec, 0, len(sets))
	for _, sp := range sets {
		if s.hidden(sp.Name) {
			continue
		}
		specs = append(specs, llm.ToolSpec{Name: sp.Name, Description: sp.Description, Parameters: sp.Parameters})
	}
	return specs
}

// readMediaFileName is the tool a model without image_in is not offered.
var readMediaFileName = (&tools.ReadMediaFile{}).Name()

// hidden reports whether the set's tool name is kept from the current
// model: ReadMediaFile from one that takes no images.
func (s *Soul) hidden(name string) bool {
	return name == readMediaFileName && !s.imageIn()
}

// SetImageIn says whether the model takes images (/model switched to one
// declared with or without image_in): the next step offers ReadMediaFile
// or not, and a prompt's images are sent or refused.
func (s *Soul) SetImageIn(on bool) {
	s.mu.Lock()
	s.noImages = !on
	s.mu.Unlock()
}

func (s *Soul) imageIn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.noImages
}

// SessionID is the session this Soul drives.
func (s *Soul) SessionID() string { return s.sessionID }

// SetYolo switches approving every tool call on or off; it takes effect for
// the next approval, also in a running step.
func (s *Soul) SetYolo(on bool) {
	s.mu.Lock()
	s.yolo = on
	s.mu.Unlock()
}

// Yolo reports whether every tool call is approved without asking.
func (s *Soul) Yolo() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.yolo
}

// SetThinking sets the effort asked of the model (/thinking); the next
// model call carries it.
func (s *Soul) SetThinking(e llm.Effort) {
	s.mu.Lock()
	s.thinking = e
	s.mu.Unlock()
	s.emitStatus()
}

func (s *Soul) thinkingEffort() llm.Effort {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.thinking
}

// SetClient switches the model (/model): the next model call uses c. The
// context is kept; a call in flight finishes on the old client.
func (s *Soul) SetClient(c llm.Client) {
	s.mu.Lock()
	s.client = c
	s.mu.Unlock()
}

// modelClient is the client of the next call, behind the redaction gate.
func (s *Soul) modelClient() llm.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.Redact != nil {
		return redactingClient{Client: s.client, r: s.cfg.Redact}
	}
	return s.client
}

// Status is a snapshot of the numbers the status bar shows (loaded from the
// store by New, kept current by every operation).
func (s *Soul) Status() StatusUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked()
}

func (s *Soul) statusLocked() StatusUpdate {
	pct := 0.0
	if s.cfg.MaxContextSize > 0 {
		pct = float64(s.tokens) * 100 / float64(s.cfg.MaxContextSize)
	}
	return StatusUpdate{
		Model:          s.client.Model(),
		Step:           s.step,
		Tokens:         s.tokens,
		MaxContext:     s.cfg.MaxContextSize,
		ContextPercent: pct,
		Generation:     s.gen,
		Thinking:       string(s.thinking),
		Plan:           s.plan,
	}
}

func (s *Soul) emit(e Event) {
	if ev, ok := e.(Error); ok {
		ev.Message = s.cfg.Redact.Redact(ev.Message) // a failure may quote a tool's output
		e = ev
	}
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.sink(e)
}

func (s *Soul) emitStatus() { s.emit(s.Status()) }

// acquire marks the soul busy; release undoes it.
func (s *Soul) acquire() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return ErrBusy
	}
	s.busy = true
	return nil
}

func (s *Soul) release() {
	s.mu.Lock()
	s.busy = false
	s.mu.Unlock()
}

// noteView takes the status numbers from a freshly loaded view.
func (s *Soul) noteView(v store.View) {
	s.mu.Lock()
	s.tokens = contextTokens(v)
	s.gen = v.Generation.Gen
	s.nextCheckpoint = v.NextCheckpointID
	s.mu.Unlock()
}

// contextTokens is the view's size: the last usage record plus an estimate
// of the messages appended after it (the user's prompt, checkpoint markers).
func contextTokens(v store.View) int {
	last := -1
	for i := len(v.Records) - 1; i >= 0; i-- {
		if v.Records[i].Kind == store.KindUsage {
			last = i
			break
		}
	}
	var tail []message.Message
	for _, r := range v.Records[last+1:] {
		if r.Kind != store.KindMessage {
			continue
		}
		if m, err := r.Message(); err == nil {
			tail = append(tail, m)
		}
	}
	base := v.Tokens
	if last < 0 && base == 0 && len(tail) == 0 {
		return 0
	}
	if len(tail) == 0 {
		return base
	}
	return base + llm.EstimateTokens(tail)
}

// needsCompaction is kimi's rule plus a ratio guard for small reserves.
func (s *Soul) needsCompaction(tokens int) bool {
	max := s.cfg.MaxContextSize
	return tokens+s.cfg.ReservedTokens >= max || float64(tokens) >= compactRatio*float64(max)
}

// Run sends input to the model and runs steps until the model answers
// without tool calls (nil), the step limit is hit (ErrMaxSteps), a tool call
// is rejected (ErrRejected), the model call fails for good (*llm.Error) or
// ctx is cancelled (an error wrapping ctx.Err(): the interrupt). The user's
// message is committed before the model is called; a step is committed
// whole or not at all. Every Run ends with a RunEnd event.
func (s *Soul) Run(ctx context.Context, input string) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()

	s.mu.Lock()
	s.pending = nil
	s.step = 0
	s.loop = &tools.LoopDetector{Threshold: s.cfg.LoopWarnAfter}
	s.mu.Unlock()

	steps := 0
	err := s.run(ctx, input, &steps)
	s.emit(RunEnd{Reason: endReason(err), Steps: steps})
	return err
}

func endReason(err error) string {
	switch {
	case err == nil:
		return "done"
	case errors.Is(err, ErrMaxSteps):
		return "max_steps"
	case errors.Is(err, ErrRejected):
		return "rejected"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "interrupted"
	default:
		return "error"
	}
}

func (s *Soul) run(ctx context.Context, input string, steps *int) error {
	if err := ctx.Err(); err != nil {
		s.emit(StepInterrupted{Reason: "interrupted before the run started", Where: "before the run started"})
		return fmt.Errorf("run interrupted: %w", err)
	}
	// Store writes are never cut short by the interrupt: each is one
	// transaction, done or not, like kimi's asyncio.shield. While another
	// process holds the write lock the turn's start waits (RetryBusy); an
	// interrupt then ends the wait, and nothing of the turn was saved: its
	// checkpoint, marker and prompt are one transaction.
	imgs, err := promptImages(ctx, s.workDir, input, !s.imageIn())
	if err != nil {
		return err
	}
	wctx := store.LockWait(ctx)
	if err := s.st.RetryBusy(ctx, func() error {
		_, err := s.st.StartTurn(wctx, s.sessionID, s.dmailEnabled, promptMessage(input, imgs))
		return err
	}); err != nil {
		return s.notSaved(ctx, "start the turn", err)
	}
	if len(imgs) > 0 {
		s.emit(PromptImages{Images: imageInfos(imgs)})
	}
	if title := titleFrom(input); title != "" {
		// A title not set on a busy database is set by a later prompt.
		if err := s.st.SetTitleIfEmpty(wctx, s.sessionID, title); err != nil && !errors.Is(err, store.ErrBusy) {
			return s.fail(fmt.Errorf("set title: %w", err))
		}
	}
	return s.agentLoop(ctx, steps)
}

// notSaved ends a run whose prompt could not be saved: interrupted while
// waiting for the database, or failed.
func (s *Soul) notSaved(ctx context.Context, what string, err error) error {
	err = fmt.Errorf("%w: %s: %w", ErrNotSaved, what, err)
	if ctx.Err() != nil {
		s.emit(StepInterrupted{Reason: "interrupted while waiting for the database", Where: "while waiting for the database"})
		return err
	}
	return s.fail(err)
}

// fail reports a non-temporary failure as an Error event and returns err.
func (s *Soul) fail(err error) error {
	s.emit(Error{Message: err.Error()})
	return err
}

// interruptedKeeping is interrupted for a step that had streamed an
// answer: the partial answer is kept in an archived generation (cause
// interrupt) and the current view stays as it was, so the text is never
// sent to the model as a finished answer.
func (s *Soul) interruptedKeeping(ctx context.Context, where string, partial message.Message, ok bool) error {
	if !ok {
		return s.interrupted(ctx, where)
	}
	return s.interruptedKeepingStep(ctx, where, []message.Message{partial})
}

// interruptedKeepingStep keeps step (its assistant message first) as
// interruptedKeeping does. While another process holds the write lock it
// does not wait: the step goes to a recovery file that the store commits
// once the lock is free, or the next start does.
func (s *Soul) interruptedKeepingStep(ctx context.Context, where string, step []message.Message) error {
	ev := StepInterrupted{Reason: "interrupted " + where, Where: where}
	kept, err := s.st.KeepInterruptedStep(ctx, s.sessionID, step)
	switch {
	case err != nil:
		ev.KeepError = err.Error()
	case kept.Pending:
		ev.KeptFile, ev.Partial = kept.File, step[0].Content.PlainText()
	default:
		ev.KeptGeneration, ev.Partial = kept.Generation.Gen, step[0].Content.PlainText()
		if v, verr := s.st.ViewBefore(context.WithoutCancel(ctx), s.sessionID, -1, store.ViewPos{}, statusTailRecords); verr == nil {
			s.noteView(v)
		}
	}
	s.emit(ev)
	s.emitStatus()
	cause := ctx.Err()
	if cause == nil {
		cause = context.Canceled
	}
	return fmt.Errorf("run interrupted %s: %w", where, cause)
}

// interrupted reports an interrupt and returns an error wrapping ctx.Err().
func (s *Soul) interrupted(ctx context.Context, where string) error {
	s.emit(StepInterrupted{Reason: "interrupted " + where, Where: where})
	cause := ctx.Err()
	if cause == nil {
		cause = context.Canceled
	}
	return fmt.Errorf("run interrupted %s: %w", where, cause)
}

type stepOutcome int

const (
	stepContinue stepOutcome = iota
	stepDone
	stepRejected
	// stepBacktracked: the step ended in a D-Mail backtrack, which does not
	// use up one of the run's steps (kimi-cli's BackToTheFuture retry).
	stepBacktracked
)

func (s *Soul) agentLoop(ctx context.Context, steps *int) error {
	wctx := context.WithoutCancel(ctx)
	// counted are the steps against MaxStepsPerRun; backtracks are bounded
	// by the same number apart, so a model that only D-Mails still stops.
	counted, backtracks := 0, 0
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return s.interrupted(ctx, "between steps")
		}
		v, err := s.st.View(wctx, s.sessionID)
		if err != nil {
			return s.fail(fmt.Errorf("load context: %w", err))
		}
		if s.needsCompaction(contextTokens(v)) {
			if err := s.compact(ctx, true, v); err != nil {
				if ctx.Err() != nil {
					return s.interrupted(ctx, "during compaction")
				}
				return s.fail(fmt.Errorf("auto-compaction: %w", err))
			}
		}
		var cp int
		err = s.st.RetryBusy(ctx, func() (err error) {
			cp, err = s.st.Checkpoint(store.LockWait(ctx), s.sessionID, s.dmailEnabled)
			return err
		})
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, store.ErrBusy) {
				return s.interrupted(ctx, "while waiting for the database")
			}
			return s.fail(fmt.Errorf("checkpoint: %w", err))
		}
		v, err = s.st.View(wctx, s.sessionID)
		if err != nil {
			return s.fail(fmt.Errorf("load context: %w", err))
		}
		s.mu.Lock()
		s.step = n
		s.pending = nil
		s.mu.Unlock()
		s.noteView(v)
		*steps = n
		s.emit(StepBegin{N: n, Checkpoint: cp})
		s.emitStatus()

		outcome, err := s.doStep(ctx, v)
		if err != nil {
			return err
		}
		switch outcome {
		case stepDone:
			return nil
		case stepRejected:
			return ErrRejected
		case stepBacktracked:
			backtracks++
		default:
			counted++
		}
		if counted >= s.cfg.MaxStepsPerRun || backtracks >= s.cfg.MaxStepsPerRun {
			return fmt.Errorf("%w (%d steps)", ErrMaxSteps, s.cfg.MaxStepsPerRun)
		}
	}
}

// doStep calls the model once and runs its tool calls. Nothing is written
// unless the whole step succeeds; then assistant message, tool results and
// usage commit in one transaction, and a pending D-Mail is delivered.
func (s *Soul) doStep(ctx context.Context, v store.View) (stepOutcome, error) {
	msgs, err := s.requestMessages(ctx, v)
	if err != nil {
		s.emit(StepInterrupted{Reason: "model call failed", ModelFailed: true})
		return 0, s.fail(err)
	}
	req := llm.Request{Messages: s.withPlanReminder(buildRequest(s.systemPrompt, msgs)), Tools: s.toolSpecs(), Thinking: s.thinkingEffort()}
	st := &streamState{}
	cb := llm.Callbacks{
		OnContent: func(text string) {
			st.content = true
			st.text.WriteString(text)
			s.emit(ContentPart{Text: text})
		},
		OnReasoning: func(text string) {
			st.reasoning = true
			st.think.WriteString(text)
			s.emit(ReasoningPart{Text: text})
		},
		OnToolCallDelta: func(index int, id, name, argsDelta string) {
			s.emit(ToolCallPart{Index: index, ID: id, Name: name, ArgumentsDelta: argsDelta})
		},
		OnRetry: func(attempt, max int, wait time.Duration, reason string) {
			// Deltas of the failed attempt are void; the retry streams the
			// whole answer again (see StepRetry).
			st.reset()
			s.emit(StepRetry{Attempt: attempt, Max: max, Wait: wait, Reason: reason})
		},
	}
	resp, err := s.modelClient().Chat(ctx, req, cb)
	if err != nil {
		if ctx.Err() != nil {
			partial, ok := st.partial()
			return 0, s.interruptedKeeping(ctx, "while the model was answering", partial, ok)
		}
		var le *llm.Error
		if errors.As(err, &le) {
			s.emit(StepInterrupted{Reason: "model call failed", ModelFailed: true})
			s.emit(Error{Message: le.Error(), Temporary: le.Temporary})
			return 0, le
		}
		s.emit(StepInterrupted{Reason: "model call failed", ModelFailed: true})
		return 0, s.fail(fmt.Errorf("model call: %w", err))
	}

	assistant := normaliseAssistant(resp.Message, s.stepNumber())
	// A client that did not stream (non-streaming mode) still shows its text.
	if !st.reasoning {
		if r := assistant.Content.Reasoning(); r != "" {
			s.emit(ReasoningPart{Text: r})
		}
	}
	if !st.content {
		if t := assistant.Content.PlainText(); t != "" {
			s.emit(ContentPart{Text: t})
		}
	}

	results, outcome := s.runCalls(ctx, assistant.ToolCalls)
	if len(assistant.ToolCalls) > 0 {
		s.flushFiles(ctx)
	}
	if ctx.Err() != nil {
		// The answer streamed whole: keep it, with what its tools returned.
		where := "while tools were running"
		if len(assistant.ToolCalls) == 0 {
			where = "as the answer ended"
		}
		return 0, s.interruptedKeepingStep(ctx, where, append([]message.Message{assistant}, results...))
	}

	usage := resp.Usage.TotalTokens
	if usage <= 0 {
		usage = llm.EstimateTokens(append(req.Messages, assistant))
	}
	tokens := usage
	if len(results) > 0 {
		tokens += llm.EstimateTokens(results)
	}
	// The commit's wait for another process's write lock ends with ctx;
	// the transaction, once begun, does not.
	wctx := store.LockWait(ctx)
	if err := s.st.RetryBusy(ctx, func() error {
		_, err := s.st.CommitStep(wctx, s.sessionID, store.Step{Assistant: assistant, ToolResults: results, TokenCount: tokens})
		return err
	}); err != nil {
		if ctx.Err() != nil && errors.Is(err, store.ErrBusy) {
			// The step is whole, and its tools ran: keep it, never drop it.
			return 0, s.interruptedKeepingStep(ctx, "while waiting for the database", append([]message.Message{assistant}, results...))
		}
		return 0, s.fail(fmt.Errorf("commit step: %w", err))
	}
	s.mu.Lock()
	s.tokens = tokens
	d := s.pending
	s.pending = nil
	s.mu.Unlock()
	s.emitStatus()

	switch outcome {
	case callsRejected:
		return stepRejected, nil
	case callsRedirected:
		// The model reads the feedback in the next step; a D-Mail planned
		// before the user's answer is dropped, as on a plain reject.
		return stepContinue, nil
	}
	if d != nil {
		if err := s.backtrack(ctx, *d); err != nil {
			return 0, s.fail(fmt.Errorf("D-Mail backtrack: %w", err))
		}
		return stepBacktracked, nil
	}
	if len(assistant.ToolCalls) == 0 {
		return stepDone, nil
	}
	return stepContinue, nil
}

// requestMessages is the view's messages as the model is sent them: each
// image's data URL put back from the blob table where the store keeps it.
func (s *Soul) requestMessages(ctx context.Context, v store.View) ([]message.Message, error) {
	out := make([]message.Message, 0, len(v.Records))
	for _, r := range v.Records {
		if r.Kind != store.KindMessage {
			continue
		}
		body := r.Body
		if message.HasImageRefs(body) {
			var err error
			if body, err = s.st.ExpandImages(ctx, body); err != nil {
				return nil, fmt.Errorf("read the images of the conversation: %w", err)
			}
		}
		var m message.Message
		if json.Unmarshal(body, &m) == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// streamState records what the current attempt has streamed.
type streamState struct {
	content, reasoning bool
	text, think        strings.Builder
}

func (st *streamState) reset() {
	st.content, st.reasoning = false, false
	st.text.Reset()
	st.think.Reset()
}

// partial is what the attempt streamed as an assistant message; ok is
// false when nothing was streamed.
func (st *streamState) partial() (message.Message, bool) {
	m := message.Message{Role: "assistant"}
	if t := st.think.String(); strings.TrimSpace(t) != "" {
		m.Content.Parts = append(m.Content.Parts, message.Part{Type: "think", Think: t})
	}
	if t := st.text.String(); strings.TrimSpace(t) != "" {
		m.Content.Parts = append(m.Content.Parts, message.Part{Type: "text", Text: t})
	}
	return m, len(m.Content.Parts) > 0
}

func (s *Soul) stepNumber() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.step
}

// normaliseAssistant makes the model's message storable: role assistant and
// every tool call with a unique, non-empty id (results refer to it). The
// arguments are kept exactly as the model sent them; the request builder
// never sends invalid ones back.
func normaliseAssistant(m message.Message, step int) message.Message {
	m.Role = "assistant"
	if len(m.ToolCalls) == 0 {
		if m.Content.IsNull || m.Content.Omitted {
			m.Content = message.TextContent("")
		}
		return m
	}
	calls := make([]message.ToolCall, len(m.ToolCalls))
	copy(calls, m.ToolCalls)
	seen := map[string]bool{}
	for i := range calls {
		if calls[i].Type == "" {
			calls[i].Type = "function"
		}
		if calls[i].ID == "" || seen[calls[i].ID] {
			calls[i].ID = fmt.Sprintf("call_rw_%d_%d_%d", step, i, time.Now().UnixNano()%1e6)
		}
		seen[calls[i].ID] = true
	}
	m.ToolCalls = calls
	return m
}

// titleFrom is the first non-empty line of the first prompt, shortened.
func titleFrom(input string) string {
	for _, line := range strings.Split(input, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		return words.Clip(line, 80)
	}
	return ""
}

// fileFlusher is implemented by a Config.Files tracker that records the
// after state of edits lazily; flushing when a step's tools are done makes
// a later edit by the user count as the user's, not the agent's.
type fileFlusher interface {
	Flush(ctx context.Context) error
}

func (s *Soul) flushFiles(ctx context.Context) {
	f, ok := s.cfg.Files.(fileFlusher)
	if !ok {
		return
	}
	if err := f.Flush(context.WithoutCancel(ctx)); err != nil {
		s.emit(Error{Message: "record file checkpoints: " + err.Error()})
	}
}
