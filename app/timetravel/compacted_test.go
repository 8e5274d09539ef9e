package timetravel

import (
	"context"
	"errors"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// A revert to a checkpoint that compaction replaced says so, naming the
// archived generation that holds it, for the CLI as for the workspace
// (the CLI said "no checkpoint N").
func TestPlanRevertIntoACompactedRegion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testDB(t)
	s, err := db.ImportSession(ctx, store.NewSession{Title: "compacted"}, []store.ImportedGeneration{{Records: longRecords(3)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartCompacted(ctx, s.ID, []message.Message{message.Compaction("summary")}, s.CurrentGen, 100, false); err != nil {
		t.Fatal(err)
	}
	_, err = PlanRevert(ctx, Env{DB: db, Session: s}, 2, Check{})
	var ce *CompactedError
	if !errors.As(err, &ce) || ce.Source != s.CurrentGen || ce.Checkpoint != 2 || !errors.Is(err, store.ErrCompactedRegion) {
		t.Fatalf("revert into the compacted part: %v, want a CompactedError naming generation %d", err, s.CurrentGen)
	}
	if _, err := PlanRevert(ctx, Env{DB: db, Session: s}, 999, Check{}); !errors.Is(err, store.ErrCheckpointNotFound) || errors.As(err, &ce) {
		t.Fatalf("a checkpoint no generation holds: %v, want ErrCheckpointNotFound", err)
	}
}
