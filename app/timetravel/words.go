package timetravel

import (
	"context"
	"fmt"
	"github.com/rewind-agent/rewind/store"
	"sort"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/filecp"
)

// The words every front end uses. Paths and prompts are not sanitised here:
// the CLI and the views do that before anything reaches a terminal.

func msgs(n int) string { return fmt.Sprintf("%d %s", n, words.Plural(n, "message", "messages")) }

// Title names the operation: "Revert to checkpoint 3".
func (p Plan) Title() string {
	switch p.Kind {
	case Revert:
		return fmt.Sprintf("Revert to checkpoint %d", p.Checkpoint)
	case Restore:
		return fmt.Sprintf("Restore generation %d", p.Gen)
	}
	return "Undo the last rewind"
}

// What is the operation in a few words, for the rewind log.
func (p Plan) What() string {
	switch p.Kind {
	case Revert:
		return fmt.Sprintf("revert to checkpoint %d", p.Checkpoint)
	case Restore:
		return fmt.Sprintf("restore generation %d", p.Gen)
	}
	return "undo " + p.Undoes.What
}

// ConversationLine is what the conversation half would do (dry run) or did.
func (p Plan) ConversationLine(newGen int, done bool) string {
	switch {
	case p.Kind == Revert && done:
		return fmt.Sprintf("reverted to checkpoint %d: generation %d, %s archived in generation %d", p.Checkpoint, newGen, msgs(p.Messages), p.CurrentGen)
	case p.Kind == Revert:
		return fmt.Sprintf("would revert to checkpoint %d: generation %d, %d %s would be archived in generation %d",
			p.Checkpoint, p.CurrentGen+1, p.Messages, words.Plural(p.Messages, "message", "messages"), p.CurrentGen)
	case done:
		return fmt.Sprintf("restored generation %d as generation %d (%s); generation %d archived", p.Gen, newGen, msgs(p.Messages), p.CurrentGen)
	}
	return fmt.Sprintf("would restore generation %d as generation %d (%s); generation %d would be archived", p.Gen, p.CurrentGen+1, msgs(p.Messages), p.CurrentGen)
}

// FilesTitle heads the files half's report.
func (p Plan) FilesTitle(done bool) string {
	switch {
	case p.Kind == Revert && done:
		return fmt.Sprintf("files reverted to checkpoint %d", p.Checkpoint)
	case p.Kind == Revert:
		return fmt.Sprintf("files to revert to checkpoint %d", p.Checkpoint)
	case p.Kind == Restore && done:
		return fmt.Sprintf("files restored to the end of generation %d", p.Gen)
	case p.Kind == Restore:
		return fmt.Sprintf("files to restore to the end of generation %d", p.Gen)
	case done:
		return "files put back as they were before the rewind"
	}
	return "files to put back as they were before the rewind"
}

// Question is the dialog's text: what the operation does to the
// conversation and to the files, before anything changes.
func (p Plan) Question(limit int) string {
	var sb strings.Builder
	switch p.Kind {
	case Revert:
		fmt.Fprintf(&sb, "Revert to checkpoint %d? %s will be archived in generation %d (not deleted).", p.Checkpoint, strings.ToUpper(msgs(p.Messages)[:1])+msgs(p.Messages)[1:], p.CurrentGen)
		switch {
		case p.ReturnTo != "":
			sb.WriteString("\nYou return to just before your prompt “" + firstLine(p.ReturnTo) + "”; it goes back in the input to edit and resend.")
		case p.Keeps != "":
			sb.WriteString("\n" + p.Keeps)
		}
	case Restore:
		fmt.Fprintf(&sb, "Restore generation %d (%s)? It becomes current as a new generation; the current generation %d is archived (nothing is deleted).", p.Gen, msgs(p.Messages), p.CurrentGen)
	case Undo:
		fmt.Fprintf(&sb, "Undo the last rewind (%s)?", p.Undoes.What)
		if p.Gen >= 0 {
			fmt.Fprintf(&sb, " Generation %d (%s) becomes current again; the current generation %d is archived.", p.Gen, msgs(p.Messages), p.CurrentGen)
		} else {
			sb.WriteString(" The conversation stays as it is.")
		}
	}
	sb.WriteString("\n\n")
	sb.WriteString(p.FilesSummary(limit))
	return sb.String()
}

// FilesSummary says what the files half would do, for a dialog.
func (p Plan) FilesSummary(limit int) string {
	switch {
	case p.FilesErr != nil:
		return "Only the conversation can move: " + p.FilesErr.Error() + "."
	case p.Files == nil:
		return "This session has no file checkpoints: only the conversation moves."
	case !p.FilesChange():
		return strings.Join(append([]string{"No file would change: the files stay as they are."}, NotKeptLines(*p.Files)...), "\n")
	}
	lines := FileLines(*p.Files, p.FilesTitle(false))
	if len(lines) > limit+1 {
		n := len(lines) - 1 - limit
		lines = append(lines[:limit+1], fmt.Sprintf("  … and %d more", n))
	}
	s := strings.Join(lines, "\n")
	if n := len(p.Files.Conflicts); n > 0 {
		s += fmt.Sprintf("\n%d %s changed by someone else since the agent touched %s: left alone unless you force (the current content is kept, so it can be undone).",
			n, words.Plural(n, "file was", "files were"), words.Plural(n, "it", "them"))
	}
	return s
}

