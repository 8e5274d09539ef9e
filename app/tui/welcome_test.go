package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The empty conversation says where rewind works, with which model and
// approval mode, and the five keys to start with.
func TestEmptyConversationShowsWhereAndHow(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprint(sz.w, "x", sz.h), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, hopts{w: sz.w, h: sz.h})
			txt := h.waitFor("work dir", "fake-model", "ask before edits", "slash commands", "every key and command")
			if !strings.Contains(txt, filepath.Base(h.work)) {
				t.Errorf("work dir %s not shown:\n%s", h.work, txt)
			}
			for _, k := range welcomeKeys {
				if !strings.Contains(txt, k.Key+"  ") {
					t.Errorf("key %q not shown:\n%s", k.Key, txt)
				}
			}
			h.submit("/yolo")
			h.waitFor("yolo: every tool call runs")
		})
	}
}
