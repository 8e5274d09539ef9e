package tui

import (
	"slices"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Page is an overlay on the page stack (help, approval, dialogs, and the
// full-screen views feature files add). Start is called when it is pushed,
// Stop when it is popped.
type Page struct {
	Name      string
	Primitive tview.Primitive
	Start     func()
	Stop      func()
	// Opaque: the page covers the whole screen, so the pages under it
	// (the workspace too) are hidden rather than drawn and overdrawn on
	// every frame.
	Opaque bool
}

// pageStack keeps overlays above the workspace, k9s-style: the top page has
// the focus; popping it gives the focus back to what had it before.
type pageStack struct {
	app   *tview.Application
	root  *rootPages
	stack []stackEntry
}

// rootPages is the stack's tview.Pages. Pages fills the whole screen with
// its background before drawing the pages; that fill is skipped, as the
// page drawn first fills every cell itself: the workspace (views.Workspace
// paints its whole rectangle) or an opaque page hiding it (showVisible).
// The fill was a fifth of a browser frame's CPU, and a sixth of the
// workspace's frame.
type rootPages struct {
	*tview.Pages
}

func (r *rootPages) Draw(screen tcell.Screen) {
	x, y, w, h := r.GetInnerRect()
	names := r.GetPageNames(true) // front to back
	for i := len(names) - 1; i >= 0; i-- {
		p := r.GetPage(names[i])
		p.SetRect(x, y, w, h) // every page is added full size
		p.Draw(screen)
	}
}

type stackEntry struct {
	page      Page
	prevFocus tview.Primitive
}

const workspacePage = "workspace"

func newPageStack(app *tview.Application, workspace tview.Primitive) *pageStack {
	p := &pageStack{app: app}
	p.root = &rootPages{Pages: tview.NewPages()}
	p.root.AddPage(workspacePage, workspace, true, true)
	return p
}

// push shows pg above everything and focuses it; a page with the same name
// already on the stack is replaced (UI).
func (p *pageStack) push(pg Page) {
	p.remove(pg.Name)
	p.stack = append(p.stack, stackEntry{page: pg, prevFocus: p.app.GetFocus()})
	p.root.AddPage(pg.Name, pg.Primitive, true, true)
	p.showVisible()
	p.app.SetFocus(pg.Primitive)
	if pg.Start != nil {
		pg.Start()
	}
}

// pop removes the named page (if on the stack) and restores the focus (UI).
func (p *pageStack) pop(name string) {
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.stack[i].page.Name != name {
			continue
		}
		e := p.stack[i]
		top := i == len(p.stack)-1
		p.stack = append(p.stack[:i], p.stack[i+1:]...)
		p.root.RemovePage(name)
		p.showVisible()
		if e.page.Stop != nil {
			e.page.Stop()
		}
		if top && e.prevFocus != nil {
			p.app.SetFocus(e.prevFocus)
		}
		return
	}
}

// showVisible shows the pages from the topmost opaque one up and hides
// those under it.
func (p *pageStack) showVisible() {
	covered := false
	for i := len(p.stack) - 1; i >= 0; i-- {
		p.setVisible(p.stack[i].page.Name, !covered)
		covered = covered || p.stack[i].page.Opaque
	}
	p.setVisible(workspacePage, !covered)
}

// setVisible changes a page's visibility only when it differs: tview moves
// the focus on every show and hide.
func (p *pageStack) setVisible(name string, visible bool) {
	if slices.Contains(p.root.GetPageNames(true), name) == visible {
		return
	}
	if visible {
		p.root.ShowPage(name)
	} else {
		p.root.HidePage(name)
	}
}

func (p *pageStack) remove(name string) {
	for _, e := range p.stack {
		if e.page.Name == name {
			p.pop(name)
			return
		}
	}
}

// focusWorkspace focuses prim, a widget of the workspace, when no overlay
// is open; otherwise prim gets the focus when the overlays close. Work
// that ends after the person opened an overlay (a session switch, a
// watch) must not steal the overlay's keys.
func (p *pageStack) focusWorkspace(prim tview.Primitive) {
	if len(p.stack) == 0 {
		p.app.SetFocus(prim)
		return
	}
	p.stack[0].prevFocus = prim
}

// top is the name of the top overlay ("" when the workspace is on top).
func (p *pageStack) top() string {
	if len(p.stack) == 0 {
		return ""
	}
	return p.stack[len(p.stack)-1].page.Name
}

// has reports whether the named page is on the stack.
func (p *pageStack) has(name string) bool {
	for _, e := range p.stack {
		if e.page.Name == name {
			return true
		}
	}
	return false
}
