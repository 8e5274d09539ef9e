package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// Kind is the kind of a context record.
type Kind string

const (
	KindMessage    Kind = "message"
	KindCheckpoint Kind = "checkpoint"
	KindUsage      Kind = "usage"
)

// Cause says why a generation was started.
type Cause string

const (
	CauseStart     Cause = "start"
	CauseRevert    Cause = "revert"
	CauseBacktrack Cause = "backtrack"
	CauseCompact   Cause = "compact"
	CauseClear     Cause = "clear"
	CauseRestore   Cause = "restore"
	CauseImport    Cause = "import"
	CauseFork      Cause = "fork"
	// CauseInterrupt: an archived generation keeping what an interrupted
	// step had streamed (KeepInterrupted); it is never current.
	CauseInterrupt Cause = "interrupt"
)

// Errors callers match with errors.Is. Messages wrapped around them name the
// session, checkpoint or generation.
var (
	ErrSessionNotFound    = errors.New("session not found")
	ErrCheckpointNotFound = errors.New("checkpoint not found")
	ErrGenerationNotFound = errors.New("generation not found")
	ErrAmbiguousID        = errors.New("session id prefix is ambiguous")
	ErrNotDatabase        = errors.New("not a rewind database")
	ErrNewerSchema        = errors.New("database was written by a newer rewind")
	ErrLeaseHeld          = errors.New("session is open in another rewind process")
	ErrLeaseLost          = errors.New("this process lost the session's writer lease")
	ErrCompactedRegion    = errors.New("checkpoint lies in a region replaced by compaction")
	// ErrBusy: another connection held the write lock for longer than the
	// busy timeout; nothing was written, and the same write may succeed
	// later (RetryBusy).
	ErrBusy = errors.New("the database is busy: another process holds its write lock")
)

// AmbiguousIDError is the ErrAmbiguousID of a prefix, with the first
// sessions it matches (by id), so a message can list them.
type AmbiguousIDError struct {
	Prefix     string
	Candidates []Session // at most MaxAmbiguousCandidates; ID and Title set
	More       bool      // more sessions match than are listed
}

// MaxAmbiguousCandidates bounds AmbiguousIDError.Candidates.
const MaxAmbiguousCandidates = 5

func (e *AmbiguousIDError) Error() string {
	ids := make([]string, len(e.Candidates))
	for i, c := range e.Candidates {
		ids[i] = c.ID
	}
	more := ""
	if e.More {
		more = ", …"
	}
	return fmt.Sprintf("session %s (matches %s%s): %v", e.Prefix, strings.Join(ids, ", "), more, ErrAmbiguousID)
}

func (e *AmbiguousIDError) Is(target error) bool { return target == ErrAmbiguousID }

// Session is one conversation. The counters describe its current view.
type Session struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	WorkDir     string    `json:"work_dir"`
	Model       string    `json:"model"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	CurrentGen  int       `json:"current_gen"`
	Deleted     bool      `json:"deleted"`
	Messages    int       `json:"messages"`
	Checkpoints int       `json:"checkpoints"`
	Tokens      int       `json:"tokens"`
	Generations int       `json:"generations"`
	// Where the session came from: ForkOf is the source session of a fork
	// (ForkOfTitle its title, ForkCheckpoint the checkpoint it was cut at,
	// -1 for a whole view); Imported marks an import, and Origin names the
	// agent it came from (OriginKimi, OriginCodex, OriginClaude; "" for
	// rewind's own sessions).
	ForkOf         string `json:"fork_of,omitempty"`
	ForkOfTitle    string `json:"-"`
	ForkCheckpoint int    `json:"-"`
	Imported       bool   `json:"imported,omitempty"`
	Origin         string `json:"origin,omitempty"`
	// Unanswered: it has messages but no answer was ever written in it
	// (a run that failed before the model replied).
	Unanswered bool `json:"unanswered,omitempty"`
	// A sub-agent run (the Agent tool): SubagentOf is the session whose
	// tool call SubagentCall started it, SubagentType its type ("coder").
	SubagentOf   string `json:"subagent_of,omitempty"`
	SubagentCall string `json:"subagent_call,omitempty"`
	SubagentType string `json:"subagent_type,omitempty"`
	// Where in the parent the call ran (generation, last seq): see
	// SubagentArchived.
	subagentGen int
	subagentSeq int64
}

// ForkNote says what a fork was cut from, "fork of <title> @ checkpoint
// N" (the source's id when it has no title; no checkpoint for a whole
// view), so a fork never reads exactly like its source; "" for a session
// that is not a fork. The CLI and the TUI both show it.
func (s Session) ForkNote() string {
	if s.ForkOf == "" {
		return ""
	}
	src := s.ForkOfTitle
	if src == "" {
		src = s.ForkOf[:min(len(s.ForkOf), 10)]
	}
	if s.ForkCheckpoint >= 0 {
		return fmt.Sprintf("fork of %s @ checkpoint %d", src, s.ForkCheckpoint)
	}
	return "fork of " + src
}

// ListTitle is the title the session lists show (the TUI's and `rewind
// sessions`): its title ("(untitled)" when empty) and, for a fork, what it
// was cut from, "<title> (fork of <source> @ checkpoint N)". A fork that
// kept its source's title (every fork starts with it) shows only the note,
// "fork of <title> @ checkpoint N", so the title is not said twice.
func (s Session) ListTitle() string {
	title := s.Title
	if title == "" {
		title = "(untitled)"
	}
	note := s.ForkNote()
	switch {
	case note == "":
		return title
	case s.Title != "" && s.Title == s.ForkOfTitle:
		return note
	}
	return title + " (" + note + ")"
}

