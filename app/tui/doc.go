// Package tui is rewind's TUI controller: it builds the full-screen
// workspace out of the views package's primitives, converts store views and
// soul events into view models, runs the Soul on a worker goroutine and
// feeds its events back through a batching sink (one redraw per ≤ 33 ms),
// owns the slash-command and key-binding registries (which also feed the
// help overlay), the page stack of overlays (help, approval, dialogs), the
// session lease (one writer per session; watch or fork otherwise) and theme
// switching.
//
// Threads: functions named onWorker… run off the UI goroutine and never touch
// a widget; functions named onUI… (and tview handlers) run on the UI
// goroutine. The only way from a worker to the UI is Controller.onUIThread,
// which hands f to the one poster goroutine that calls
// Application.QueueUpdateDraw (and, at quit, Application.Stop); it refuses
// once the application is stopping.
//
// Feature controllers: a feature is a struct that owns its state, widgets,
// keys and slash commands (as in lazygit); the Controller keeps a pointer
// to each, set up in features.go, and calls a small API. approvals (c.ap):
// onUIAsk for a request, onUIRejectPending when a run ends, is interrupted
// or the workspace quits, swallows for the grace, and the remote answers of
// both sides of the live channel. timeTravel (c.tt), browser (c.br),
// watcher (c.watch), runsView (c.runs), toolPane (c.tp: onUICall,
// onUIOutput, onUIResult, onUIViewReplaced), clipboard (c.cb), the
// prompter (c.prompts: the prompt in flight) and help (c.help); the MCP
// servers, /compact and /clear, the session commands, /thinking and /plan
// need no pointer: they register their commands and keys when wired. The
// Controller itself keeps what they share: the widgets and the page
// stack, the registries, the open session and its lease, the run state
// and status model, the event pipeline. Every feature also gets the
// status messages (messageLine), the confirm dialog (confirmer) and the
// theme (themer) through its featureCommon.
// A feature never holds the Controller: it gets a deps struct of the views
// it uses and a small interface of the Controller methods it calls
// (host.go), as lazygit's controllers get a ControllerCommon. Why an
// action is disabled right now is written once (disabled.go) and shown by
// help and the slash menu.
//
// Files: options.go (Options, Run), controller.go (Controller, New, Run,
// shutdown), thread.go (onUIThread, onWorker), sink.go (batching sink and
// synthetic events), apply.go (soul events → widgets), convert.go (store
// views → view models), commands.go (slash-command registry), keys.go
// (global key bindings), typing.go (a pane's letter keys typed in a word
// go to the input; confirm dialogs' grace), pages.go (overlay stack), widgets.go
// (views.Workspace, overlays, the confirm dialog), session.go
// (open/create/lease/fork), poll.go (session list, previews, search and
// version polling), features.go (wires the feature files), approvals.go
// (the approvals feature controller: the modal and its queue, the grace,
// answers from this screen, from a watcher and to a watched writer, /yolo,
// /approvals), timetravel.go
// and timetravel_model.go (the time-travel feature controller: timeline
// previews, the Esc Esc picker, the revert / restore / undo dialogs over
// app/timetravel, the D-Mail undo offer, generation diff and fork), browser.go (session actions and the full-screen
// browser), follow.go (watching another process's session), watch.go (its
// live channel: the writer's events as they happen), live_writer.go
// (publishing the session this workspace writes), runs.go (the live runs
// view: Ctrl-L, /runs), notify.go (bell / OSC notifications), toolpane.go
// (the tool output pane: live output, kept outputs, follows view replacements), history.go (input history from the store, folded pastes),
// copy.go (OSC 52 copying, /copy, /mouse), welcome.go (the empty
// conversation), messages.go (status messages that last a given time),
// theme.go (the theme, /theme), help.go (the help overlay), prompt.go
// (sending a prompt), context_commands.go (/compact, /clear), attach.go
// (the database side of opening a session), view_reader.go (reading a
// session's view), db_busy.go (the "database busy" notice).
//
// The package does not import package app; app builds Options and calls Run.
package tui
