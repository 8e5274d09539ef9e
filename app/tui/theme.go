package tui

import (
	"path/filepath"
	"strings"

	"github.com/rewind-agent/rewind/themes"
	"github.com/rewind-agent/rewind/views"
)

// This file is the colour theme and /theme: the theme the widgets are
// drawn in, broadcast to every widget that registered for it.

// themer owns the theme (UI goroutine only). Every feature reads it
// through featureCommon (currentTheme); a feature with widgets of its own
// registers them (addThemed) when it is wired.
type themer struct {
	current themes.Theme
	dir     string // the user's themes ("" without a rewind home)
	widgets []views.Themed
	pages   *pageStack // its root takes the background
	msg     *messageLine
}

// themeReader is what a feature reads of the theme.
type themeReader interface {
	currentTheme() themes.Theme
}

func newThemer(home string, pages *pageStack, msg *messageLine) *themer {
	t := &themer{pages: pages, msg: msg}
	if home != "" {
		t.dir = filepath.Join(home, "themes")
	}
	return t
}

// currentTheme is the theme the widgets are drawn in (UI).
func (t *themer) currentTheme() themes.Theme { return t.current }

// addThemed registers widgets a theme change is broadcast to (wiring).
func (t *themer) addThemed(ws ...views.Themed) { t.widgets = append(t.widgets, ws...) }

// load applies the theme named, or the default one when it does not load
// (the error says why) (UI).
func (t *themer) load(name string) (themes.Theme, error) {
	th, err := themes.Load(name, t.dir)
	t.apply(th)
	return th, err
}

// apply broadcasts th to every widget (UI).
func (t *themer) apply(th themes.Theme) {
	t.current = th
	for _, w := range t.widgets {
		w.SetTheme(th)
	}
	t.pages.root.SetBackgroundColor(th.Background)
}

// command is /theme.
func (t *themer) command() Command {
	return Command{Name: "/theme", Args: "NAME", Description: "switch the colour theme (dark, light, high-contrast or a user theme)", Run: t.cmdTheme}
}

func (t *themer) cmdTheme(arg string) {
	if arg == "" {
		t.msg.setMessage("themes: "+strings.Join(themes.Names(t.dir), ", ")+" — /theme NAME", false)
		return
	}
	th, err := t.load(arg)
	if err != nil {
		t.msg.setMessage(err.Error(), true)
		return
	}
	t.msg.setMessage("theme "+th.Name, false)
}
