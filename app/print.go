package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/instructions"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/mcp"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/peers"
)

// PrintOptions are the flags of `rewind -p`.
type PrintOptions struct {
	Prompt    string // "-" reads the prompt from stdin
	Output    string // "text" (default) or "jsonl"
	SessionID string // continue this session instead of starting one
	Continue  bool   // continue the newest session of the work dir
}

// approvalFeedback is what a tool call that needs approval is told in print
// mode without --yolo: nobody is there to answer.
const approvalFeedback = "approval needed: rerun with --yolo"

// Print runs one prompt headlessly: it prints the final answer (text) or
// every event as one JSON line (jsonl, starting with SessionStart).
func Print(ctx context.Context, rt *Runtime, o PrintOptions) (err error) {
	switch o.Output {
	case "", "text", "jsonl":
	default:
		return Usage(fmt.Errorf("--output must be text or jsonl, got %q", o.Output))
	}
	prompt := o.Prompt
	if prompt == "-" {
		b, err := io.ReadAll(rt.Stdin)
		if err != nil {
			return userErrorf(err, "cannot read the prompt from stdin: %v", err)
		}
		prompt = string(b)
	}
	if strings.TrimSpace(prompt) == "" {
		return Usage(errors.New("the prompt is empty: pass -p \"what to do\""))
	}
	cfg, client, err := rt.modelClient()
	if err != nil {
		return err
	}
	if note := cfg.ThinkingNote(); note != "" {
		fmt.Fprintln(rt.Stderr, "rewind: "+note)
	}
	start, err := cfg.StartAgent()
	if err != nil {
		return err
	}
	db, _, err := rt.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()

	sess, err := printSession(ctx, db, cfg, o, start.Ref)
	if err != nil {
		return err
	}
	if note := timetravel.SubagentArchived(ctx, db, sess); note != "" {
		fmt.Fprintln(rt.Stderr, "rewind: "+note)
	}
	agent := start
	if o.SessionID != "" || o.Continue {
		if agent, err = cfg.SessionAgent(ctx, db, sess, start); err != nil {
			return storeError(err, sess.ID, "")
		}
	}
	if w := agent.Warning(); w != "" {
		fmt.Fprintln(rt.Stderr, "rewind: "+w)
	}
	if note := peers.ContinueNotice(sess.Origin); note != "" && (o.SessionID != "" || o.Continue) {
		fmt.Fprintln(rt.Stderr, "rewind: "+note)
	}
	if o.SessionID == "" && !o.Continue {
		defer func() {
			if err != nil {
				dropIfEmpty(context.WithoutCancel(ctx), db, sess.ID)
			}
		}()
	}
	lease, err := db.AcquireLease(ctx, sess.ID)
	if err != nil {
		return storeError(err, sess.ID, "")
	}
	defer lease.Release(context.WithoutCancel(ctx))

	workDir := sess.WorkDir
	if workDir == "" {
		workDir = cfg.WorkDir
	}
	files, err := fileTracker(db, sess, cfg)
	if err != nil {
		return err
	}
	sc := soulConfig(cfg)
	sc.Files, sc.Agent = files, agent
	if agent.Offers(soul.AgentToolName) { // the agent file's tools are exactly what is offered
		sc.Subagents = SubagentsConfig(db, cfg)
	}
	if sc.Instructions, err = instructions.Load(cfg.Home, workDir); err != nil {
		return userErrorf(err, "cannot read the project instructions: %v", err)
	}

	out := newPrintSink(rt, o.Output == "jsonl")
	out.yolo = cfg.Yolo
	out.emit(soul.SessionStart{SessionID: sess.ID, WorkDir: workDir, Model: cfg.Model})
	pub, perr := live.Listen(live.Options{Home: cfg.Home, AllowRemoteApproval: cfg.AllowRemoteApproval,
		Hello: live.Hello{SessionID: sess.ID, Title: sess.Title, WorkDir: workDir, Model: cfg.Model}})
	if perr != nil {
		out.note("watching this run live is off: " + perr.Error())
	} else {
		defer pub.Close()
		out.live = pub
	}

	set, stopMCP := rt.printMCP(ctx, cfg, workDir)
	defer stopMCP()
	s := soul.New(sc, db, sess.ID, client, agent.ToolSet(set), workDir, out.sink)
	runErr := s.Run(ctx, prompt)
	if err := out.finish(runErr == nil); err != nil && runErr == nil {
		return err
	}
	return runError(runErr, sess.ID, cfg, out)
}

// dropIfEmpty hides a session this run created when the run failed before
// anything was committed to it, so that a failed -p leaves no empty session
// behind. Best effort: the run's own error is what the user needs to see.
func dropIfEmpty(ctx context.Context, db *store.DB, id string) {
	if v, err := db.View(ctx, id); err == nil && len(v.Records) == 0 {
		_ = db.DeleteSession(ctx, id)
	}
}

