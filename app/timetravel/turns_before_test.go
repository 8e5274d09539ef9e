package timetravel

import (
	"context"
	"fmt"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// store.TurnsBefore counts the turns Turns reads before any checkpoint of
// a view: turns with and without checkpoint markers, steps (answers and
// one interrupted before its answer), a D-Mail's turn, across a revert
// and into a fork (a view of several segments). The timeline numbers a
// long view's page of turns from it.
func TestTurnsBeforeCountsWhatTurnsReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testDB(t)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "turns", WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	turn := func(id string, i int, marker bool) {
		_, err := db.StartTurn(ctx, id, marker, message.NewText("user", fmt.Sprintf("prompt %d", i)))
		must(err)
		for st := range i % 3 {
			_, err := db.Checkpoint(ctx, id, marker)
			must(err)
			_, err = db.AppendMessage(ctx, id, message.NewText("assistant", fmt.Sprintf("answer %d.%d", i, st)))
			must(err)
			_, err = db.AppendUsage(ctx, id, 100*i)
			must(err)
		}
	}
	for i := range 8 {
		turn(s.ID, i, i%2 == 0)
	}
	_, err = db.Checkpoint(ctx, s.ID, true) // a step cut off before its answer
	must(err)
	_, err = db.StartTurn(ctx, s.ID, true, message.DMail("from the future"))
	must(err)
	_, err = db.RevertTo(ctx, s.ID, 12, store.CauseRevert, "")
	must(err)
	for i := 8; i < 12; i++ {
		turn(s.ID, i, i%2 == 1)
	}
	fork, err := db.ForkSession(ctx, s.ID, -1, -1)
	must(err)
	for i := 12; i < 15; i++ {
		turn(fork.ID, i, true)
	}
	for _, id := range []string{s.ID, fork.ID} {
		v, err := db.View(ctx, id)
		must(err)
		checked := 0
		for i, r := range v.Records {
			if r.Kind != store.KindCheckpoint {
				continue
			}
			want := 0
			for _, tt := range Turns(store.View{Records: v.Records[:i]}) {
				if tt.Checkpoint >= 0 {
					want++
				}
			}
			got, err := db.TurnsBefore(ctx, id, -1, store.ViewPos{SessionID: r.SessionID, Seq: r.Seq})
			must(err)
			if got != want {
				t.Fatalf("%s: %d turns before checkpoint %d (record %d), Turns reads %d", id, got, r.CheckpointID, i, want)
			}
			checked++
		}
		if checked < 20 {
			t.Fatalf("%s: only %d checkpoints checked", id, checked)
		}
	}
}
