package filecp

import (
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
