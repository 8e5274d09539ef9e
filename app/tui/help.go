package tui

import (
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/views"
)

// This file is the help overlay (?, F1, /help): generated from the
// registries, so it lists exactly the keys and commands that exist, each
// disabled one with its reason dimmed.

// helpScreen owns the overlay (UI goroutine only).
type helpScreen struct {
	c       helpDeps
	overlay *views.HelpOverlay
	panes   []helpPane // in the order they are listed
}

// helpDeps is what help reads besides the common: the registries and the
// panes whose keys it lists.
type helpDeps struct {
	featureCommon
	keys     *[]globalBinding // Controller.keys: features append theirs while they are wired
	commands *commandRegistry
	disabled func([]rule) func() string // Controller.disabledBy
	input    *views.Input
	sessions *views.SessionList
	browser  views.Bound // the session browser's list, listed first over it
}

// helpPane is one pane's section of the overlay.
type helpPane struct {
	title string
	keys  views.Bound
}

// addPane lists a pane's keys, after the panes added before (wiring).
func (h *helpScreen) addPane(title string, keys views.Bound) {
	h.panes = append(h.panes, helpPane{title, keys})
}

// command is /help.
func (h *helpScreen) command() Command {
	return Command{Name: "/help", Description: "show keys and slash commands", Run: func(string) { h.onUIShow() }}
}

// binding is ? and F1, which give way to typing.
func (h *helpScreen) binding() globalBinding {
	return globalBinding{KeyBinding: views.KeyBinding{Keys: []views.Key{views.R('?'), views.K(tcell.KeyF1)}, Description: "help: keys and slash commands", Handler: h.onUIShow, Visible: true},
		When: func() bool { return !h.typing() }}
}

// onUIShow opens the overlay (UI). Over the session browser its keys come
// first.
func (h *helpScreen) onUIShow() {
	c := h.c
	var sections []views.HelpSection
	overBrowser := c.pages.top() == browserPage
	if overBrowser {
		sections = append(sections, views.HelpSection{Title: "Session browser (Ctrl-O)", Bindings: c.browser.Bindings()})
	}
	sections = append(sections, views.HelpSection{Title: "Workspace", Bindings: h.visibleGlobalBindings()})
	for _, p := range h.panes {
		if p.keys == c.sessions && overBrowser {
			continue // the browser's keys, listed first
		}
		sections = append(sections, views.HelpSection{Title: p.title, Bindings: p.keys.Bindings()})
	}
	h.overlay.SetContent(sections, c.commands.slashCommands(c.disabled))
	c.pages.push(Page{Name: "help", Primitive: h.overlay})
}

// visibleGlobalBindings are the global keys for help.
func (h *helpScreen) visibleGlobalBindings() []views.KeyBinding {
	keys := *h.c.keys
	out := make([]views.KeyBinding, 0, len(keys))
	for _, b := range keys {
		kb := b.KeyBinding
		kb.DisabledReason = h.c.disabled(b.DisabledWhen)
		out = append(out, kb)
	}
	return out
}

// typing reports whether keys go to a text field right now (UI).
func (h *helpScreen) typing() bool {
	c := h.c
	switch c.app.GetFocus() {
	case c.input:
		return strings.TrimSpace(c.input.Text()) != ""
	case c.sessions:
		return true
	}
	return false
}
