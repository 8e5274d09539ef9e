package peers

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtures are the files the real tools wrote (testdata/README.md).
var fixtures = []struct{ origin, path string }{
	{store.OriginCodex, "codex-home/sessions/2026/11/27/rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe.jsonl"},
	{store.OriginCodex, "codex-home/sessions/2026/11/27/rollout-2026-11-27T00-19-28-01a21a5f-1532-7df0-a5c0-b67b68121277.jsonl"},
	{store.OriginCodex, "codex-home/sessions/2026/11/27/rollout-2026-11-27T00-20-36-01a21a60-1d88-7bb1-a061-9314619e3972.jsonl"},
	{store.OriginClaude, "claude-home/projects/-tmp-peers-fx-cwork/22710432-a119-4309-8771-d87495069758.jsonl"},
	{store.OriginClaude, "claude-home/projects/-tmp-peers-fx-cwork/7a4e4303-5833-4241-9d71-44b3d4ca6b8d.jsonl"},
	{store.OriginClaude, "claude-home/projects/-tmp-peers-fx-cwork/2f15f261-12c0-4075-9706-736eab7cef2c.jsonl"},
	{store.OriginClaude, "claude-home/projects/-tmp-peers-fx-cwork/2f15f261-12c0-4075-9706-736eab7cef2c/subagents/agent-a2d501a34712702a2.jsonl"},
	{store.OriginClaude, "claude-home/projects/-tmp-peers-fx-cwork/f83ea86d-c9af-4e7d-b2b4-4162f39a89a6.jsonl"},
	{store.OriginClaude, "claude-1.0-home/projects/-tmp-peers-old-fx-owork/d363673b-8b91-43e1-bf8a-f9f9fc444a63.jsonl"},
	{store.OriginClaude, "claude-1.0-home/projects/-tmp-peers-old-fx-owork/22db6885-bb01-4061-b2bb-47a323fac1a5.jsonl"},
	{store.OriginClaude, "claude-branch-home/projects/-tmp-peers-old-fx-bwork/59a03990-8e8b-4a8a-9515-de862e45de23.jsonl"},
	{store.OriginCodex, "codex-local-shell-home/sessions/2026/11/27/rollout-2026-11-27T04-13-40-01a21b35-7dcd-75a1-925b-09a4c8b7df1b.jsonl"},
}

func parseFixture(t testing.TB, origin, rel string) *Session {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Parse(f, origin, rel, func(w string) { t.Errorf("warning: %s", w) })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// render is the parsed model as text: the session's fields, then one line
// a record.
func render(s *Session) string {
	var b strings.Builder
	fmt.Fprintf(&b, "origin %s\nid %s\nwork dir %s\nmodel %s\ntitle %q\ncreated %s\nupdated %s\nconsumed %d torn %v invalid %d\n",
		s.Origin, s.ID, s.WorkDir, s.Model, s.Title, s.Created.UTC().Format("2006-01-02T15:04:05.000Z"), s.Updated.UTC().Format("2006-01-02T15:04:05.000Z"), s.Consumed, s.Torn, s.Invalid)
	var unknown []string
	for k, n := range s.Unknown {
		unknown = append(unknown, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(unknown)
	fmt.Fprintf(&b, "unknown %s\n", strings.Join(unknown, " "))
	for gi, g := range s.Gens {
		src := "-"
		if g.SourceGen != nil {
			src = fmt.Sprint(*g.SourceGen)
		}
		fmt.Fprintf(&b, "gen %d cause %s source %s\n", gi, g.Cause, src)
		for _, r := range g.Records {
			switch r.Kind {
			case store.KindCheckpoint:
				fmt.Fprintf(&b, "  checkpoint %d\n", r.CheckpointID)
			case store.KindUsage:
				fmt.Fprintf(&b, "  usage %d\n", r.TokenCount)
			default:
				body := string(r.Body)
				if len(body) > 300 {
					body = body[:300] + "…"
				}
				fmt.Fprintf(&b, "  %s %s\n", r.Role, body)
			}
		}
	}
	for _, sc := range s.Sidechains {
		fmt.Fprintf(&b, "sidechain %+v\n%s", *sc.Side, render(sc))
	}
	return b.String()
}

// TestGolden pins the parsed model of every fixture (go test -update
// rewrites testdata/golden).
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		got := render(parseFixture(t, fx.origin, fx.path))
		golden := filepath.Join("testdata", "golden", fx.origin+"-"+strings.TrimSuffix(filepath.Base(fx.path), ".jsonl")+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
		}
		if got != string(want) {
			t.Errorf("%s: the parsed model differs from %s:\n%s", fx.path, golden, got)
		}
	}
}
