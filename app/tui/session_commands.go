package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/instructions"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/mcp"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// The session commands: /status, /approvals, /new, /fork, /rename,
// /export, /model and /init. They own no widget: each reads or changes the
// open session and reports in the conversation (an info banner) or the
// status bar. Database, file and network work runs on a worker.

// sessionCommands are the commands above; they hold no state of their own.
type sessionCommands struct {
	c sessionCommandsDeps
}

// sessionCommandsDeps is what the session commands reach besides the
// common: the workspace's options (/model changes the model part of them, as
// /thinking does), the conversation they report in, the session lists,
// the approval mode and plan mode /status shows, and the Controller's
// session switches through the host.
type sessionCommandsDeps struct {
	featureCommon
	sessionCommandsHost
	opts    *Options
	conv    *views.Conversation
	lists   sessionLists
	plan    *atomic.Bool              // plan mode (plan.go)
	yoloIn  func(workDir string) bool // YOLO set for a work dir before its session exists (approvals.go)
	prompts *prompter                 // /init's prompt
}

type sessionCommandsHost interface {
	workDir() string
	agentLabel() string
	onUINewSession()
	onUIFork(id string)
}

func (c *Controller) initSessionCommands() {
	sc := &sessionCommands{c: sessionCommandsDeps{featureCommon: c.common(), sessionCommandsHost: c, opts: &c.opts, conv: c.conv,
		lists: c.br, plan: &c.plan, yoloIn: c.ap.yolo.in, prompts: c.prompts}}
	for _, cmd := range []Command{
		{Name: "/status", Description: "model, work dir, context use, approvals, AGENTS.md files, MCP servers and the last notices in full", Run: sc.cmdStatus},
		{Name: "/new", Description: "start a new session in the work dir (this one stays in the list)", DisabledWhen: []rule{ruleRunActive}, Run: sc.cmdNew},
		{Name: "/fork", Description: "copy this session into a new one and continue there (the original is unchanged)", DisabledWhen: []rule{ruleRunActive}, Run: sc.cmdFork},
		{Name: "/rename", Args: "TITLE", Description: "give this session a new title (shown in the session list)", DisabledWhen: []rule{ruleReadOnly}, Run: sc.cmdRename},
		{Name: "/export", Args: "[FILE]", Description: "write this session as kimi-cli context.jsonl (default rewind-ID.jsonl in the work dir)", Run: sc.cmdExport},
		{Name: "/model", Args: "[NAME]", Description: "switch the model (from the config's provider profiles), or list them", DisabledWhen: []rule{ruleRunActive, ruleReadOnly}, Run: sc.cmdModel},
		{Name: "/init", Description: "ask the model to write an AGENTS.md for this project", DisabledWhen: []rule{ruleRunActive, ruleReadOnly}, Run: sc.cmdInit},
	} {
		c.commands.add(cmd)
	}
}

// cmdStatus gathers on a worker (AGENTS.md files are read when no session
// is open yet) and shows the result.
func (sc *sessionCommands) cmdStatus(string) {
	c := sc.c
	o := c.cur()
	st := *c.statusModel()
	yolo := c.yoloIn(c.workDir())
	var approved []string
	if o != nil && o.soul != nil {
		yolo = o.soul.Yolo()
		approved = o.soul.ApprovedForSession()
	}
	workDir := c.workDir()
	notices := c.noticeLog()
	c.onWorker(func() {
		var files []instructions.File
		var loadErr error
		if o != nil && o.soul != nil {
			files = o.instructions
		} else {
			files, loadErr = instructions.Load(c.opts.Home, workDir)
		}
		configFile := c.opts.ConfigFile
		if _, err := os.Stat(configFile); configFile != "" && errors.Is(err, fs.ErrNotExist) {
			configFile += " (not created yet)"
		}
		var servers []mcp.Status
		if c.opts.MCP != nil {
			servers = c.opts.MCP.Status()
		}
		title, parent := "", ""
		if o != nil {
			// Read afresh: the first prompt titles a new session after it
			// was opened; the lists show this title.
			ctx := context.WithoutCancel(c.ctx)
			if sess, err := c.db.GetSession(ctx, o.sess.ID); err == nil {
				title = sess.ListTitle()
			} else {
				title = o.sess.ListTitle()
			}
			if of := o.sess.SubagentOf; of != "" { // a sub-agent's run: whose Agent call started it
				parent = of
				if p, err := c.db.GetSession(ctx, of); err == nil {
					parent += " · " + oneLine(p.ListTitle(), 80)
				}
			}
		}
		text := statusText(statusInfo{
			title: title, parent: parent,
			model: st.Model, agent: c.agentLabel(), plan: c.plan.Load(), workDir: workDir, session: o, tokens: st.Tokens, maxContext: st.MaxContext,
			yolo: yolo, readOnly: c.holds(ruleReadOnly), thinking: c.opts.Soul.Thinking, webSearch: c.opts.WebSearch, approved: approved, files: files, loadErr: loadErr, mcp: servers,
			configFile: configFile, notices: notices,
		})
		c.onUIThreadAsync(func() {
			c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: text, Hang: statusLabelWidth + 1})
			c.conv.ScrollToEnd()
		})
	})
}

