package main

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// TestDidYouMean: a mistyped subcommand or flag gets the close names; a
// flag of another command says which commands take it.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args  []string
		wants []string
	}{
		{[]string{"sesions"}, []string{`unknown command "sesions"`, "did you mean `sessions`?"}},
		{[]string{"revrt", "x", "1"}, []string{"did you mean `revert`?"}},
		{[]string{"sessions", "--jsn"}, []string{"--jsn", "did you mean --json?", "`rewind sessions --help`"}},
		{[]string{"--yolo", "--max-step", "3"}, []string{"did you mean --max-steps?"}},
		{[]string{"sessions", "--theme", "dark"}, []string{"`rewind sessions` has no flag --theme", "`rewind`", "`rewind watch`"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			expectError(t, runArgs(t, tc.args...), 2, tc.wants...)
		})
	}
}

// TestHelpListsOnlyUsedFlags: each subcommand's help shows the flags it
// reads, not the workspace's.
func TestHelpListsOnlyUsedFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cmd            string
		want, unwanted []string
	}{
		{"sessions", []string{"--json", "--home"}, []string{"--theme", "--model", "--yolo", "--work-dir", "--max-steps"}},
		{"show", []string{"--generation", "--json"}, []string{"--theme", "--base-url", "--no-stream"}},
		{"revert", []string{"--files", "--dry-run"}, []string{"--theme", "--model", "--yolo"}},
		{"compact", []string{"--model", "--base-url"}, []string{"--theme", "--yolo", "--work-dir"}},
		{"import", []string{"--work-dir"}, []string{"--theme", "--model"}},
		{"demo", []string{"--theme", "--yolo", "--allow-remote-approval"}, []string{"--model", "--base-url", "--work-dir"}},
		// a watcher writes nothing: the writer's flags are not its own
		{"watch", []string{"--theme", "--model", "--base-url"}, []string{"--work-dir", "--yolo", "--max-steps", "--no-stream", "--allow-remote-approval"}},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			r := mustParse(t, tc.cmd, "--help")
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("help of %s lacks %s:\n%s", tc.cmd, w, r.stdout)
				}
			}
			for _, u := range tc.unwanted {
				if strings.Contains(r.stdout, u+" ") {
					t.Errorf("help of %s lists %s, which it ignores:\n%s", tc.cmd, u, r.stdout)
				}
			}
		})
	}
	// The workspace still takes them all.
	r := mustParse(t, "--help")
	for _, w := range []string{"--theme", "--model", "--yolo", "--work-dir", "--max-steps", "--version"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("rewind --help lacks %s", w)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := mustParse(t, "--version")
	if !strings.HasPrefix(r.stdout, "rewind ") || !strings.Contains(r.stdout, "go1.") {
		t.Errorf("--version: %q", r.stdout)
	}
}

func TestDescribeBuild(t *testing.T) {
	t.Parallel()
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-11-24T05:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	cases := []struct {
		override string
		info     *debug.BuildInfo
		ok       bool
		want     string
	}{
		{"", info, true, "devel (0123456789ab-dirty, 2026-11-24T05:00:00Z, go1.26.8)"},
		{"v1.2.3", info, true, "v1.2.3 (0123456789ab-dirty, 2026-11-24T05:00:00Z, go1.26.8)"},
		{"", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}}, true, "v0.4.0 (go1.26.8)"},
		{"v2", nil, false, "v2"},
	}
	for _, tc := range cases {
		if got := describeBuild(tc.override, tc.info, tc.ok); got != tc.want {
			t.Errorf("describeBuild(%q) = %q, want %q", tc.override, got, tc.want)
		}
	}
}

// TestShowHidesCheckpointMarkers: the "<system>CHECKPOINT N</system>" user
// messages written for D-Mail are not part of what `show` prints, as text or
// JSON; the checkpoint records stay.
func TestShowHidesCheckpointMarkers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	s, err := db.CreateSession(ctx, store.NewSession{Title: "markers", WorkDir: e.workDir})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"first question", "second question"} {
		if _, err := db.Checkpoint(ctx, s.ID, true); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AppendMessage(ctx, s.ID, message.NewText("user", text)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	text := e.mustOK("show", s.ID).stdout
	if strings.Contains(text, "CHECKPOINT") {
		t.Errorf("show prints the checkpoint markers:\n%s", text)
	}
	for _, w := range []string{"checkpoint 0", "checkpoint 1", "first question", "second question"} {
		if !strings.Contains(text, w) {
			t.Errorf("show lacks %q:\n%s", w, text)
		}
	}
	js := e.mustOK("show", s.ID, "--json").stdout
	if strings.Contains(js, "CHECKPOINT") {
		t.Errorf("show --json prints the checkpoint markers:\n%s", js)
	}
	v := decode[map[string]any](t, js)
	if n := len(v["records"].([]any)); n != 4 {
		t.Errorf("show --json has %d records, want 2 checkpoints + 2 messages:\n%s", n, js)
	}
	// export keeps them: it is kimi-cli's lossless format.
	if out := e.mustOK("export", s.ID).stdout; strings.Count(out, `"content":"\u003csystem\u003eCHECKPOINT`) != 2 {
		t.Errorf("export lost the markers:\n%s", out)
	}
}

// TestAmbiguousIDListsCandidates: a prefix shared by sessions names them.
func TestAmbiguousIDListsCandidates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.seed("first of two"), e.seed("second of two")
	n := 0
	for n < len(a.id) && a.id[n] == b.id[n] {
		n++
	}
	prefix := a.id[:n]
	expectError(t, e.run("show", prefix), 1, "more than one session starts with", a.id, b.id, `"first of two"`, `"second of two"`)
}

// TestDryRunWhileSessionIsHeld: --dry-run changes nothing, so it works
// while another process holds the session; the real revert is refused.
func TestDryRunWhileSessionIsHeld(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.seed("held")
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	lease, err := db.AcquireLease(ctx, s.id)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(ctx)

	r := e.mustOK("revert", s.id, "1", "--dry-run")
	if !strings.Contains(r.stdout, "would revert to checkpoint 1") {
		t.Errorf("dry run: %s", r)
	}
	// Generation 0 is current: the dry run says so, without needing the lease.
	expectError(t, e.run("restore", s.id, "0", "--dry-run"), 1, "nothing to restore")
	expectError(t, e.run("revert", s.id, "1"), 1, "open in another rewind process")
	if g := decode[[]map[string]any](t, e.look("generations", s.id, "--json").stdout); len(g) != 1 {
		t.Errorf("the dry runs wrote generations: %v", g)
	}
}
