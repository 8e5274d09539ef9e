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
	return out, nil
}