// statusLabelWidth is the width of /status's label column.
const statusLabelWidth = 10

type statusInfo struct {
	model, workDir, title string
	parent                string // a sub-agent's session: its parent's id · title
	agent                 string
	plan                  bool
	session               *openSession
	tokens, maxContext    int
	yolo, readOnly        bool
	thinking              llm.Effort
	webSearch             string
	approved              []string
	files                 []instructions.File
	loadErr               error
	mcp                   []mcp.Status
	configFile            string
	notices               []notice
}

func statusText(s statusInfo) string {
	var b strings.Builder
	row := func(label, value string) { fmt.Fprintf(&b, "%-*s %s\n", statusLabelWidth, label, value) }
	b.WriteString("Status\n")
	row("model", orDash(s.model))
	if s.agent != "" {
		row("agent", s.agent)
	}
	if s.plan {
		row("plan", "plan mode: only read-only tools run until you approve the model's plan (/plan or Shift-Tab to leave)")
	}
	row("thinking", thinkingText(s.thinking))
	if s.webSearch != "" {
		row("search", s.webSearch)
	}
	row("work dir", s.workDir)
	if s.session != nil {
		row("session", s.session.sess.ID+" · "+oneLine(s.title, 80))
	} else {
		row("session", "new (it starts with your first prompt)")
	}
	if s.parent != "" {
		row("parent", s.parent)
	}
	pct := 0.0
	if s.maxContext > 0 {
		pct = float64(s.tokens) * 100 / float64(s.maxContext)
	}
	row("context", fmt.Sprintf("%s of %s tokens (%.0f%%)", words.Thousands(s.tokens), words.Thousands(s.maxContext), pct))
	switch {
	case s.readOnly:
		row("approvals", "read-only: this workspace runs nothing")
	case s.yolo:
		row("approvals", "YOLO: every tool call runs without asking (/yolo to turn off)")
	default:
		row("approvals", "ask before edits and commands")
	}
	for i, a := range s.approved {
		row("", fmt.Sprintf("%d. approved for this session: %s", i+1, a))
	}
	if len(s.approved) > 0 {
		row("", "(/approvals revoke N, or all)")
	}
	switch {
	case s.loadErr != nil:
		row("AGENTS.md", "cannot read: "+oneLine(s.loadErr.Error(), 100))
	case len(s.files) == 0:
		row("AGENTS.md", "none found (/init asks the model to write one)")
	default:
		for i, f := range s.files {
			label := ""
			if i == 0 {
				label = "AGENTS.md"
			}
			note := ""
			if f.Global {
				note = " (global)"
			}
			if f.Truncated {
				note += " (first 32 KB)"
			}
			row(label, f.Path+note)
		}
	}
	if len(s.mcp) == 0 {
		row("MCP", "no servers configured")
	}
	for i, m := range s.mcp {
		label := ""
		if i == 0 {
			label = "MCP"
		}
		line := fmt.Sprintf("%s: %s, %d tools", m.Name, m.State, len(m.Tools))
		if m.Err != "" {
			line += " — " + oneLine(m.Err, 80)
		}
		row(label, line)
	}
	if s.configFile != "" {
		row("config", s.configFile)
	}
	// The status bar cuts a long notice and clears it; here it is whole.
	for i, n := range s.notices {
		label := ""
		if i == 0 {
			label = "notices"
		}
		mark := ""
		if n.isErr {
			mark = "! "
		}
		row(label, n.at.Format("15:04:05")+" "+mark+n.text)
	}
	return strings.TrimRight(b.String(), "\n")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// cmdNew leaves the open session (it stays in the list) for a new one,
// created with the first prompt.
func (sc *sessionCommands) cmdNew(string) { sc.c.onUINewSession() }

func (sc *sessionCommands) cmdFork(string) {
	c := sc.c
	o := c.cur()
	if o == nil {
		c.setMessage("nothing to fork yet: the session is empty", false)
		return
	}
	c.onUIFork(o.sess.ID)
}

func (sc *sessionCommands) cmdRename(arg string) {
	c := sc.c
	o := c.cur()
	title := strings.TrimSpace(arg)
	switch {
	case title == "":
		c.setMessage("usage: /rename TITLE", true)
		return
	case o == nil:
		c.setMessage("nothing to rename yet: the session starts with your first prompt", false)
		return
	}
	id := o.sess.ID
	c.onWorker(func() {
		// Not cut short, but its wait for a lock held elsewhere ends at the
		// quit, which waits for every worker.
		err := c.db.RenameSession(store.LockWait(c.ctx), id, title)
		c.onUIThreadAsync(func() {
			if err != nil {
				c.setMessage("rename: "+err.Error(), true)
				return
			}
			if cur := c.cur(); cur != nil && cur.sess.ID == id {
				cur.sess.Title = title
				c.statusModel().SessionTitle = title
				c.refreshStatus()
			}
			c.lists.onUIRefresh()
			c.setMessage("renamed to "+oneLine(title, 60), false)
		})
	})
}

func (sc *sessionCommands) cmdExport(arg string) {
	c := sc.c
	o := c.cur()
	switch {
	case o == nil:
		c.setMessage("nothing to export yet: the session is empty", false)
		return
	case c.opts.Export == nil:
		c.setMessage("export is not available here: use rewind export ID -o FILE", true)
		return
	}
	path := strings.TrimSpace(arg)
	if path == "" {
		path = "rewind-" + shortID(o.sess.ID) + ".jsonl"
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(workDirOf(o.sess, c.opts.WorkDir), path)
	}
	id := o.sess.ID
	c.onWorker(func() {
		n, err := c.opts.Export(context.WithoutCancel(c.ctx), id, path)
		c.onUIThreadAsync(func() {
			if err != nil {
				c.setMessage("export: "+flat(err.Error()), true)
				return
			}
			c.setMessage(fmt.Sprintf("exported %d %s to %s", n, words.Plural(n, "line", "lines"), path), false)
		})
	})
}

// onUIModelPicker lists the config's models in a dialog, the current one
// selected; Enter (or a model's digit) switches to the one chosen.
func (sc *sessionCommands) onUIModelPicker(names []string) {
	c := sc.c
	choices := make([]views.Choice, len(names))
	selected := 0
	for i, n := range names {
		choices[i] = views.Choice{Label: n}
		if i < 9 {
			choices[i].Key = rune('1' + i)
		}
		if n == c.statusModel().Model {
			choices[i].Label += " (current)"
			selected = i
		}
	}
	msg := "The model of this session's next answers (the context is kept). ↑/↓ and Enter switch, Esc keeps " + orDash(c.statusModel().Model) + "."
	c.showConfirm("Switch model", msg, choices, selected, func(i int) {
		if i >= 0 && names[i] != c.statusModel().Model {
			sc.cmdModel(names[i])
		}
	})
}

// cmdModel lists the models, or switches to one: the client is built on a
// worker, then the open session (and the next new one) uses it.
func (sc *sessionCommands) cmdModel(arg string) {
	c := sc.c
	name := strings.TrimSpace(arg)
	if name == "" {
		var names []string
		if c.opts.Models != nil {
			names = c.opts.Models()
		}
		if len(names) == 0 || c.opts.SwitchModel == nil {
			c.setMessage("model "+orDash(c.statusModel().Model)+" · add [providers.NAME] tables to the config to switch between models", false)
			return
		}
		sc.onUIModelPicker(names)
		return
	}
	if c.opts.SwitchModel == nil {
		c.setMessage("switching models is not available here", true)
		return
	}
	c.onWorker(func() {
		client, label, err := c.opts.SwitchModel(name)
		c.onUIThreadAsync(func() {
			if err != nil {
				c.setMessage("/model: "+flat(err.Error()), true)
				return
			}
			c.opts.Client, c.opts.Model = client, label
			if c.opts.ImageIn != nil {
				c.opts.Soul.NoImages = !c.opts.ImageIn(label) // the sessions opened next
			}
			if o := c.cur(); o != nil && o.soul != nil {
				o.soul.SetClient(client)
				o.soul.SetImageIn(!c.opts.Soul.NoImages)
			}
			c.statusModel().Model = label
			c.refreshStatus()
			c.setMessage("model "+label+": the next answer comes from it (the context is kept)", false)
		})
	})
}

func (sc *sessionCommands) cmdInit(string) {
	c := sc.c
	c.prompts.runPrompt(soul.InitPrompt())
}
