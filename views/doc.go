// Package views owns rewind's tview primitives and the plain view models
// they render: Conversation, ToolOutput, Timeline, SessionList, Input,
// StatusBar, ApprovalModal, HelpOverlay, ConfirmDialog, PromptDialog,
// DiffView, RunList (the live runs view) and the Workspace layout, plus the helpers they share (text
// sanitising, styled spans and wrapping, markdown and chroma rendering,
// key-binding registries, the redraw Coalescer).
//
// Views import only tview, tcell (and its uniseg), chroma, goldmark, fuzzy and
// themes; they never see the store or the Soul. The app layer converts store/soul data
// into the view models defined here and calls the views on the UI thread
// (setters are not safe for concurrent use). Every primitive embeds
// *tview.Box, draws its own cells (so tview colour tags in model text are
// never interpreted), strips terminal escape sequences and control
// characters from every string it is given, and takes its colours from a
// themes.Theme passed through SetTheme.
package views
