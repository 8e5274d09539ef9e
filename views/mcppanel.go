package views

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// MCPServer is one MCP server as the /mcp panel shows it.
type MCPServer struct {
	Name      string
	Transport string // "stdio" or "http"
	State     string // "starting", "ready", "failed", "stopped"
	Failed    bool
	Err       string // why it failed
	Tools     []MCPTool
}

// MCPTool is one tool of an MCP server.
type MCPTool struct {
	Name        string // as the model sees it
	Description string
	ReadOnly    bool
	LeftOut     bool // over the tool caps: not offered to the model
}

// MCPPanel lists the MCP servers, their state and their tools, with the
// configuration problems above them. Keys: ↑/↓ (j/k) select a server, r
// restarts it, Esc (q) closes.
type MCPPanel struct {
	*tview.Box
	theme     themes.Theme
	servers   []MCPServer
	problems  []string
	selected  int
	onRestart func(name string)
	onClose   func()
}

// NewMCPPanel returns an empty panel.
func NewMCPPanel() *MCPPanel { return &MCPPanel{Box: tview.NewBox(), theme: themes.Default()} }

// SetTheme applies a theme.
func (p *MCPPanel) SetTheme(t themes.Theme) { p.theme = t }

// SetServers replaces the servers and the configuration problems; the
// selection stays on the server of the same name when there is one.
func (p *MCPPanel) SetServers(servers []MCPServer, problems []string) {
	sel := p.Selected()
	p.servers = make([]MCPServer, len(servers))
	for i, s := range servers {
		s.Name, s.Transport, s.State, s.Err = SanitizeLine(s.Name), SanitizeLine(s.Transport), SanitizeLine(s.State), SanitizeLine(s.Err)
		tools := make([]MCPTool, len(s.Tools))
		for j, t := range s.Tools {
			tools[j] = MCPTool{Name: SanitizeLine(t.Name), Description: SanitizeLine(t.Description), ReadOnly: t.ReadOnly, LeftOut: t.LeftOut}
		}
		s.Tools = tools
		p.servers[i] = s
	}
	p.problems = make([]string, len(problems))
	for i, pr := range problems {
		p.problems[i] = SanitizeLine(pr)
	}
	p.selected = 0
	for i, s := range p.servers {
		if s.Name == sel {
			p.selected = i
		}
	}
}

// Selected is the name of the selected server ("" when there is none).
func (p *MCPPanel) Selected() string {
	if p.selected < 0 || p.selected >= len(p.servers) {
		return ""
	}
	return p.servers[p.selected].Name
}

// SetOnRestart sets what r does with the selected server.
func (p *MCPPanel) SetOnRestart(f func(name string)) { p.onRestart = f }

// SetOnClose sets what Esc does.
func (p *MCPPanel) SetOnClose(f func()) { p.onClose = f }

// Bindings lists the panel's keys.
func (p *MCPPanel) Bindings() []KeyBinding {
	return []KeyBinding{
		bind("next server", nil, K(tcell.KeyDown), R('j')),
		bind("previous server", nil, K(tcell.KeyUp), R('k')),
		bind("restart the selected server", nil, R('r')),
		bind("close", nil, K(tcell.KeyEsc), R('q')),
	}
}

// mcpLine is one line of the panel: its text, style and the server it
// belongs to (-1: a problem line).
type mcpLine struct {
	text   string
	style  tcell.Style
	server int
}

func (p *MCPPanel) lines(base tcell.Style, width int) []mcpLine {
	th := p.theme
	var out []mcpLine
	// wrap adds text word-wrapped to width, continuation rows indented.
	wrap := func(text, first, rest string, st tcell.Style, server int) {
		for _, l := range wrapSpans([]Span{{text, st}}, width, Line{{first, st}}, Line{{rest, st}}) {
			out = append(out, mcpLine{l.String(), st, server})
		}
	}
	for _, pr := range p.problems {
		wrap(pr, "⚠ ", "  ", base.Foreground(th.Warning), -1)
	}
	if len(p.problems) > 0 {
		out = append(out, mcpLine{"", base, -1})
	}
	if len(p.servers) == 0 {
		wrap("No MCP servers configured: add them to $REWIND_HOME/mcp.json or .rewind/mcp.json (see the README).", "", "", base.Foreground(th.Dim), -1)
	}
	for i, s := range p.servers {
		header := fmt.Sprintf("%s (%s) %s", s.Name, s.Transport, s.State)
		st := base.Bold(true)
		switch {
		case s.Failed:
			st = st.Foreground(th.Error)
		case s.State == "ready":
			header += fmt.Sprintf(" · %d tools", len(s.Tools))
			st = st.Foreground(th.ToolOK)
		default:
			st = st.Foreground(th.ToolRunning)
		}
		out = append(out, mcpLine{header, st, i})
		if s.Failed && s.Err != "" {
			wrap(s.Err, "    ", "    ", base.Foreground(th.Error), i)
		}
		for _, t := range s.Tools {
			text := "    " + t.Name
			if t.ReadOnly {
				text += " [read-only]"
			}
			if t.LeftOut {
				text += " [not offered: over the tool cap]"
			}
			if t.Description != "" {
				text += " — " + t.Description
			}
			out = append(out, mcpLine{text, base, i})
		}
	}
	return out
}

// Draw draws the panel as a large modal; the selected server's header is
// kept in view.
func (p *MCPPanel) Draw(screen tcell.Screen) {
	th := p.theme
	_, _, W, H := p.GetRect()
	base := tcell.StyleDefault.Background(th.ModalBg).Foreground(th.Text)
	w := min(max(60, W*9/10), 140)
	lines := p.lines(base, w-6) // the frame, and the two columns of the selection marker
	bx, by, bw, bh := modalRect(p.Box, w, min(len(lines)+2, H-2))
	x, y, iw, ih := drawModalFrame(screen, th, bx, by, bw, bh, "MCP servers · ↑/↓ select · r restart · Esc close", th.FocusedBorder)
	top := 0
	for i, l := range lines {
		if l.server == p.selected && (i == 0 || lines[i-1].server != p.selected) {
			top = max(0, i-ih+1+min(len(p.servers[p.selected].Tools), ih/2))
			top = min(top, i)
			break
		}
	}
	for row := 0; row < ih && top+row < len(lines); row++ {
		l := lines[top+row]
		st := l.style
		text := "  " + l.text
		header := l.server >= 0 && (top+row == 0 || lines[top+row-1].server != l.server)
		if header && l.server == p.selected {
			st = st.Background(th.SelectionBg)
			fill(screen, x, y+row, iw, st)
			text = "▶ " + l.text
		}
		drawText(screen, x, y+row, iw, truncate(text, iw), st)
	}
}

// InputHandler selects, restarts and closes.
func (p *MCPPanel) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		n := len(p.servers)
		switch {
		case ev.Key() == tcell.KeyDown || (ev.Key() == tcell.KeyRune && ev.Rune() == 'j'):
			if n > 0 {
				p.selected = (p.selected + 1) % n
			}
		case ev.Key() == tcell.KeyUp || (ev.Key() == tcell.KeyRune && ev.Rune() == 'k'):
			if n > 0 {
				p.selected = (p.selected - 1 + n) % n
			}
		case ev.Key() == tcell.KeyRune && ev.Rune() == 'r':
			if name := p.Selected(); name != "" && p.onRestart != nil {
				p.onRestart(name)
			}
		case ev.Key() == tcell.KeyEsc || (ev.Key() == tcell.KeyRune && ev.Rune() == 'q'):
			if p.onClose != nil {
				p.onClose()
			}
		}
	})
}