// printMCP starts the configured MCP servers and waits for them (a
// one-shot run has no later step at which a slow server's tools could
// appear), and returns the tool set with their tools. Configuration
// problems and servers that failed to start are one stderr line each; the
// run goes on without them.
func (rt *Runtime) printMCP(ctx context.Context, cfg Config, workDir string) (*tools.Set, func()) {
	set := cfg.ToolSet()
	loaded := rt.LoadMCPServers(cfg)
	for _, p := range loaded.Problems {
		fmt.Fprintln(rt.Stderr, "rewind: "+p)
	}
	if u := loaded.Untrusted; u != nil {
		fmt.Fprintln(rt.Stderr, "rewind: "+untrustedMCPLine(u, cfg.WorkDir, rt.cwd(), rt.homeFlag()))
	}
	if len(loaded.Servers) == 0 {
		return set, func() {}
	}
	m := startMCP(cfg, loaded.Servers, workDir)
	if m.Wait(ctx) == nil {
		status := m.Status()
		for _, st := range status {
			if st.State == mcp.StateFailed {
				fmt.Fprintf(rt.Stderr, "rewind: MCP server %s did not start (%s); running without its tools\n", st.Name, st.Err)
			}
		}
		if line := mcp.LeftOutNotice(status); line != "" {
			fmt.Fprintln(rt.Stderr, "rewind: "+line)
		}
	}
	return set.WithSource(m.Tools), func() { m.Close() }
}

// printSession finds or creates the session a print-mode run writes to.
func printSession(ctx context.Context, db *store.DB, cfg Config, o PrintOptions, agentRef string) (store.Session, error) {
	switch {
	case o.SessionID != "":
		s, err := db.GetSession(ctx, o.SessionID)
		return s, storeError(err, o.SessionID, "")
	case o.Continue:
		list, err := db.ListSessions(ctx, store.ListOptions{WorkDir: cfg.WorkDir, Limit: 1})
		if err != nil {
			return store.Session{}, fmt.Errorf("list sessions: %w", err)
		}
		if len(list) == 0 {
			return store.Session{}, userErrorf(nil, "no session to continue in %s: run without -c to start one", cfg.WorkDir)
		}
		return list[0], nil
	}
	s, err := db.CreateSession(ctx, store.NewSession{WorkDir: cfg.WorkDir, Model: cfg.Model, Agent: agentRef})
	if ro, ok := readOnlyError(err, cfg.DBPath()); ok {
		return s, ro
	}
	if err != nil {
		return s, fmt.Errorf("create session: %w", err)
	}
	return s, nil
}

// printSink turns events into print-mode output. In jsonl mode every event
// is one line on stdout; in text mode the answer of the last step goes to
// stdout at the end and notable events become notes on stderr.
type printSink struct {
	rt    *Runtime
	jsonl bool
	yolo  bool            // --yolo: a plan (ExitPlanMode) is approved
	notes bool            // stderr is a terminal: progress notes are shown there
	live  *live.Publisher // watchers of this run (nil: none possible)

	mu       sync.Mutex
	answer   strings.Builder // ContentParts of the current step
	rejected []string        // tools rejected for want of --yolo
	failed   *soul.Error
	stopped  *soul.StepInterrupted // what became of an interrupted step
	err      error                 // first write error
}

func newPrintSink(rt *Runtime, jsonl bool) *printSink {
	return &printSink{rt: rt, jsonl: jsonl, notes: isTerminal(rt.Stderr)}
}

func (p *printSink) sink(e soul.Event) {
	if p.live != nil {
		p.live.Publish(e)
	}
	if req, ok := e.(*soul.ApprovalRequest); ok {
		if p.live != nil && p.live.RemoteApproval() {
			// A watcher answers (rewind watch); Ctrl-C gives up.
			p.emit(e)
			p.note(fmt.Sprintf("waiting for a watcher to approve %s (rewind watch %s)", req.Tool, p.live.SessionID()))
			return
		}
		if req.Action == tools.ActionApprovePlan && p.yolo {
			// Nobody is there to approve the plan: --yolo does (kimi-cli's
			// afk mode), and the run goes on out of plan mode.
			p.emit(e)
			req.Respond(soul.ApproveOnce, "")
			return
		}
		// Nobody can answer: reject, and say how to allow it next time.
		p.emit(e)
		p.mu.Lock()
		p.rejected = append(p.rejected, req.Tool)
		p.mu.Unlock()
		req.Respond(soul.Reject, approvalFeedback)
		return
	}
	p.emit(e)
}

