package soul

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// harness is a Soul over a real store in a temp dir, the llmtest fake server
// over real HTTP and the real tools in a temp work dir.
type harness struct {
	t      *testing.T
	ctx    context.Context
	db     *store.DB
	sid    string
	srv    *llmtest.Server
	soul   *Soul
	work   string
	mu     sync.Mutex
	events []Event
	// onEvent, when set, sees every event (from the sink, synchronously).
	onEvent func(Event)
}

type hopts struct {
	cfg        Config
	set        *tools.Set
	maxRetries int // llm retries; 0 = 2
	noStream   bool
	// store, when set, opens the database (at path) with these options and
	// wraps it as the soul's Store.
	store *storeOpts
}

type storeOpts struct {
	opts store.Options
	wrap func(db *store.DB, path string) Store
}

func newHarness(t *testing.T, o hopts, replies ...llmtest.Reply) *harness {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rewind.db")
	so := o.store
	if so == nil {
		so = &storeOpts{}
	}
	db := storetest.OpenAt(t, path, so.opts)
	var st Store = db
	if so.wrap != nil {
		st = so.wrap(db, path)
	}
	sess, err := db.CreateSession(ctx, store.NewSession{WorkDir: work, Model: "fake-model"})
	if err != nil {
		t.Fatalf("create session: %v", err)
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(replies...)
	retries := o.maxRetries
	if retries == 0 {
		retries = 2
	}
	client, err := llm.New(llm.Config{
		BaseURL: srv.URL(), APIKey: "test-key", Model: "fake-model", Stream: !o.noStream,
		MaxRetries: retries, InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	set := o.set
	if set == nil {
		set = tools.Default()
	}
	h := &harness{t: t, ctx: ctx, db: db, sid: sess.ID, srv: srv, work: work}
	h.soul = New(o.cfg, st, sess.ID, client, set, work, h.sink)
	return h
}

func (h *harness) sink(e Event) {
	h.mu.Lock()
	h.events = append(h.events, e)
	f := h.onEvent
	h.mu.Unlock()
	if f != nil {
		f(e)
	}
}

func (h *harness) eventsOf(typ string) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if e.EventType() == typ {
			out = append(out, e)
		}
	}
	return out
}

func (h *harness) types() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.events))
	for i, e := range h.events {
		out[i] = e.EventType()
	}
	return out
}

func (h *harness) resetEvents() {
	h.mu.Lock()
	h.events = nil
	h.mu.Unlock()
}

func (h *harness) view() store.View {
	h.t.Helper()
	v, err := h.db.View(h.ctx, h.sid)
	if err != nil {
		h.t.Fatalf("view: %v", err)
	}
	return v
}

// messages are the current view's messages without checkpoint markers.
func (h *harness) messages() []message.Message {
	var out []message.Message
	for _, m := range h.view().Messages() {
		if !message.IsCheckpoint(m) {
			out = append(out, m)
		}
	}
	return out
}

func (h *harness) run(input string) error {
	return h.soul.Run(h.ctx, input)
}

func (h *harness) mustRun(input string) {
	h.t.Helper()
	if err := h.run(input); err != nil {
		h.t.Fatalf("Run(%q): %v (events %v)", input, err, h.types())
	}
}

// requestsValid checks every request the server got: each tool call has its
// result right after it and arguments are JSON objects.
func (h *harness) requestsValid() {
	h.t.Helper()
	for i, r := range h.srv.Requests() {
		h.t.Run(fmt.Sprintf("request%d", i), func(t *testing.T) { checkRequestValid(t, r.Messages) })
	}
}

// lastText is the text of the last user or tool message of a request that
// is not a checkpoint marker.
func lastText(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if (m.Role == "user" || m.Role == "tool") && !message.IsCheckpoint(m) {
			return m.Content.PlainText()
		}
	}
	return ""
}

func roles(msgs []message.Message) string {
	rs := make([]string, len(msgs))
	for i, m := range msgs {
		rs[i] = m.Role
	}
	return strings.Join(rs, ",")
}

func TestPlainAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Text("Hello there, how can I help?").WithUsage(100, 8))
	h.mustRun("hi\nsecond line")
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[1].Content.PlainText() != "Hello there, how can I help?" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	v := h.view()
	if v.Tokens != 108 {
		t.Errorf("tokens = %d, want the reported 108", v.Tokens)
	}
	if v.NextCheckpointID != 2 {
		t.Errorf("next checkpoint = %d, want 2 (run + step)", v.NextCheckpointID)
	}
	sess, err := h.db.GetSession(h.ctx, h.sid)
	if err != nil || sess.Title != "hi" {
		t.Errorf("title = %q, %v", sess.Title, err)
	}
	var text strings.Builder
	for _, e := range h.eventsOf("ContentPart") {
		text.WriteString(e.(ContentPart).Text)
	}
	if text.String() != "Hello there, how can I help?" {
		t.Errorf("streamed %q", text.String())
	}
	ends := h.eventsOf("RunEnd")
	if len(ends) != 1 || ends[0].(RunEnd).Reason != "done" || ends[0].(RunEnd).Steps != 1 {
		t.Errorf("RunEnd = %+v", ends)
	}
	// The user's prompt went to the model after the system prompt, which
	// names the work dir.
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Messages[0].Role != "system" || !strings.Contains(reqs[0].Messages[0].Content.PlainText(), h.work) {
		t.Errorf("system prompt missing or without work dir")
	}
	if lastText(reqs[0]) != "hi\nsecond line" {
		t.Errorf("last text = %q", lastText(reqs[0]))
	}
	if st := h.soul.Status(); st.Tokens != 108 || st.Model != "fake-model" || st.MaxContext != DefaultMaxContextSize {
		t.Errorf("status = %+v", st)
	}
}

func TestToolRoundTripAndEventOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "notes.txt", "content": "alpha\nbeta\n"})),
		llmtest.Calls(llmtest.Call("c2", "ReadFile", map[string]any{"path": "notes.txt"})),
		llmtest.Text("The file says alpha and beta."),
	)
	h.mustRun("write then read")
	b, err := os.ReadFile(filepath.Join(h.work, "notes.txt"))
	if err != nil || string(b) != "alpha\nbeta\n" {
		t.Fatalf("file = %q, %v", b, err)
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,assistant,tool,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	if !strings.Contains(msgs[4].Content.PlainText(), "beta") {
		t.Errorf("ReadFile result = %q", msgs[4].Content.PlainText())
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 || !strings.Contains(lastText(reqs[2]), "alpha") {
		t.Fatalf("requests = %d, last text %q", len(reqs), lastText(reqs[len(reqs)-1]))
	}
	h.requestsValid()

	// Event order of the first (tool) step.
	got := strings.Join(h.types(), " ")
	want := "StepBegin StatusUpdate ToolCallPart"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("events start %q", got)
	}
	first := got[:10+strings.Index(got[10:], "StepBegin StatusUpdate")]
	first = strings.Join(dedupe(strings.Fields(first)), " ")
	if first != "StepBegin StatusUpdate ToolCallPart ToolCall ToolResult StatusUpdate" {
		t.Errorf("tool step events = %q", first)
	}
	if !strings.HasSuffix(got, "ContentPart StatusUpdate RunEnd") {
		t.Errorf("events end %q", got)
	}
	tr := h.eventsOf("ToolResult")[0].(ToolResult)
	if tr.ID != "c1" || tr.Name != "WriteFile" || tr.IsError {
		t.Errorf("ToolResult = %+v", tr)
	}
	if steps := h.eventsOf("StepBegin"); len(steps) != 3 || steps[2].(StepBegin).N != 3 {
		t.Errorf("StepBegin events %+v", steps)
	}
}

// dedupe collapses runs of the same word.
func dedupe(ws []string) []string {
	var out []string
	for _, w := range ws {
		if len(out) == 0 || out[len(out)-1] != w {
			out = append(out, w)
		}
	}
	return out
}

func TestStrReplaceNotUniqueReachesModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(llmtest.Call("c1", "StrReplaceFile", map[string]any{"path": "a.go", "old": "x", "new": "y"})),
		llmtest.Text("It is not unique; I will be more specific."),
	)
	if err := os.WriteFile(filepath.Join(h.work, "a.go"), []byte("x := x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.mustRun("rename x")
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	res := lastText(reqs[1])
	if !strings.HasPrefix(res, "ERROR:") || !strings.Contains(strings.ToLower(res), "unique") && !strings.Contains(res, "2 ") {
		t.Errorf("tool result sent = %q", res)
	}
	if b, _ := os.ReadFile(filepath.Join(h.work, "a.go")); string(b) != "x := x\n" {
		t.Errorf("file changed: %q", b)
	}
	if tr := h.eventsOf("ToolResult")[0].(ToolResult); !tr.IsError {
		t.Errorf("ToolResult not an error: %+v", tr)
	}
}

func writeCall(id, path string) llmtest.ToolCall {
	return llmtest.Call(id, "WriteFile", map[string]any{"path": path, "content": "data " + id + "\n"})
}

func TestApproveOnceAsksEveryTime(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(writeCall("c1", "a.txt")),
		llmtest.Calls(writeCall("c2", "b.txt")),
		llmtest.Text("done"),
	)
	var asked []*ApprovalRequest
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			asked = append(asked, r)
			go r.Respond(ApproveOnce, "") // answered from another goroutine, like a UI
		}
	}
	h.mustRun("write two files")
	if len(asked) != 2 {
		t.Fatalf("asked %d times, want 2", len(asked))
	}
	if asked[0].Tool != "WriteFile" || asked[0].ToolCallID != "c1" || asked[0].Action == "" || !strings.Contains(asked[0].Arguments, "a.txt") {
		t.Errorf("request = %+v", asked[0])
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(h.work, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

func TestApproveForSessionSkipsSecondAsk(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(writeCall("c1", "a.txt")),
		llmtest.Calls(writeCall("c2", "b.txt")),
		llmtest.Text("done"),
	)
	asked := 0
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			asked++
			r.Respond(ApproveForSession, "") // answered inside the sink
		}
	}
	h.mustRun("write two files")
	if asked != 1 {
		t.Fatalf("asked %d times, want 1", asked)
	}
	if _, err := os.Stat(filepath.Join(h.work, "b.txt")); err != nil {
		t.Errorf("second file not written: %v", err)
	}
	if got := h.soul.ApprovedForSession(); len(got) != 1 {
		t.Errorf("approved for session = %v", got)
	}
}

func TestRejectStopsRunAndCommitsResult(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(writeCall("c1", "a.txt"), llmtest.Call("c2", "Think", map[string]any{"thought": "after"})),
		llmtest.Text("OK, I will not write it."),
	)
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			r.Respond(Reject, "use another name")
		}
	}
	err := h.run("write a file")
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("Run = %v, want ErrRejected", err)
	}
	if _, err := os.Stat(filepath.Join(h.work, "a.txt")); err == nil {
		t.Error("rejected file was written")
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,tool" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	if r := msgs[2].Content.PlainText(); !strings.Contains(r, tools.RejectedOutput) || !strings.Contains(r, "use another name") {
		t.Errorf("rejection result = %q", r)
	}
	if r := msgs[3].Content.PlainText(); !strings.Contains(r, "not run") {
		t.Errorf("call after the rejection = %q", r)
	}
	if e := h.eventsOf("RunEnd"); e[0].(RunEnd).Reason != "rejected" {
		t.Errorf("RunEnd = %+v", e)
	}
	// The session is valid for the next run.
	h.mustRun("never mind")
	h.requestsValid()
}

