package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /status names the config file, and says when it does not exist yet, so a
// user does not go looking for a file that is not there.
func TestStatusSaysWhenTheConfigFileIsMissing(t *testing.T) {
	t.Parallel()
	for _, exists := range []bool{false, true} {
		var cfg string
		h := newHarness(t, hopts{w: 160, h: 48,
			before: func(h *harness) {
				cfg = filepath.Join(h.dir, "config.toml")
				if exists {
					if err := os.WriteFile(cfg, []byte("model = \"m\"\n"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			},
			mutate: func(o *Options) { o.ConfigFile = cfg },
		})
		h.submit("/status")
		h.waitFor("config     " + cfg)
		txt := flatText(h.text())
		if missing := strings.Contains(txt, cfg+" (not created yet)"); missing == exists {
			t.Errorf("config file exists=%v, /status says not created yet=%v:\n%s", exists, missing, txt)
		}
	}
}