func (p *printSink) emit(e soul.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := e.(type) {
	case soul.StepBegin, soul.StepRetry:
		// A retry streams the answer again from the start.
		p.answer.Reset()
	case soul.ContentPart:
		p.answer.WriteString(ev.Text)
	case soul.Error:
		cp := ev
		p.failed = &cp
	case soul.StepInterrupted:
		cp := ev
		p.stopped = &cp
	}
	if p.jsonl {
		b, err := soul.MarshalEvent(e)
		if err != nil {
			b, _ = soul.MarshalEvent(soul.Error{Message: "cannot encode " + e.EventType() + " event: " + err.Error()})
		}
		if p.err == nil {
			_, p.err = fmt.Fprintf(p.rt.Stdout, "%s\n", b)
		}
		return
	}
	if note := noteFor(e); note != "" && p.notes {
		fmt.Fprintln(p.rt.Stderr, "rewind: "+note)
	}
}

// note writes a progress note on stderr when it is a terminal.
func (p *printSink) note(text string) {
	if p.notes {
		fmt.Fprintln(p.rt.Stderr, "rewind: "+text)
	}
}

// noteFor is the stderr line text mode prints for an event, if any.
func noteFor(e soul.Event) string {
	switch ev := e.(type) {
	case soul.StepRetry:
		return fmt.Sprintf("model call failed (%s); retry %d of %d in %s", oneLine(ev.Reason), ev.Attempt, ev.Max, ev.Wait.Round(time.Millisecond))
	case soul.CompactionEnd:
		if ev.Truncated {
			return fmt.Sprintf("context compacted by truncation (summary failed: %s): generation %d, generation %d archived", oneLine(ev.Reason), ev.NewGen, ev.ArchivedGen)
		}
		return fmt.Sprintf("context compacted: generation %d, generation %d archived", ev.NewGen, ev.ArchivedGen)
	case soul.Backtrack:
		return fmt.Sprintf("D-Mail: backtracked to checkpoint %d, %d %s discarded (kept in generation %d)", ev.CheckpointID, ev.Discarded, words.Plural(ev.Discarded, "message", "messages"), ev.ArchivedGen)
	case soul.LoopWarning:
		return fmt.Sprintf("the model ran nearly the same command %d times: %s", ev.Count, words.Clip(oneLine(ev.Command), 80))
	case soul.PromptImages:
		labels := make([]string, len(ev.Images))
		for i, im := range ev.Images {
			labels[i] = im.Label()
		}
		return "attached " + oneLine(strings.Join(labels, " "))
	}
	return ""
}

// finish prints the answer in text mode.
func (p *printSink) finish(ok bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.jsonl || !ok {
		return p.err
	}
	text := strings.TrimRight(sanitize(p.answer.String()), "\n")
	if text != "" {
		_, p.err = fmt.Fprintln(p.rt.Stdout, text)
	}
	return p.err
}

// runError phrases the outcome of soul.Run for the user.
func runError(err error, sessionID string, cfg Config, p *printSink) error {
	if err == nil {
		return nil
	}
	cont := fmt.Sprintf("continue with `rewind -p PROMPT --session %s`", sessionID)
	var le *llm.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &UserError{Msg: "interrupted; " + p.interruptedStep(sessionID) + " (" + cont + ")", Code: ExitInterrupted, Err: err}
	case errors.Is(err, soul.ErrMaxSteps):
		return userErrorf(err, "max steps reached (%d) in session %s: raise --max-steps or %s", cfg.MaxStepsPerRun, sessionID, cont)
	case errors.Is(err, soul.ErrRejected):
		p.mu.Lock()
		names := strings.Join(uniq(p.rejected), ", ")
		p.mu.Unlock()
		if names == "" {
			names = "a tool"
		}
		return userErrorf(err, "%s needs approval, which print mode cannot ask for: rerun with --yolo to allow tools that write or execute (session %s)", names, sessionID)
	case errors.As(err, &le):
		return providerError(le, cfg, sessionID)
	case errors.Is(err, store.ErrLeaseLost):
		return storeError(err, sessionID, "")
	}
	if ae := (*soul.AttachError)(nil); errors.As(err, &ae) {
		return userErrorf(err, "%v; nothing was sent", ae)
	}
	return fmt.Errorf("session %s: %w", sessionID, err)
}

// interruptedStep says what became of the step an interrupt stopped.
func (p *printSink) interruptedStep(sessionID string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := p.stopped; {
	case ev == nil:
		return "nothing of the unfinished step was saved"
	case ev.KeptGeneration > 0:
		return fmt.Sprintf("the answer so far is kept in archived generation %d (rewind show %s --generation %d)", ev.KeptGeneration, sessionID, ev.KeptGeneration)
	case ev.KeptFile != "":
		return "another process holds the database: the answer so far is saved in " + ev.KeptFile + ", kept at the next start"
	case ev.KeepError != "":
		return "the answer so far could not be kept (" + oneLine(ev.KeepError) + ")"
	}
	return "nothing of the unfinished step was saved"
}

func uniq(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// isTerminal reports whether the stream s (an *os.File, or anything else
// with a file descriptor) is a terminal. Print mode shows progress notes on
// stderr only then, so that scripts see exactly one line when something
// fails; the workspace needs stdin and stdout to be one.
func isTerminal(s any) bool {
	f, ok := s.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
