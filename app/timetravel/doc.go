// Package timetravel is the one implementation of rewind's time-travel
// operations, shared by the CLI (revert, restore, undo, --dry-run), the
// workspace (timeline, Esc Esc picker, /revert, /restore, /undo) and the
// soul's D-Mail file rewind. Each operation goes Plan → preview (the Plan:
// messages archived, files that would change, conflicts, skipped files) →
// Apply (with a Choice: conversation, + files, files only, force) → Undo.
//
// Every applied rewind is written to the session's rewind log
// (store.Rewind): the generation that was current before it and the file
// position whose state it replaced. PlanUndo reads the newest entry, so
// undoing brings back both the conversation and the files, and undoing an
// undo redoes. The words a person reads (Plan.Question, Result.Lines,
// FileLines, ConflictError) are made here, so every front end says the
// same thing.
//
// The package uses store and soul/filecp only: never views, tview or the
// soul itself. Conversation changes go through a Conversation (the soul in
// the workspace, so its state follows; StoreConversation in the CLI).
package timetravel