// Generation is one version of a session's context. Its view is its parent's
// view restricted to records with seq < ForkSeq, followed by its own records.
type Generation struct {
	SessionID string `json:"session_id"`
	Gen       int    `json:"gen"`
	ParentGen *int   `json:"parent_gen"`
	// ParentSession is set when the parent generation belongs to another
	// session (a fork shares its source's records); empty means this session.
	ParentSession string     `json:"parent_session,omitempty"`
	ForkSeq       *int64     `json:"fork_seq"`
	SourceGen     *int       `json:"source_gen,omitempty"` // compaction/fork: the generation it came from
	Cause         Cause      `json:"cause"`
	Note          string     `json:"note"`
	CreatedAt     time.Time  `json:"created_at"`
	ArchivedAt    *time.Time `json:"archived_at"`
	// Counters of the generation's view, kept up to date on every append.
	Messages         int `json:"messages"`
	NextCheckpointID int `json:"next_checkpoint_id"`
	Tokens           int `json:"tokens"`
}

// Archived reports whether the generation has been replaced.
func (g Generation) Archived() bool { return g.ArchivedAt != nil }

// Record is one row of the context table.
type Record struct {
	SessionID    string          `json:"-"`
	Seq          int64           `json:"seq"`
	Gen          int             `json:"gen"`
	Kind         Kind            `json:"kind"`
	Role         string          `json:"role,omitempty"`
	CheckpointID int             `json:"checkpoint_id"` // meaningful for checkpoint records
	TokenCount   int             `json:"token_count"`   // meaningful for usage records
	Body         json.RawMessage `json:"message,omitempty"`
	CreatedAt    time.Time       `json:"created_at"`
}

// Message decodes a message record's body.
func (r Record) Message() (message.Message, error) {
	var m message.Message
	err := m.UnmarshalJSON(r.Body) // it checks the body once; json.Unmarshal would first check it whole
	return m, err
}

// View is what a generation holds: the records the model would be sent,
// in seq order, plus its counters.
type View struct {
	SessionID        string
	Generation       Generation
	Records          []Record
	Tokens           int
	NextCheckpointID int
	// Earlier is set on a page of a view (ViewBefore, ViewAround) that does
	// not start at the view's first record: the view holds records before
	// Records.
	Earlier bool
	// Later is set on a page of a view (ViewAfter, ViewAround) that does not
	// end at the view's last record: the view holds records after Records.
	Later bool
	// MessagesBefore is the number of the view's messages before the first
	// record of a page read by ViewAround (0 for the other reads).
	MessagesBefore int
}

// Messages decodes the view's message records in order. Bodies that fail to
// decode are skipped; the store never writes such bodies.
func (v View) Messages() []message.Message {
	out := make([]message.Message, 0, len(v.Records))
	for _, r := range v.Records {
		if r.Kind != KindMessage {
			continue
		}
		if m, err := r.Message(); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// Step is what one agent step commits atomically: the assistant message, the
// results of its tool calls (in call order) and the usage after it.
type Step struct {
	Assistant   message.Message
	ToolResults []message.Message
	TokenCount  int // the context size reported (or estimated) after the step; 0 = no usage record
}
