package filecp

import (
	"context"
	"fmt"

	"github.com/rewind-agent/rewind/store"
)

// SeqOfCheckpoint returns the seq of checkpoint id in view v.
func SeqOfCheckpoint(v store.View, id int) (int64, bool) {
	for i := len(v.Records) - 1; i >= 0; i-- {
		r := v.Records[i]
		if r.Kind == store.KindCheckpoint && r.CheckpointID == id {
			return r.Seq, true
		}
	}
	return 0, false
}

// CheckpointSeq returns the seq of checkpoint id in the session's current
// view: the value RevertFiles takes. Look it up before store.RevertTo, which
// moves the checkpoint out of the current view.
func CheckpointSeq(ctx context.Context, db *store.DB, sessionID string, id int) (int64, bool, error) {
	v, err := db.View(ctx, sessionID)
	if err != nil {
		return 0, false, fmt.Errorf("filecp: %w", err)
	}
	seq, ok := SeqOfCheckpoint(v, id)
	return seq, ok, nil
}