func TestYoloNeverAsks(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(writeCall("c1", "a.txt")),
		llmtest.Text("done"),
		llmtest.Calls(writeCall("c2", "b.txt")),
		llmtest.Text("done"),
	)
	h.soul.SetYolo(true)
	h.mustRun("one")
	if n := len(h.eventsOf("ApprovalRequest")); n != 0 {
		t.Fatalf("asked %d times under yolo", n)
	}
	// Turning yolo off asks again.
	h.soul.SetYolo(false)
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			r.Respond(ApproveOnce, "")
		}
	}
	h.mustRun("two")
	if n := len(h.eventsOf("ApprovalRequest")); n != 1 {
		t.Fatalf("asked %d times after yolo off", n)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.HTTPError(503, "overloaded"),
		llmtest.Reset(2),
		llmtest.Text("finally"),
	)
	h.mustRun("hello")
	retries := h.eventsOf("StepRetry")
	if len(retries) != 2 || retries[0].(StepRetry).Attempt != 1 || retries[1].(StepRetry).Attempt != 2 {
		t.Fatalf("StepRetry events = %+v", retries)
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[1].Content.PlainText() != "finally" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	// The deltas after the last StepRetry are exactly the answer.
	var after strings.Builder
	h.mu.Lock()
	for _, e := range h.events {
		switch e := e.(type) {
		case StepRetry:
			after.Reset()
		case ContentPart:
			after.WriteString(e.Text)
		}
	}
	h.mu.Unlock()
	if after.String() != "finally" {
		t.Errorf("content after the last retry = %q", after.String())
	}
}

func TestRetryExhaustionCommitsNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{maxRetries: 1},
		llmtest.HTTPError(500, "boom"),
		llmtest.HTTPError(502, "boom again"),
		llmtest.Text("recovered"),
	)
	err := h.run("hello")
	var le *llm.Error
	if !errors.As(err, &le) || !le.Temporary || !le.Exhausted {
		t.Fatalf("Run = %v, want an exhausted temporary *llm.Error", err)
	}
	errs := h.eventsOf("Error")
	if len(errs) != 1 || !errs[0].(Error).Temporary {
		t.Fatalf("Error events = %+v", errs)
	}
	if e := h.eventsOf("RunEnd"); e[0].(RunEnd).Reason != "error" {
		t.Errorf("RunEnd = %+v", e)
	}
	if msgs := h.messages(); roles(msgs) != "user" {
		t.Fatalf("messages after failure = %s", describe(msgs))
	}
	h.mustRun("try again")
	msgs := h.messages()
	if roles(msgs) != "user,user,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	h.requestsValid()
}

func TestMalformedToolCallJSON(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(llmtest.Call("c1", "Shell", `{"command": "echo hi"`)),
		llmtest.Text("oops, fixed"),
	)
	h.mustRun("run something")
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	// Stored as the model sent it ...
	if msgs[1].ToolCalls[0].Args != `{"command": "echo hi"` {
		t.Errorf("stored args = %q", msgs[1].ToolCalls[0].Args)
	}
	if r := msgs[2].Content.PlainText(); !strings.HasPrefix(r, "ERROR:") || !strings.Contains(r, "JSON") {
		t.Errorf("tool result = %q", r)
	}
	// ... but never sent back as-is.
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	a, _ := reqs[1].Last("assistant")
	if a.ToolCalls[0].Args != "{}" {
		t.Errorf("sent args = %q", a.ToolCalls[0].Args)
	}
	h.requestsValid()
	if len(h.eventsOf("ToolOutput")) != 0 {
		t.Error("the malformed Shell call ran")
	}
}

func TestUnknownTool(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(llmtest.Call("c1", "LaunchRocket", map[string]any{"target": "moon"})),
		llmtest.Text("That tool does not exist."),
	)
	h.mustRun("go")
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	if r := msgs[2].Content.PlainText(); !strings.Contains(r, "LaunchRocket") || !strings.Contains(r, "does not exist") {
		t.Errorf("result = %q", r)
	}
	h.requestsValid()
}

func thinkCall(id string) llmtest.ToolCall {
	return llmtest.Call(id, "Think", map[string]any{"thought": "hmm " + id})
}

