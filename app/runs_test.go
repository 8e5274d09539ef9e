package app

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
)

// An idle writer's row in `rewind runs` shows the session's tokens and no
// step or elapsed time ("-"): a step 0 and "0s" read as a run that did
// nothing. --json keeps the numbers.
func TestRunsTableOfAnIdleWriter(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "rwc") // short: socket paths must fit in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	pub, err := live.Listen(live.Options{Home: home, Hello: live.Hello{SessionID: "s1", Title: "big one", WorkDir: "/w"}})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	pub.Publish(soul.StatusUpdate{Tokens: 48_100_000, MaxContext: 128_000})
	var out bytes.Buffer
	rt := &Runtime{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Flags: Overrides{Home: &home}}
	if err := Runs(context.Background(), rt, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("runs:\n%s", out.String())
	}
	if f := strings.Fields(lines[1]); len(f) < 6 || f[2] != "idle" || f[3] != "-" || f[4] != "-" || f[5] != "48100000" {
		t.Errorf("the idle writer's row is %q, want idle, no step, no elapsed time, its tokens", lines[1])
	}
}
