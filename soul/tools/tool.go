package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/internal/media"
	"github.com/rewind-agent/rewind/internal/words"
)

// Tool is one tool the model can call.
type Tool interface {
	Name() string
	// Description is the text sent to the model, embedded from a .md file
	// next to the tool.
	Description() string
	// Schema is the JSON schema (type object) of the arguments.
	Schema() json.RawMessage
	// Call runs the tool. It never panics and reports every failure as a
	// Result with IsError set.
	Call(ctx context.Context, env *Env, args json.RawMessage) Result
}

// ReadOnlyTool is implemented by the tools whose calls neither write nor
// execute (ReadFile, Glob, Grep, ListDir, Think), so the soul may run
// neighbouring calls of them in parallel. Such a call may still ask for
// approval, to read outside the work dir.
type ReadOnlyTool interface {
	Tool
	ReadOnly() bool
}

var (
	_ ReadOnlyTool = (*ReadFile)(nil)
	_ ReadOnlyTool = (*Glob)(nil)
	_ ReadOnlyTool = (*Grep)(nil)
	_ ReadOnlyTool = (*ListDir)(nil)
	_ ReadOnlyTool = (*Think)(nil)
	_ ReadOnlyTool = (*FetchURL)(nil)
	_ ReadOnlyTool = (*SearchWeb)(nil)
	_ ReadOnlyTool = (*ReadMediaFile)(nil)
)

// Env is what a tool call may touch. Every field is optional except WorkDir
// (an empty WorkDir means the process's current directory).
type Env struct {
	WorkDir string
	// Output receives live output (Shell). It is called from one goroutine
	// at a time, possibly not the caller's, and only before Call returns.
	Output func(text string)
	// Approve asks the user. nil approves everything (yolo). Approval for
	// the session is the caller's bookkeeping, keyed by Approval.Action.
	Approve func(ctx context.Context, a Approval) Decision
	// Files records file checkpoints. nil disables them.
	Files FileTracker
	// DMail queues a D-Mail to checkpointID; its error (no such checkpoint,
	// one already pending) becomes a tool error. nil: D-Mail unavailable.
	DMail func(message string, checkpointID int) error
	// Plan is the session's plan mode (EnterPlanMode, ExitPlanMode). nil:
	// plan mode unavailable.
	Plan PlanMode
}

// Approval is a request to the user to allow a tool call.
type Approval struct {
	Tool        string // tool name, e.g. "WriteFile"
	Action      string // approval class, one of the Action* constants
	Description string // one line, e.g. "Write 12 lines to main.go"
	Diff        string // unified diff for edits
	Command     string // the shell command for Shell
	// Scopes, for Shell, are what "approve for session" covers (see
	// ShellScopes); empty: the whole Action.
	Scopes []string
	// Plan, for ExitPlanMode (ActionApprovePlan), is the plan to approve.
	Plan string
}

// Decision answers an Approval.
type Decision struct {
	Approved bool
	Feedback string // optional, from the user on reject
	// Continue, on a reject with feedback: the user said what to do
	// instead, so the run goes on with the feedback as the call's result.
	Continue bool
}

// Result is the outcome of a tool call.
type Result struct {
	Output   string // what the model sees
	IsError  bool
	Brief    string // one short line for the UI
	Rejected bool   // the user rejected the call; the soul stops the run unless Continue
	Continue bool   // with Rejected: the user gave feedback, the run goes on
	Todos    []Todo // SetTodoList: the list as set
	// Images go to the model with Output as image parts (ReadMediaFile).
	Images []media.Image
}

// FileTracker is the file-checkpoint hook (soul/filecp).
type FileTracker interface {
	// BeforeWrite is called before WriteFile/StrReplaceFile touch paths
	// (absolute). An error aborts the write. It names the files over the
	// size cap whose content it could not keep (a rewind cannot restore
	// them).
	BeforeWrite(ctx context.Context, paths []string) ([]NotKeptFile, error)
	// AroundShell is called before a shell command runs; after is called
	// when it is done, whatever the outcome, and names the files over the
	// size cap the command changed (not kept: a rewind cannot restore them).
	AroundShell(ctx context.Context) (after func(context.Context) ([]NotKeptFile, error), err error)
}

// NotKeptFile is a file over the file-checkpoint size cap (file_size_cap)
// that a command or a write changed: its content is not kept. Size is its size after
// the change (before it, when Deleted).
type NotKeptFile struct {
	Path    string
	Size    int64
	Deleted bool
}

// NotKeptNote is what a tool result says about files not kept, "" for
// none, so the model and the person reading the call know a revert leaves
// them as they are.
func NotKeptNote(files []NotKeptFile) string {
	if len(files) == 0 {
		return ""
	}
	names := make([]string, len(files))
	for i, f := range files {
		size := words.Size(f.Size)
		if f.Deleted {
			size = "deleted, " + size
		}
		names[i] = fmt.Sprintf("%s (%s)", f.Path, size)
	}
	return fmt.Sprintf("\n[Not kept for rewinds, over file_size_cap: %s. A revert cannot restore %s.]",
		strings.Join(names, ", "), words.Plural(len(files), "it", "them"))
}

// Todo is one entry of the model's todo list.
type Todo struct {
	Title  string `json:"title" jsonschema:"What to do."`
	Status string `json:"status"` // TodoPending, TodoInProgress or TodoDone (SetTodoList's schema lists them)
}

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoDone       = "done"
)

// Approval actions: the classes the user approves "for the session".
const (
	ActionRunShell      = "run shell command"
	ActionEditFile      = "edit file"
	ActionEditOutside   = "edit file outside work dir"
	ActionAccessOutside = "access outside work dir"
	// ActionApprovePlan is ExitPlanMode's: asked every time, never
	// approved for the session nor by yolo.
	ActionApprovePlan = "approve plan"
)

// RejectedOutput starts the output of a call the user rejected.
const RejectedOutput = "The user rejected this tool call"

// errorResult is a tool error with a brief.
func errorResult(brief, format string, a ...any) Result {
	return Result{Output: fmt.Sprintf(format, a...), IsError: true, Brief: brief}
}

// approve asks env.Approve (nil approves) and turns a rejection into a Result.
func approve(ctx context.Context, env *Env, a Approval) (Result, bool) {
	if env.Approve == nil {
		return Result{}, true
	}
	if err := ctx.Err(); err != nil {
		return errorResult("interrupted", "The tool call was interrupted before it was approved."), false
	}
	d := env.Approve(ctx, a)
	if d.Approved {
		return Result{}, true
	}
	out := RejectedOutput + "."
	fb := strings.TrimSpace(d.Feedback)
	if fb != "" {
		out = RejectedOutput + ". The user's feedback: " + fb
	}
	if d.Continue && fb != "" {
		return Result{Output: out + "\nDo not retry the same call; follow the feedback.", IsError: true, Rejected: true, Continue: true, Brief: "rejected with feedback"}, false
	}
	return Result{Output: out, IsError: true, Rejected: true, Brief: "rejected"}, false
}

// envOrEmpty lets tools accept a nil *Env.
func envOrEmpty(env *Env) *Env {
	if env == nil {
		return &Env{}
	}
	return env
}

// HumanBytes formats a size as "512 B", "3.2 KB", "1.5 MB".
func HumanBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}