func TestMaxSteps(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{MaxStepsPerRun: 3}},
		llmtest.Calls(thinkCall("c1")), llmtest.Calls(thinkCall("c2")), llmtest.Calls(thinkCall("c3")), llmtest.Calls(thinkCall("c4")),
	)
	err := h.run("think forever")
	if !errors.Is(err, ErrMaxSteps) || !strings.Contains(err.Error(), "max steps reached") {
		t.Fatalf("Run = %v", err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
	if e := h.eventsOf("RunEnd"); e[0].(RunEnd).Reason != "max_steps" || e[0].(RunEnd).Steps != 3 {
		t.Errorf("RunEnd = %+v", e)
	}
	if msgs := h.messages(); roles(msgs) != "user,assistant,tool,assistant,tool,assistant,tool" {
		t.Errorf("messages = %s", describe(msgs))
	}
}

func TestInterruptMidStream(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Hang(2), llmtest.Text("second try works"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.onEvent = func(e Event) {
		if _, ok := e.(ContentPart); ok {
			cancel()
		}
	}
	start := time.Now()
	err := h.soul.Run(ctx, "tell me a story")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("interrupt took %v", time.Since(start))
	}
	if len(h.eventsOf("StepInterrupted")) != 1 {
		t.Errorf("events = %v", h.types())
	}
	if e := h.eventsOf("RunEnd"); e[0].(RunEnd).Reason != "interrupted" {
		t.Errorf("RunEnd = %+v", e)
	}
	if msgs := h.messages(); roles(msgs) != "user" {
		t.Fatalf("messages after interrupt = %s", describe(msgs))
	}
	h.onEvent = nil
	h.mustRun("again")
	if msgs := h.messages(); roles(msgs) != "user,user,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	h.requestsValid()
}

func TestInterruptMidTool(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(llmtest.Call("c1", "Shell", map[string]any{"command": "echo started; sleep 30", "timeout": 60})),
		llmtest.Text("after"),
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.onEvent = func(e Event) {
		if o, ok := e.(ToolOutput); ok && strings.Contains(o.Text, "started") {
			cancel()
		}
	}
	start := time.Now()
	err := h.soul.Run(ctx, "sleep")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	if msgs := h.messages(); roles(msgs) != "user" {
		t.Fatalf("messages after interrupt = %s", describe(msgs))
	}
	h.onEvent = nil
	h.mustRun("continue")
	h.requestsValid()
}

func TestDMailBacktrack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		// Run 1.
		llmtest.Text("Ready."),
		// Run 2: a long detour, then a D-Mail to the checkpoint of run 2.
		llmtest.Calls(llmtest.Call("c1", "ReadFile", map[string]any{"path": "big.txt"})),
		llmtest.Calls(llmtest.Call("c2", "SendDMail", map[string]any{"message": "big.txt only matters at line 3: gamma", "checkpoint_id": 2})),
		llmtest.Text("Line 3 says gamma."),
	)
	if err := os.WriteFile(filepath.Join(h.work, "big.txt"), []byte("alpha\nbeta\ngamma\n"+strings.Repeat("filler\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	h.mustRun("hello")
	before := h.view()
	h.mustRun("what is on line 3 of big.txt?")
	bts := h.eventsOf("Backtrack")
	if len(bts) != 1 {
		t.Fatalf("Backtrack events = %d (%v)", len(bts), h.types())
	}
	bt := bts[0].(Backtrack)
	if bt.CheckpointID != 2 || bt.Note != "big.txt only matters at line 3: gamma" || bt.FilesReverted {
		t.Errorf("Backtrack = %+v", bt)
	}
	if bt.ReturnedTo != "what is on line 3 of big.txt?" {
		t.Errorf("ReturnedTo = %q", bt.ReturnedTo)
	}
	if bt.NewGen == bt.ArchivedGen {
		t.Errorf("generations %d -> %d", bt.ArchivedGen, bt.NewGen)
	}
	// marker, user prompt, marker, assistant(ReadFile), tool, marker, assistant(SendDMail), tool
	if bt.Discarded != 8 {
		t.Errorf("Discarded = %d, want 8", bt.Discarded)
	}
	gens, err := h.db.Generations(h.ctx, h.sid)
	if err != nil {
		t.Fatal(err)
	}
	var archived, current *store.Generation
	for i := range gens {
		switch gens[i].Gen {
		case bt.ArchivedGen:
			archived = &gens[i]
		case bt.NewGen:
			current = &gens[i]
		}
	}
	if archived == nil || current == nil || !archived.Archived() || current.Cause != store.CauseBacktrack || current.Note != bt.Note {
		t.Fatalf("generations = %+v", gens)
	}
	// The archived generation still holds the detour.
	av, err := h.db.GenerationView(h.ctx, h.sid, bt.ArchivedGen)
	if err != nil {
		t.Fatal(err)
	}
	var sawDMailCall bool
	for _, m := range av.Messages() {
		for _, c := range m.ToolCalls {
			sawDMailCall = sawDMailCall || c.Name == "SendDMail"
		}
	}
	if !sawDMailCall {
		t.Error("archived generation lost the SendDMail call")
	}
	// The view: run 1, then the D-Mail and the final answer; the prompt of
	// run 2 is gone with the detour.
	msgs := h.messages()
	if roles(msgs) != "user,assistant,user,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	if d := msgs[2].Content.PlainText(); !strings.Contains(d, "You just got a D-Mail from your future self") || !strings.Contains(d, "gamma") {
		t.Errorf("D-Mail message = %q", d)
	}
	if len(h.view().Records) <= len(before.Records) {
		t.Error("view did not grow past run 1")
	}
	// The model was sent the D-Mail, not the detour.
	reqs := h.srv.Requests()
	last := reqs[len(reqs)-1]
	for _, m := range last.Messages {
		if len(m.ToolCalls) > 0 {
			t.Errorf("detour still sent: %s", describe([]message.Message{m}))
		}
	}
	h.requestsValid()
}

func TestDMailInvalidCheckpoint(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(llmtest.Call("c1", "SendDMail", map[string]any{"message": "hi", "checkpoint_id": 99})),
		llmtest.Text("no such checkpoint"),
	)
	h.mustRun("go")
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	if r := msgs[2].Content.PlainText(); !strings.HasPrefix(r, "ERROR:") || !strings.Contains(r, "99") {
		t.Errorf("result = %q", r)
	}
	if len(h.eventsOf("Backtrack")) != 0 {
		t.Error("backtracked to a checkpoint that does not exist")
	}
}

func TestManualCompaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(thinkCall("c1")),
		llmtest.Text("answer one"),
		llmtest.Text("answer two"),
		llmtest.Text("<current_focus>testing</current_focus> SUMMARY-TEXT"),
		llmtest.Text("after compaction"),
	)
	h.mustRun("question one")
	h.mustRun("question two")
	old := h.view()
	oldMsgs := old.Messages()
	h.resetEvents()
	if err := h.soul.Compact(h.ctx); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	ends := h.eventsOf("CompactionEnd")
	if len(h.eventsOf("CompactionBegin")) != 1 || len(ends) != 1 {
		t.Fatalf("events = %v", h.types())
	}
	end := ends[0].(CompactionEnd)
	if end.Truncated || end.ArchivedGen != old.Generation.Gen || end.NewGen == end.ArchivedGen || end.Kept != 2 || end.Tokens <= 0 {
		t.Errorf("CompactionEnd = %+v", end)
	}
	if h.eventsOf("CompactionBegin")[0].(CompactionBegin).Auto {
		t.Error("manual compaction marked auto")
	}
	// The summariser got the old messages and the structured prompt.
	reqs := h.srv.Requests()
	sum := reqs[len(reqs)-1]
	if len(sum.Tools) != 0 || !strings.Contains(sum.LastText(), "question one") || !strings.Contains(sum.LastText(), "<current_focus>") {
		t.Errorf("summary request: tools %d, text %q", len(sum.Tools), words.Clip(sum.LastText(), 200))
	}
	// The archived generation holds the full original.
	av, err := h.db.GenerationView(h.ctx, h.sid, end.ArchivedGen)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(av.Messages()), len(oldMsgs); got != want {
		t.Errorf("archived generation has %d messages, want %d", got, want)
	}
	// The new view: summary + the last 2 user/assistant messages.
	msgs := h.messages()
	if roles(msgs) != "user,user,assistant" {
		t.Fatalf("compacted view = %s", describe(msgs))
	}
	if s := msgs[0].Content.PlainText(); !strings.Contains(s, "Previous context has been compacted. Here is the compaction output:") || !strings.Contains(s, "SUMMARY-TEXT") {
		t.Errorf("summary message = %q", s)
	}
	if msgs[1].Content.PlainText() != "question two" || msgs[2].Content.PlainText() != "answer two" {
		t.Errorf("preserved = %s", describe(msgs[1:]))
	}
	h.mustRun("go on")
	h.requestsValid()
}

func TestAutoCompaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{MaxContextSize: 1000, ReservedTokens: 100}},
		llmtest.Text("first answer").WithUsage(300, 20),
		llmtest.Text("second answer").WithUsage(800, 100),
		llmtest.Text("SUMMARY"),
		llmtest.Text("third answer"),
	)
	h.mustRun("one")
	h.mustRun("two")
	if n := len(h.eventsOf("CompactionBegin")); n != 0 {
		t.Fatalf("compacted too early (%d)", n)
	}
	h.mustRun("three")
	begins := h.eventsOf("CompactionBegin")
	if len(begins) != 1 || !begins[0].(CompactionBegin).Auto || begins[0].(CompactionBegin).Tokens < 800 {
		t.Fatalf("CompactionBegin = %+v", begins)
	}
	// Compaction happens before the step's checkpoint and StepBegin.
	got := strings.Join(h.types(), " ")
	if !strings.Contains(got, "CompactionBegin CompactionEnd StepBegin") {
		t.Errorf("events = %q", got)
	}
	msgs := h.messages()
	// Kept: the last two user/assistant messages when compaction ran
	// (the previous answer and the new prompt).
	if roles(msgs) != "user,assistant,user,assistant" || !strings.Contains(msgs[0].Content.PlainText(), "SUMMARY") ||
		msgs[1].Content.PlainText() != "second answer" || msgs[2].Content.PlainText() != "three" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	h.requestsValid()
}

func TestCompactionFallsBackToTruncation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("words and more words ", 1000) // the budget cannot hold both long answers
	h := newHarness(t, hopts{maxRetries: -1, cfg: Config{MaxContextSize: 20000, ReservedTokens: 100}},
		llmtest.Text("answer one "+long),
		llmtest.Text("answer two "+long),
		llmtest.Text("answer three"),
		llmtest.HTTPError(400, "context too long"),
		llmtest.Text("still here"),
	)
	h.mustRun("question one")
	h.mustRun("question two")
	h.mustRun("question three")
	oldGen := h.view().Generation.Gen
	if err := h.soul.Compact(h.ctx); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	ends := h.eventsOf("CompactionEnd")
	if len(ends) != 1 {
		t.Fatalf("events = %v", h.types())
	}
	end := ends[0].(CompactionEnd)
	if !end.Truncated || !strings.Contains(end.Reason, "context too long") || end.ArchivedGen != oldGen {
		t.Errorf("CompactionEnd = %+v", end)
	}
	msgs := h.messages()
	if len(msgs) < 2 || msgs[0].Role != "user" || !strings.Contains(msgs[0].Content.PlainText(), "truncation") || msgs[1].Role != "user" {
		t.Fatalf("truncated view = %s", describe(msgs))
	}
	if msgs[len(msgs)-1].Content.PlainText() != "answer three" {
		t.Errorf("newest message lost: %s", describe(msgs))
	}
	av, err := h.db.GenerationView(h.ctx, h.sid, oldGen)
	if err != nil || !strings.Contains(describe(av.Messages()), "question one") {
		t.Errorf("archived generation lost the original: %v", err)
	}
	h.mustRun("go on")
	h.requestsValid()
}

func TestLoopDetection(t *testing.T) {
	t.Parallel()
	cmd := func(id string) llmtest.ToolCall {
		return llmtest.Call(id, "Shell", map[string]any{"command": "cat missing-file.txt"})
	}
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(cmd("c1")), llmtest.Calls(cmd("c2")), llmtest.Calls(cmd("c3")),
		llmtest.Text("I keep failing; stopping."),
	)
	h.mustRun("read it")
	ws := h.eventsOf("LoopWarning")
	if len(ws) != 1 || ws[0].(LoopWarning).Command != "cat missing-file.txt" || ws[0].(LoopWarning).Count != 3 {
		t.Fatalf("LoopWarning events = %+v", ws)
	}
	msgs := h.messages()
	last := msgs[len(msgs)-2]
	if last.Role != "tool" || !strings.Contains(last.Content.PlainText(), "Loop warning") {
		t.Errorf("last tool result = %q", last.Content.PlainText())
	}
	if strings.Contains(msgs[2].Content.PlainText(), "Loop warning") {
		t.Error("warned on the first call")
	}
}

func TestParallelReadOnlyCallsKeepOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(
			llmtest.Call("r1", "ReadFile", map[string]any{"path": "one.txt"}),
			llmtest.Call("r2", "ReadFile", map[string]any{"path": "two.txt"}),
			llmtest.Call("r3", "Glob", map[string]any{"pattern": "*.txt"}),
		),
		llmtest.Text("read them"),
	)
	for _, f := range []string{"one", "two"} {
		if err := os.WriteFile(filepath.Join(h.work, f+".txt"), []byte("content of "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.mustRun("read both")
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,tool,tool,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	for i, id := range []string{"r1", "r2", "r3"} {
		if msgs[2+i].ToolCallID != id {
			t.Errorf("result %d answers %s", i, msgs[2+i].ToolCallID)
		}
	}
	if !strings.Contains(msgs[2].Content.PlainText(), "content of one") || !strings.Contains(msgs[3].Content.PlainText(), "content of two") {
		t.Errorf("results out of order: %s", describe(msgs[2:4]))
	}
	// One parallel group: every ToolCall is announced before any result
	// (calls run one at a time would alternate ToolCall, ToolResult).
	var calls []string
	for _, typ := range h.types() {
		if typ == "ToolCall" || typ == "ToolResult" {
			calls = append(calls, typ)
		}
	}
	if got := strings.Join(calls, " "); got != "ToolCall ToolCall ToolCall ToolResult ToolResult ToolResult" {
		t.Errorf("the read-only calls did not run as one parallel group: %s", got)
	}
	got := strings.Join(dedupe(h.types()), " ")
	if !strings.Contains(got, "ToolCall ToolResult StatusUpdate") {
		t.Errorf("events = %q", got)
	}
}

func TestStatusFromSinkDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{cfg: Config{Yolo: true}},
		llmtest.Calls(thinkCall("c1")),
		llmtest.Text("ok"),
		llmtest.Text("the summary"),
	)
	h.onEvent = func(Event) { _ = h.soul.Status(); _ = h.soul.Yolo() }
	done := make(chan error, 1)
	go func() { done <- h.run("hi") }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run deadlocked with a sink calling Status")
	}
	if err := h.soul.Compact(h.ctx); err != nil {
		t.Fatal(err)
	}
}

func TestRevertClearRestore(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Text("one"),
		llmtest.Text("two"),
	)
	h.mustRun("first")
	h.mustRun("second")
	g0 := h.view().Generation.Gen
	// Checkpoint 2 is the start of run 2.
	g, err := h.soul.RevertTo(h.ctx, 2)
	if err != nil {
		t.Fatalf("RevertTo: %v", err)
	}
	if msgs := h.messages(); roles(msgs) != "user,assistant" || msgs[0].Content.PlainText() != "first" {
		t.Fatalf("after revert = %s", describe(msgs))
	}
	if st := h.soul.Status(); st.Generation != g.Gen {
		t.Errorf("status generation %d, want %d", st.Generation, g.Gen)
	}
	if _, err := h.soul.Clear(h.ctx); err != nil {
		t.Fatalf("Clear: %v", err)
	}
	if msgs := h.messages(); len(msgs) != 0 {
		t.Fatalf("after clear = %s", describe(msgs))
	}
	if _, err := h.soul.Restore(h.ctx, g0); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if msgs := h.messages(); roles(msgs) != "user,assistant,user,assistant" {
		t.Fatalf("after restore = %s", describe(msgs))
	}
	if n := len(h.eventsOf("StatusUpdate")); n == 0 {
		t.Error("no StatusUpdate")
	}
	if _, err := h.soul.RevertTo(h.ctx, 999); err == nil {
		t.Error("revert to a missing checkpoint succeeded")
	}
}

func TestBusy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{}, llmtest.Hang(3))
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	h.onEvent = func(e Event) {
		if _, ok := e.(ContentPart); ok {
			once.Do(func() { close(started) })
		}
	}
	done := make(chan error, 1)
	go func() { done <- h.soul.Run(ctx, "hang") }()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("Run ended before streaming: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("no content streamed")
	}
	if err := h.soul.Run(h.ctx, "second"); !errors.Is(err, ErrBusy) {
		t.Errorf("concurrent Run = %v", err)
	}
	if err := h.soul.Compact(h.ctx); !errors.Is(err, ErrBusy) {
		t.Errorf("Compact during Run = %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
}

func TestRequestProblemCatchesBadRequests(t *testing.T) {
	t.Parallel()
	bad := [][]message.Message{
		{toolMsg("x", "orphan")},
		{assistantCalls(call("a", "Shell", "{"))},
		{assistantCalls(call("a", "Shell", "{}"))},
		{assistantCalls(call("a", "Shell", "{}")), toolMsg("b", "wrong id")},
	}
	for i, msgs := range bad {
		if requestProblem(msgs) == nil {
			t.Errorf("case %d: invalid request accepted", i)
		}
	}
	good := []message.Message{assistantCalls(call("a", "Shell", "{}")), toolMsg("a", "ok")}
	if err := requestProblem(good); err != nil {
		t.Errorf("valid request rejected: %v", err)
	}
}

func TestNonStreamingClientStillShowsText(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{noStream: true, cfg: Config{Yolo: true}},
		llmtest.Calls(thinkCall("c1")).WithReasoning("let me think"),
		llmtest.Text("plain answer"),
	)
	h.mustRun("hi")
	var text strings.Builder
	for _, e := range h.eventsOf("ContentPart") {
		text.WriteString(e.(ContentPart).Text)
	}
	if text.String() != "plain answer" {
		t.Errorf("content events = %q", text.String())
	}
	if rs := h.eventsOf("ReasoningPart"); len(rs) != 1 || rs[0].(ReasoningPart).Text != "let me think" {
		t.Errorf("reasoning events = %+v", rs)
	}
	if msgs := h.messages(); roles(msgs) != "user,assistant,tool,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	if h.srv.Requests()[0].Stream {
		t.Error("request was streamed")
	}
}

// reverter is a FileTracker that can also revert files and flush, recording
// the calls.
type reverter struct {
	mu      sync.Mutex
	calls   []string
	flushes []int // messages in the view at each Flush
	view    func() store.View
}

func (r *reverter) Flush(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := -1
	if r.view != nil {
		n = len(r.view().Messages())
	}
	r.flushes = append(r.flushes, n)
	return nil
}

func (r *reverter) BeforeWrite(context.Context, []string) ([]tools.NotKeptFile, error) {
	return nil, nil
}
func (r *reverter) AroundShell(context.Context) (func(context.Context) ([]tools.NotKeptFile, error), error) {
	return func(context.Context) ([]tools.NotKeptFile, error) { return nil, nil }, nil
}
func (r *reverter) RevertFiles(_ context.Context, sessionID string, checkpointID int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf("%s@%d", sessionID, checkpointID))
	return nil
}