// FileLines lists what a file rewind did or, for a dry run, would do: a
// title line then one line per file.
func FileLines(rep filecp.Report, title string) []string {
	if rep.Changed() == 0 && len(rep.Skipped) == 0 && len(rep.Conflicts) == 0 {
		if rep.DryRun {
			return append([]string{title + ": no file would change"}, NotKeptLines(rep)...)
		}
		return append([]string{title + ": no file needed to change"}, NotKeptLines(rep)...)
	}
	modified, created, deleted, overwritten, leftAlone := "modified", "created", "deleted", "overwritten", "left alone"
	var out []string
	if rep.DryRun {
		modified, created, deleted, overwritten, leftAlone = "modify", "create", "delete", "overwrite", "conflict"
		out = append(out, fmt.Sprintf("%s: %d to modify, %d to create, %d to delete", title, len(rep.Modified), len(rep.Created), len(rep.Deleted)))
	} else {
		out = append(out, fmt.Sprintf("%s: %d modified, %d created, %d deleted", title, len(rep.Modified), len(rep.Created), len(rep.Deleted)))
	}
	for _, p := range rep.Modified {
		out = append(out, fmt.Sprintf("  %-9s %s", modified, p))
	}
	for _, p := range rep.Created {
		out = append(out, fmt.Sprintf("  %-9s %s", created, p))
	}
	for _, p := range rep.Deleted {
		out = append(out, fmt.Sprintf("  %-9s %s", deleted, p))
	}
	for _, c := range rep.Conflicts {
		verb := leftAlone
		if c.Overwritten {
			verb = overwritten
		}
		out = append(out, fmt.Sprintf("  %s (%s)  %s", verb, c.Reason, c.Path))
	}
	for _, sk := range rep.Skipped {
		out = append(out, fmt.Sprintf("  skipped (%s)  %s", sk.Reason, sk.Path))
	}
	return append(out, NotKeptLines(rep)...)
}

// NotKeptLines name the files over file_size_cap that changed in the span
// a rewind covers and that it leaves as they are: "  not kept: big.bin,
// 6 MB, over file_size_cap".
func NotKeptLines(rep filecp.Report) []string {
	out := make([]string, 0, len(rep.NotKept))
	for _, n := range rep.NotKept {
		path := n.Path
		if n.Deleted {
			path += " (deleted)"
		}
		out = append(out, fmt.Sprintf("  not kept: %s, %s, over file_size_cap", path, words.Size(n.Size)))
	}
	return out
}

// Diffs is the unified diff of every file in rep, sorted by path.
func Diffs(rep filecp.Report) string {
	paths := make([]string, 0, len(rep.Diffs))
	for p := range rep.Diffs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var sb strings.Builder
	for _, p := range paths {
		d := rep.Diffs[p]
		if d == "" {
			continue
		}
		sb.WriteString(d)
		if !strings.HasSuffix(d, "\n") {
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// Lines says what Apply did, one line each: the conversation, the files,
// then how to undo it (undo names the way: "press u", "rewind undo ID").
func (r Result) Lines(undo string) []string {
	var out []string
	if r.Gen != nil {
		out = append(out, r.Plan.ConversationLine(r.Gen.Gen, true))
	}
	if r.Plan.Kind == Undo && r.Gen == nil && r.Plan.Gen < 0 {
		out = append(out, "undid "+r.Plan.Undoes.What+": the conversation stays as it is")
	}
	switch {
	case r.Files != nil:
		out = append(out, FileLines(*r.Files, r.Plan.FilesTitle(true))...)
	case r.Choice.Conversation && r.Plan.MovesConversation():
		out = append(out, "files unchanged")
	}
	if r.FilesErr != nil {
		out = append(out, "files not rewound: "+r.FilesErr.Error())
	}
	if r.RewindID > 0 && undo != "" {
		out = append(out, "undo with "+undo)
	}
	return out
}

// UndoCommand is the CLI command that undoes a session's last rewind.
func UndoCommand(sessionID string) string { return "`rewind undo " + sessionID + "`" }

// MadeByUndo is the set of generations an undo made, from the session's
// rewind log: the store keeps such a generation as a restore (what it did
// to the view); the timeline and `rewind generations` call it an undo.
func MadeByUndo(rewinds []store.Rewind) map[int]bool {
	out := map[int]bool{}
	for _, r := range rewinds {
		if r.Op == "undo" && r.AfterGen != r.BeforeGen {
			out[r.AfterGen] = true
		}
	}
	return out
}

// SubagentArchived is what opening or continuing a sub-agent session says
// when a revert of its parent archived it ("" otherwise): the CLI, the
// workspace and the Agent tool's resume say it alike.
func SubagentArchived(ctx context.Context, db *store.DB, s store.Session) string {
	archived, gen, err := db.SubagentArchived(ctx, s)
	if err != nil || !archived {
		return ""
	}
	return fmt.Sprintf("this %s sub-agent was archived with generation %d of its parent %s (a revert of the parent went back before its call); it continues from its own last state",
		s.SubagentType, gen, s.SubagentOf)
}
