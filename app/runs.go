package app

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/views"
)

// RunJSON is one live session in `rewind runs --json`.
type RunJSON struct {
	ID             string  `json:"id"`
	PID            int     `json:"pid"`
	Title          string  `json:"title"`
	WorkDir        string  `json:"work_dir"`
	State          string  `json:"state"` // idle, streaming, running tool, waiting for approval, retrying, compacting, running
	Tool           string  `json:"tool,omitempty"`
	Step           int     `json:"step"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Tokens         int     `json:"tokens"`
	ContextPercent float64 `json:"context_percent"`
	StartedAt      string  `json:"started_at,omitempty"`
	RemoteApproval bool    `json:"remote_approval"`
	Origin         string  `json:"origin,omitempty"` // another agent's run, followed (codex, claude)
	// A sub-agent run (listed right after its parent's): the session whose
	// Agent call started it, and its type.
	SubagentOf   string `json:"subagent_of,omitempty"`
	SubagentType string `json:"subagent_type,omitempty"`
}

// Runs lists every session a live rewind process writes on this machine
// (from the live sockets under $REWIND_HOME/run), newest run first.
func Runs(ctx context.Context, rt *Runtime, asJSON bool) error {
	cfg, err := rt.Config()
	if err != nil {
		return err
	}
	hellos, err := live.List(ctx, cfg.Home)
	if err != nil {
		return fmt.Errorf("list live runs: %w", err)
	}
	titles := map[string]string{}
	if len(hellos) > 0 {
		if db, _, err := rt.openDB(ctx); err == nil {
			for _, h := range hellos {
				if s, err := db.GetSession(ctx, h.SessionID); err == nil {
					titles[h.SessionID] = s.Title
				}
			}
			db.Close()
		}
	}
	now := time.Now()
	out := make([]RunJSON, 0, len(hellos))
	for _, h := range hellos {
		r := RunJSON{ID: h.SessionID, PID: h.PID, Title: h.Title, WorkDir: h.WorkDir, State: h.Run.State, Tool: h.Run.Tool,
			Step: h.Run.Step, ElapsedSeconds: h.Run.Elapsed(now).Round(time.Millisecond).Seconds(), Tokens: h.Run.Tokens,
			ContextPercent: h.Run.ContextPercent, RemoteApproval: h.RemoteApproval, Origin: h.Origin,
			SubagentOf: h.SubagentOf, SubagentType: h.SubagentType}
		if t := titles[h.SessionID]; t != "" {
			r.Title = t
		}
		if !h.Run.Started.IsZero() {
			r.StartedAt = rfc3339(h.Run.Started)
		}
		out = append(out, r)
	}
	if asJSON {
		return writeJSON(rt.Stdout, out)
	}
	if len(out) == 0 {
		_, err := fmt.Fprintln(rt.Stdout, "no live runs (a running `rewind` or `rewind -p` shows up here)")
		return err
	}
	tw := tabwriter.NewWriter(rt.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPID\tSTATE\tSTEP\tELAPSED\tTOKENS\tWORK DIR\tTITLE")
	for i, r := range out {
		// No run yet in this process: no step or elapsed time, not "0".
		step, elapsed := "-", "-"
		if r.Step > 0 {
			step = fmt.Sprint(r.Step)
		}
		if d := hellos[i].Run.Elapsed(now); d > 0 {
			elapsed = d.Round(time.Second).String()
		}
		state := hellos[i].Run.Label()
		if r.Origin != "" {
			state = views.ImportMark(r.Origin) + " followed"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.PID, state, step,
			elapsed, r.Tokens, oneLine(r.WorkDir), words.Clip(oneLine(hellos[i].RunTitle(r.Title)), 50))
	}
	return tw.Flush()
}