func TestDMailRevertsFilesWhenAsked(t *testing.T) {
	t.Parallel()
	rv := &reverter{}
	h := newHarness(t, hopts{cfg: Config{Yolo: true, DMailRevertsFiles: true, Files: rv}},
		llmtest.Calls(llmtest.Call("c1", "SendDMail", map[string]any{"message": "try the other way", "checkpoint_id": 0})),
		llmtest.Text("trying the other way"),
	)
	h.mustRun("start")
	bts := h.eventsOf("Backtrack")
	if len(bts) != 1 || !bts[0].(Backtrack).FilesReverted || bts[0].(Backtrack).FilesError != "" {
		t.Fatalf("Backtrack = %+v", bts)
	}
	if len(rv.calls) != 1 || rv.calls[0] != h.sid+"@0" {
		t.Errorf("RevertFiles calls = %v", rv.calls)
	}
	// Checkpoint 0 preceded the prompt: only the D-Mail and the answer remain.
	if msgs := h.messages(); roles(msgs) != "user,assistant" || !strings.Contains(msgs[0].Content.PlainText(), "try the other way") {
		t.Fatalf("messages = %s", describe(msgs))
	}
	if bt := bts[0].(Backtrack); bt.ReturnedTo != "start" {
		t.Errorf("ReturnedTo = %q", bt.ReturnedTo)
	}
}

func TestDMailDroppedWhenStepRejected(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(
			llmtest.Call("c1", "SendDMail", map[string]any{"message": "go back", "checkpoint_id": 0}),
			writeCall("c2", "a.txt"),
		),
	)
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			r.Respond(Reject, "")
		}
	}
	if err := h.run("start"); !errors.Is(err, ErrRejected) {
		t.Fatalf("Run = %v", err)
	}
	if len(h.eventsOf("Backtrack")) != 0 {
		t.Error("backtracked although the step was rejected")
	}
	if msgs := h.messages(); roles(msgs) != "user,assistant,tool,tool" {
		t.Fatalf("messages = %s", describe(msgs))
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	c := Config{}.withDefaults()
	if !reflect.DeepEqual(c, DefaultConfig()) {
		t.Errorf("zero config = %+v, want %+v", c, DefaultConfig())
	}
	if c := (Config{MaxContextSize: 8000}).withDefaults(); c.ReservedTokens != 2000 {
		t.Errorf("reserve for a small window = %d", c.ReservedTokens)
	}
	if c := (Config{ReservedTokens: -1}).withDefaults(); c.ReservedTokens != 0 {
		t.Errorf("negative reserve = %d", c.ReservedTokens)
	}
	s := &Soul{cfg: DefaultConfig()}
	if s.needsCompaction(77999) || !s.needsCompaction(78000) {
		t.Error("kimi's rule: compact at tokens + 50,000 >= 128,000")
	}
	s.cfg.ReservedTokens = 0
	if s.needsCompaction(108799) || !s.needsCompaction(108800) {
		t.Error("85 % rule")
	}
}

func TestFilesFlushedAfterEachToolStepBeforeCommit(t *testing.T) {
	t.Parallel()
	rv := &reverter{}
	h := newHarness(t, hopts{cfg: Config{Yolo: true, Files: rv}},
		llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "a.txt", "content": "a"})),
		llmtest.Calls(llmtest.Call("c2", "WriteFile", map[string]any{"path": "b.txt", "content": "b"})),
		llmtest.Text("done"),
	)
	rv.view = h.view
	h.mustRun("write two files")
	// One flush per step with tool calls, each before that step committed:
	// the view then holds the prompt (+ checkpoint marker) and earlier steps.
	if len(rv.flushes) != 2 {
		t.Fatalf("flushes = %v, want one per tool step", rv.flushes)
	}
	if rv.flushes[1]-rv.flushes[0] < 2 {
		t.Errorf("second flush saw %d messages, first %d: the first step was not committed in between", rv.flushes[1], rv.flushes[0])
	}
	if final := len(h.view().Messages()); rv.flushes[1] >= final {
		t.Errorf("second flush saw %d messages, final view has %d: flush ran after the commit", rv.flushes[1], final)
	}
}

// A tool that appears in the set's source after the Soul was made (an MCP
// server finished starting) is offered from the next step on.
func TestToolsFromASourceAreOfferedPerStep(t *testing.T) {
	var mu sync.Mutex
	var extra []tools.Tool
	set := tools.NewSet(&tools.Think{}).WithSource(func() []tools.Tool {
		mu.Lock()
		defer mu.Unlock()
		return extra
	})
	h := newHarness(t, hopts{set: set}, llmtest.Calls(thinkCall("c1")), llmtest.Text("done"))
	h.onEvent = func(e Event) {
		if _, ok := e.(ToolResult); ok {
			mu.Lock()
			extra = []tools.Tool{&tools.ListDir{}}
			mu.Unlock()
		}
	}
	h.mustRun("go")
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := strings.Join(reqs[0].ToolNames(), ","); got != "Think" {
		t.Errorf("first step's tools = %s", got)
	}
	if got := strings.Join(reqs[1].ToolNames(), ","); got != "Think,ListDir" {
		t.Errorf("second step's tools = %s", got)
	}
}

