package peers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/store"
)

// Source is one session file to import.
type Source struct {
	Origin string // store.OriginCodex or store.OriginClaude
	Path   string
	// Key names the session across imports (the import record's key):
	// "codex:" or "claude:" and the session id from the file name.
	Key     string
	ModTime time.Time
	Size    int64
	// Parent, for a Claude Code sub-agent's file, is the key of the
	// session whose tool call started it; ToolUseID, AgentType and
	// Description come from its .meta.json.
	Parent                            string
	ToolUseID, AgentType, Description string
}

// Discovery is what a path holds.
type Discovery struct {
	Origin  string // of every source
	Home    string // the agent's home, when the path is one
	Sources []Source
}

// Detect says whether path is a codex or Claude Code source: a home
// (~/.codex, ~/.claude), its sessions/ or projects/ (or a project's
// directory), or one session file. ok is false for anything else (a
// kimi-cli share dir, say).
func Detect(path string) (Discovery, bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Discovery{}, false, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return Discovery{}, false, err
	}
	if !fi.IsDir() {
		origin := sniff(abs)
		if origin == "" {
			return Discovery{}, false, nil
		}
		src := newSource(origin, abs, fi)
		if origin == store.OriginClaude {
			subagentMeta(&src)
		}
		return Discovery{Origin: origin, Sources: []Source{src}}, true, nil
	}
	switch {
	case isCodexSessions(filepath.Join(abs, "sessions")) || filepath.Base(abs) == ".codex" && isDir(filepath.Join(abs, "sessions")):
		d, err := walk(store.OriginCodex, filepath.Join(abs, "sessions"))
		d.Home = abs
		return d, true, err
	case filepath.Base(abs) == "sessions" && isCodexSessions(abs):
		d, err := walk(store.OriginCodex, abs)
		return d, true, err
	case isDir(filepath.Join(abs, "projects")) && isClaudeProjects(filepath.Join(abs, "projects")):
		d, err := walk(store.OriginClaude, filepath.Join(abs, "projects"))
		d.Home = abs
		return d, true, err
	case filepath.Base(abs) == "projects" && isClaudeProjects(abs), isClaudeProject(abs):
		d, err := walk(store.OriginClaude, abs)
		return d, true, err
	}
	return Discovery{}, false, nil
}

// Homes are the agents' homes on this machine: $CODEX_HOME or ~/.codex,
// $CLAUDE_CONFIG_DIR or ~/.claude, those that exist.
func Homes(getenv func(string) string, home string) []string {
	var out []string
	for _, h := range []struct{ env, dir string }{{"CODEX_HOME", ".codex"}, {"CLAUDE_CONFIG_DIR", ".claude"}} {
		p := getenv(h.env)
		if p == "" && home != "" {
			p = filepath.Join(home, h.dir)
		}
		if p != "" && isDir(p) {
			out = append(out, p)
		}
	}
	return out
}

func newSource(origin, path string, fi fs.FileInfo) Source {
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if origin == store.OriginCodex {
		// rollout-2026-11-27T00-19-25-<uuid>.jsonl: the uuid is the id.
		if i := len(id) - 36; strings.HasPrefix(id, "rollout-") && i > 0 {
			id = id[i:]
		}
	}
	return Source{Origin: origin, Path: path, Key: origin + ":" + id, ModTime: fi.ModTime(), Size: fi.Size()}
}

// subagentMeta fills a Claude Code sub-agent file's link to its parent:
// <session>/subagents/agent-<id>.jsonl and its .meta.json.
func subagentMeta(src *Source) {
	dir := filepath.Dir(src.Path)
	if filepath.Base(dir) != "subagents" {
		return
	}
	parent := filepath.Base(filepath.Dir(dir))
	src.Parent = store.OriginClaude + ":" + parent
	src.Key = store.OriginClaude + ":" + parent + "/" + strings.TrimSuffix(filepath.Base(src.Path), ".jsonl")
	data, err := regfile.ReadFile(strings.TrimSuffix(src.Path, ".jsonl") + ".meta.json")
	if err != nil {
		return
	}
	var m struct {
		AgentType   string `json:"agentType"`
		Description string `json:"description"`
		ToolUseID   string `json:"toolUseId"`
	}
	if json.Unmarshal(data, &m) == nil {
		src.AgentType, src.Description, src.ToolUseID = m.AgentType, m.Description, m.ToolUseID
	}
}

// walk lists the session files under dir, newest first; a Claude Code
// sub-agent's file comes after its parent's.
func walk(origin, dir string) (Discovery, error) {
	d := Discovery{Origin: origin}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable corner: the rest is imported
		}
		if e.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		if origin == store.OriginCodex && !strings.HasPrefix(e.Name(), "rollout-") {
			return nil
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		src := newSource(origin, p, fi)
		if origin == store.OriginClaude {
			subagentMeta(&src)
		}
		d.Sources = append(d.Sources, src)
		return nil
	})
	sort.SliceStable(d.Sources, func(i, j int) bool {
		a, b := d.Sources[i], d.Sources[j]
		if (a.Parent == "") != (b.Parent == "") {
			return a.Parent == ""
		}
		return a.ModTime.After(b.ModTime)
	})
	return d, err
}

// sniff reads a file's first lines: a codex rollout starts with a
// {timestamp, type, payload} line, a Claude Code file's records have a
// sessionId (or are its bookkeeping: a summary, a queue operation).
func sniff(path string) string {
	f, err := regfile.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for i := 0; i < 20 && sc.Scan(); i++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var probe struct {
			Type      string          `json:"type"`
			Payload   json.RawMessage `json:"payload"`
			Timestamp string          `json:"timestamp"`
			SessionID string          `json:"sessionId"`
			UUID      string          `json:"uuid"`
		}
		if json.Unmarshal(line, &probe) != nil {
			return ""
		}
		switch {
		case probe.Payload != nil && probe.Type != "" && probe.Timestamp != "":
			return store.OriginCodex
		case probe.SessionID != "" || probe.UUID != "":
			return store.OriginClaude
		case probe.Type == "summary" || probe.Type == "queue-operation" || probe.Type == "file-history-snapshot":
			continue
		default:
			return ""
		}
	}
	return ""
}

func isCodexSessions(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9][0-9][0-9]", "[0-9][0-9]", "[0-9][0-9]", "rollout-*.jsonl"))
	return len(m) > 0
}

func isClaudeProjects(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	return len(m) > 0 || isEmptyDir(dir)
}

// isClaudeProject: a projects/<escaped cwd> directory.
func isClaudeProject(dir string) bool {
	if filepath.Base(filepath.Dir(dir)) != "projects" {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	return len(m) > 0
}

func isEmptyDir(dir string) bool {
	es, err := os.ReadDir(dir)
	return err == nil && len(es) == 0
}

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }
