package tui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-agent/rewind/soul/filecp"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
)

// A session written from the workspace records file checkpoints, so the
// timeline's "conversation + files" revert has something to rewind.
func TestWorkspaceRecordsFileCheckpoints(t *testing.T) {
	t.Parallel()
	var h *harness
	h = newHarness(t, hopts{mutate: func(o *Options) {
		o.Soul.Yolo = true
		o.Files = func(s store.Session) (tools.FileTracker, error) {
			return forTools(filecp.New(h.db, s.ID, s.WorkDir, filecp.Options{}))
		}
	}, before: func(hh *harness) { h = hh }},
		llmtest.Calls(llmtest.Call("w1", "WriteFile", map[string]any{"path": "notes.txt", "content": "agent text\n"})),
		llmtest.Text("Wrote notes.txt."),
	)
	h.submit("write notes")
	h.waitFor("Wrote notes.txt.")
	h.waitUntil("run finished", h.idle)

	id := h.sessionID()
	events, err := h.db.FileEvents(h.ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Path != "notes.txt" || events[0].Before.Exists() || !events[0].After.Exists() || events[0].Pending {
		t.Fatalf("file events = %+v, want one settled creation of notes.txt", events)
	}
	// The recorded checkpoint takes the file back.
	v, err := h.db.View(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	seq, ok := filecp.SeqOfCheckpoint(v, 0)
	if !ok {
		t.Fatal("checkpoint 0 not in the view")
	}
	tr, err := filecp.New(h.db, id, h.work, filecp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.RevertFiles(h.ctx, seq, filecp.RevertOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.work, "notes.txt")); !os.IsNotExist(err) {
		t.Fatalf("notes.txt after the file revert: %v", err)
	}
}

// toolsTracker is a file tracker as the tools see it (what app's adapter
// does): its not-kept files as tools.NotKeptFile.
type toolsTracker struct{ *filecp.Tracker }

func (t toolsTracker) BeforeWrite(ctx context.Context, paths []string) ([]tools.NotKeptFile, error) {
	notKept, err := t.Tracker.BeforeWrite(ctx, paths)
	return toolsNotKept(notKept), err
}

func (t toolsTracker) AroundShell(ctx context.Context) (func(context.Context) ([]tools.NotKeptFile, error), error) {
	after, err := t.Tracker.AroundShell(ctx)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) ([]tools.NotKeptFile, error) {
		notKept, err := after(ctx)
		return toolsNotKept(notKept), err
	}, nil
}

// forTools is tr for the tools.
func forTools(tr *filecp.Tracker, err error) (tools.FileTracker, error) {
	if err != nil {
		return nil, err
	}
	return toolsTracker{tr}, nil
}

func toolsNotKept(in []filecp.NotKept) []tools.NotKeptFile {
	out := make([]tools.NotKeptFile, len(in))
	for i, n := range in {
		out[i] = tools.NotKeptFile(n)
	}
	return out
}