// TestRejectWithFeedbackContinuesRun: the feedback reaches the model as the
// rejected call's result, later calls of the step are not run, and the run
// goes on to the model's next answer (Claude Code's behaviour).
func TestRejectWithFeedbackContinuesRun(t *testing.T) {
	h := newHarness(t, hopts{},
		llmtest.Calls(writeCall("c1", "a.txt"), writeCall("c2", "b.txt")),
		llmtest.Calls(writeCall("c3", "notes.md")),
		llmtest.Text("Wrote notes.md instead."),
	)
	asked := 0
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			asked++
			if asked == 1 {
				r.Respond(RejectWithFeedback, "call it notes.md")
			} else {
				r.Respond(ApproveOnce, "")
			}
		}
	}
	h.mustRun("write a file")
	if asked != 2 {
		t.Fatalf("asked %d times, want 2 (c1 rejected, c2 not run, c3 approved)", asked)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3: the run must go on after the feedback", len(reqs))
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,tool,assistant,tool,assistant" {
		t.Fatalf("messages = %s", describe(msgs))
	}
	if r := msgs[2].Content.PlainText(); !strings.Contains(r, tools.RejectedOutput) || !strings.Contains(r, "call it notes.md") {
		t.Errorf("feedback result = %q", r)
	}
	if r := msgs[3].Content.PlainText(); !strings.Contains(r, "not run") {
		t.Errorf("call after the rejection = %q", r)
	}
	for f, want := range map[string]bool{"a.txt": false, "b.txt": false, "notes.md": true} {
		if _, err := os.Stat(filepath.Join(h.work, f)); (err == nil) != want {
			t.Errorf("%s written = %v, want %v", f, err == nil, want)
		}
	}
	if e := h.eventsOf("RunEnd"); e[0].(RunEnd).Reason == "rejected" {
		t.Errorf("RunEnd = %+v", e)
	}
	h.requestsValid()
}

// TestRejectWithEmptyFeedbackStops: "reject with feedback" and no text is
// a plain reject.
func TestRejectWithEmptyFeedbackStops(t *testing.T) {
	h := newHarness(t, hopts{},
		llmtest.Calls(writeCall("c1", "a.txt")),
		llmtest.Text("never asked"),
	)
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			r.Respond(RejectWithFeedback, "  ")
		}
	}
	if err := h.run("write a file"); !errors.Is(err, ErrRejected) {
		t.Fatalf("Run = %v, want ErrRejected", err)
	}
}

func shellCall(id, cmd string) llmtest.ToolCall {
	return llmtest.Call(id, "Shell", map[string]any{"command": cmd})
}

// TestShellApprovalForSessionIsScoped: "approve for session" on a Shell
// call covers its prefix (`echo …`), not every later command; the request
// says what it would cover, and the approval can be revoked.
func TestShellApprovalForSessionIsScoped(t *testing.T) {
	h := newHarness(t, hopts{},
		llmtest.Calls(shellCall("c1", "echo one")),
		llmtest.Calls(shellCall("c2", "echo two")),
		llmtest.Calls(shellCall("c3", "ls")),
		llmtest.Text("done"),
		llmtest.Calls(shellCall("c4", "echo three")),
		llmtest.Text("done again"),
	)
	var asked []*ApprovalRequest
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			asked = append(asked, r)
			if len(asked) == 1 {
				r.Respond(ApproveForSession, "")
			} else {
				r.Respond(ApproveOnce, "")
			}
		}
	}
	h.mustRun("run some commands")
	if len(asked) != 2 || asked[0].Command != "echo one" || asked[1].Command != "ls" {
		t.Fatalf("asked for %v, want `echo one` and `ls` (echo two was covered)", commands(asked))
	}
	if got := asked[0].SessionScopes; len(got) != 1 || got[0] != "echo …" {
		t.Errorf("session scopes of `echo one` = %q", got)
	}
	if got := h.soul.ApprovedForSession(); len(got) != 1 || got[0] != "run shell command: echo …" {
		t.Fatalf("approved for session = %q", got)
	}
	if !h.soul.RevokeApproval("run shell command: echo …") || len(h.soul.ApprovedForSession()) != 0 {
		t.Fatal("revoke did not remove the approval")
	}
	h.mustRun("one more")
	if len(asked) != 3 || asked[2].Command != "echo three" {
		t.Fatalf("after revoking, asked for %v", commands(asked))
	}
}

func commands(rs []*ApprovalRequest) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Command
	}
	return out
}

// TestCompoundApprovalNeverCoversADestructivePrefix: `a` on
// `rm -f gone.txt && echo ok` approved `rm …` for the session, and a later
// `rm -rf src` ran without asking. A destructive part is approved only as
// the exact text the user saw; the harmless parts keep their prefixes.
func TestCompoundApprovalNeverCoversADestructivePrefix(t *testing.T) {
	h := newHarness(t, hopts{},
		llmtest.Calls(shellCall("c1", "rm -f gone.txt && echo ok")),
		llmtest.Calls(shellCall("c2", "echo again")),
		llmtest.Calls(shellCall("c3", "rm -f gone.txt && echo ok")),
		llmtest.Calls(shellCall("c4", "rm -rf src")),
		llmtest.Calls(shellCall("c5", "git push origin main")),
		llmtest.Calls(shellCall("c6", "git push --force origin main")),
		llmtest.Calls(shellCall("c7", "echo pwned > notes.txt")),
		llmtest.Text("done"),
	)
	var asked []*ApprovalRequest
	h.onEvent = func(e Event) {
		if r, ok := e.(*ApprovalRequest); ok {
			asked = append(asked, r)
			r.Respond(ApproveForSession, "")
		}
	}
	h.mustRun("clean up")
	want := []string{"rm -f gone.txt && echo ok", "rm -rf src", "git push origin main", "git push --force origin main", "echo pwned > notes.txt"}
	if got := commands(asked); !reflect.DeepEqual(got, want) {
		t.Fatalf("asked for %q, want %q", got, want)
	}
	if got := asked[0].SessionScopes; !reflect.DeepEqual(got, []string{"rm -f gone.txt", "echo …"}) {
		t.Errorf("what `a` covers for the compound command = %q", got)
	}
	for _, k := range h.soul.ApprovedForSession() {
		if strings.HasSuffix(k, ": rm …") || strings.HasSuffix(k, ": git push …") {
			t.Errorf("a destructive prefix was approved for the session: %q", k)
		}
	}
}
