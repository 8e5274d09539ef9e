package live

import (
	"context"
	"os"
	"path/filepath"
	"sort"
)

// List returns the Hello of every session published on this machine under
// home, newest run first (idle ones last). Sockets left by dead writers are
// removed on the way.
func List(ctx context.Context, home string) ([]Hello, error) {
	paths, err := filepath.Glob(filepath.Join(Dir(home), "*.sock"))
	if err != nil {
		return nil, err
	}
	var out []Hello
	for _, p := range paths {
		// A writer answers for the session its socket is named after; one
		// that does not is reached through a planted symlink and is
		// listed under its own name (once), not this one.
		c, err := dialPath(ctx, p, sessionOf(p), true)
		if isRefused(err) {
			os.Remove(p) // nobody accepts: its writer died
			continue
		}
		if err != nil {
			continue
		}
		out = append(out, c.Hello)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Run.Started, out[j].Run.Started
		if a.IsZero() != b.IsZero() {
			return !a.IsZero()
		}
		return a.After(b)
	})
	return nest(out), nil
}

// nest puts each sub-agent run right after its parent's run (in their
// order), so the lists show it under the parent; one whose parent is not
// listed keeps its place.
func nest(hs []Hello) []Hello {
	listed := map[string]bool{}
	for _, h := range hs {
		listed[h.SessionID] = true
	}
	kids := map[string][]Hello{}
	for _, h := range hs {
		if h.SubagentOf != "" && listed[h.SubagentOf] {
			kids[h.SubagentOf] = append(kids[h.SubagentOf], h)
		}
	}
	out := make([]Hello, 0, len(hs))
	for _, h := range hs {
		if h.SubagentOf != "" && listed[h.SubagentOf] {
			continue
		}
		out = append(out, h)
		out = append(out, kids[h.SessionID]...)
	}
	return out
}

// RunTitle is how the run lists title a run: its title, and a sub-agent's
// "↳ coder · title" under its parent.
func (h Hello) RunTitle(title string) string {
	if h.SubagentOf == "" {
		return title
	}
	return "↳ " + h.SubagentType + " · " + title
}
