package peers

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// TestImportEachFixture imports each session file the real tools wrote on
// its own and checks what the stored session holds (its current view):
// the work dir, turns, tool outputs, failed calls, reasoning, usage
// records and the generations (a compaction's compact generation, a
// branch's second import generation).
func TestImportEachFixture(t *testing.T) {
	t.Parallel()
	type want struct {
		workDir                                  string
		turns, outputs, failed, reasoning, usage int
		gens                                     string
	}
	wants := map[string]want{
		"codex-rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe": {"/tmp/peers/fx/work", 3, 4, 1, 6, 6, "import"},
		"codex-rollout-2026-11-27T00-19-28-01a21a5f-1532-7df0-a5c0-b67b68121277": {"/tmp/peers/fx/work", 1, 0, 0, 2, 3, "import compact"},
		"codex-rollout-2026-11-27T00-20-36-01a21a60-1d88-7bb1-a061-9314619e3972": {"/tmp/peers/fx/work", 1, 0, 0, 1, 2, "import compact"},
		"codex-rollout-2026-11-27T04-13-40-01a21b35-7dcd-75a1-925b-09a4c8b7df1b": {"/tmp/peers-old/fx/lwork", 1, 0, 0, 1, 1, "import"},
		"claude-22710432-a119-4309-8771-d87495069758":                            {"/tmp/peers/fx/cwork", 2, 6, 1, 7, 7, "import"},
		"claude-7a4e4303-5833-4241-9d71-44b3d4ca6b8d":                            {"/tmp/peers/fx/cwork", 1, 0, 0, 1, 1, "import compact"},
		"claude-2f15f261-12c0-4075-9706-736eab7cef2c":                            {"/tmp/peers/fx/cwork", 1, 1, 0, 2, 2, "import"},
		"claude-agent-a2d501a34712702a2":                                         {"/tmp/peers/fx/cwork", 1, 1, 0, 2, 2, "import"},
		"claude-f83ea86d-c9af-4e7d-b2b4-4162f39a89a6":                            {"/tmp/peers/fx/cwork", 1, 0, 0, 1, 1, "import compact"},
		"claude-d363673b-8b91-43e1-bf8a-f9f9fc444a63":                            {"/tmp/peers-old/fx/owork", 1, 1, 0, 0, 2, "import"},
		"claude-22db6885-bb01-4061-b2bb-47a323fac1a5":                            {"/tmp/peers-old/fx/owork", 1, 2, 0, 0, 2, "import"},
		"claude-59a03990-8e8b-4a8a-9515-de862e45de23":                            {"/tmp/peers-old/fx/bwork", 3, 2, 0, 5, 5, "import import"},
	}
	for _, fx := range fixtures {
		name := fx.origin + "-" + strings.TrimSuffix(filepath.Base(fx.path), ".jsonl")
		w, ok := wants[name]
		if !ok {
			t.Errorf("%s: no expectations", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t)
			res := importPath(t, db, filepath.Join("testdata", fx.path))
			if res.Imported < 1 || len(res.SessionIDs) < 1 {
				t.Fatalf("import %+v", res)
			}
			id := res.SessionIDs[0]
			s, err := db.GetSession(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			v, err := db.View(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			var got want
			got.workDir = s.WorkDir
			for _, r := range v.Records {
				switch r.Kind {
				case store.KindCheckpoint:
					got.turns++
				case store.KindUsage:
					got.usage++
				case store.KindMessage:
					m, err := r.Message()
					if err != nil {
						t.Fatal(err)
					}
					if m.Role == "tool" {
						got.outputs++
						if k, _ := message.MarkerOf(m); k == message.MarkerToolError {
							got.failed++
						}
					}
					if m.Content.Reasoning() != "" {
						got.reasoning++
					}
				}
			}
			gens, err := db.Generations(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			var causes []string
			for _, g := range gens {
				causes = append(causes, string(g.Cause))
			}
			got.gens = strings.Join(causes, " ")
			if got != w {
				t.Errorf("stored %s, want %s", fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", w))
			}
		})
	}
}
