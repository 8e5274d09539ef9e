package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// TestDataVersionMovesOnlyWithCommits: DataVersion stays put while nothing
// is written and moves after a commit by this DB's writer and after one by
// another process's connection (a second DB on the same file).
func TestDataVersionMovesOnlyWithCommits(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "watched", "/w")
	v0 := must[int64](t)(db.DataVersion(bg))
	if v := must[int64](t)(db.DataVersion(bg)); v != v0 {
		t.Fatalf("data version moved from %d to %d with no write", v0, v)
	}
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "hello")))
	v1 := must[int64](t)(db.DataVersion(bg))
	if v1 == v0 {
		t.Fatal("data version did not move after this DB's own commit")
	}
	if _, err := db.ListSessions(bg, ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if v := must[int64](t)(db.DataVersion(bg)); v != v1 {
		t.Fatalf("data version moved from %d to %d after a read", v1, v)
	}

	other, err := Open(bg, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	newSession(t, other, "from another process", "/w")
	if v := must[int64](t)(db.DataVersion(bg)); v == v1 {
		t.Fatal("data version did not move after another connection's commit")
	}
}

// TestDataVersionIgnoresOwnHeartbeats: the lease heartbeats this DB
// writes (every 2 s while a session is open for writing; every 20 ms
// here) do not move DataVersion, or an idle writer would re-read its lists
// after every one; Writes counts the write transactions and not the
// heartbeats.
func TestDataVersionIgnoresOwnHeartbeats(t *testing.T) {
	t.Parallel()
	db, err := OpenWith(bg, newDBPath(t), Options{LeaseHeartbeat: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newSession(t, db, "leased", "/w")
	lease, err := db.AcquireLease(bg, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(bg)
	beat := func() int64 {
		var at int64
		if err := db.reader.QueryRowContext(bg, `SELECT heartbeat_at FROM leases WHERE session_id = ?`, s.ID).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	at0, v0, w0 := beat(), must[int64](t)(db.DataVersion(bg)), db.Writes()
	for deadline := time.Now().Add(30 * time.Second); beat() == at0; time.Sleep(20 * time.Millisecond) { // poll: the background goroutine's counters signal nothing
		if time.Now().After(deadline) {
			t.Fatal("no heartbeat")
		}
	}
	if v := must[int64](t)(db.DataVersion(bg)); v != v0 {
		t.Fatalf("data version moved from %d to %d with only a heartbeat written", v0, v)
	}
	if w := db.Writes(); w != w0 {
		t.Fatalf("a heartbeat counted as %d write transactions", w-w0)
	}
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "hello")))
	if w := db.Writes(); w != w0+1 {
		t.Fatalf("an append counted as %d write transactions, want 1", w-w0)
	}
}

// TestViewSinceReturnsOnlyNewRecords: after a view is read, ViewSince from
// its cursor returns exactly the records appended since, in order, with the
// generation's counters; nothing when nothing was appended; and the whole
// view equals the old view plus the delta.
func TestViewSinceReturnsOnlyNewRecords(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "followed", "/w")
	must[int](t)(db.Checkpoint(bg, s.ID, true))
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "first")))
	v := must[View](t)(db.View(bg, s.ID))

	d := must[ViewDelta](t)(db.ViewSince(bg, s.ID, v.Generation.Gen, v.Cursor()))
	if d.Reset || len(d.Records) != 0 {
		t.Fatalf("nothing appended, delta %+v", d)
	}
	must[int](t)(db.Checkpoint(bg, s.ID, false))
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("assistant", "second")))
	must[Record](t)(db.AppendUsage(bg, s.ID, 42))
	d = must[ViewDelta](t)(db.ViewSince(bg, s.ID, v.Generation.Gen, v.Cursor()))
	if d.Reset || len(d.Records) != 3 {
		t.Fatalf("delta after 3 appends: reset %v, %d records", d.Reset, len(d.Records))
	}
	if d.Records[0].Kind != KindCheckpoint || d.Records[1].Role != "assistant" || d.Records[2].TokenCount != 42 {
		t.Fatalf("delta records %+v", d.Records)
	}
	if d.Generation.Tokens != 42 || d.Generation.NextCheckpointID != 2 {
		t.Fatalf("delta counters: tokens %d, next checkpoint %d", d.Generation.Tokens, d.Generation.NextCheckpointID)
	}
	now := must[View](t)(db.View(bg, s.ID))
	if want := append(v.Records, d.Records...); !reflect.DeepEqual(now.Records, want) {
		t.Fatalf("view != old view + delta:\n%+v\n%+v", now.Records, want)
	}
	if now.Cursor() != d.Records[2].Seq {
		t.Fatalf("cursor %d, last seq %d", now.Cursor(), d.Records[2].Seq)
	}
}

// TestViewSinceResetsWhenTheGenerationChanged: a revert (or any operation
// that starts a generation) makes the delta a Reset: the caller must read
// the whole view, which no longer holds what it had.
func TestViewSinceResetsWhenTheGenerationChanged(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "reverted", "/w")
	cp := must[int](t)(db.Checkpoint(bg, s.ID, true))
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "undone")))
	v := must[View](t)(db.View(bg, s.ID))
	g := must[Generation](t)(db.RevertTo(bg, s.ID, cp, CauseRevert, ""))
	d := must[ViewDelta](t)(db.ViewSince(bg, s.ID, v.Generation.Gen, v.Cursor()))
	if !d.Reset || len(d.Records) != 0 || d.Generation.Gen != g.Gen {
		t.Fatalf("after a revert: reset %v, %d records, gen %d (want %d)", d.Reset, len(d.Records), d.Generation.Gen, g.Gen)
	}
	// The new generation's records follow its (parent's) view.
	v = must[View](t)(db.View(bg, s.ID))
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "again")))
	d = must[ViewDelta](t)(db.ViewSince(bg, s.ID, v.Generation.Gen, v.Cursor()))
	if d.Reset || len(d.Records) != 1 || d.Records[0].Gen != g.Gen {
		t.Fatalf("after an append to the new generation: %+v", d)
	}
}

// TestViewSinceOnAForkCountsItsOwnSeqs: a fork's view starts with the
// source session's records (another seq space); its cursor is 0 until it
// writes, so its first records are never mistaken for old ones.
func TestViewSinceOnAForkCountsItsOwnSeqs(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	src := newSession(t, db, "source", "/w")
	for i := range 5 {
		must[Record](t)(db.AppendMessage(bg, src.ID, message.NewText("user", fmt.Sprint("source ", i))))
	}
	fork := must[Session](t)(db.ForkSession(bg, src.ID, 0, -1))
	v := must[View](t)(db.View(bg, fork.ID))
	if len(v.Records) != 5 || v.Cursor() != 0 {
		t.Fatalf("fork view: %d records, cursor %d", len(v.Records), v.Cursor())
	}
	r := must[Record](t)(db.AppendMessage(bg, fork.ID, message.NewText("user", "in the fork")))
	d := must[ViewDelta](t)(db.ViewSince(bg, fork.ID, v.Generation.Gen, v.Cursor()))
	if d.Reset || len(d.Records) != 1 || d.Records[0].Seq != r.Seq || d.Records[0].SessionID != fork.ID {
		t.Fatalf("fork delta %+v", d)
	}
}

// TestViewBeforePagesTheWholeView: paging a view backwards from its end
// (ViewBefore from each page's Start), or forwards from its start
// (ViewAfter from each page's last record), yields exactly the view's records,
// across a revert's segments and a fork's parent session, each page the
// last records before the previous one, and Earlier false only on the
// first page.
func TestViewBeforePagesTheWholeView(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "long", "/w")
	for i := range 12 {
		must[int](t)(db.Checkpoint(bg, s.ID, true))
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", fmt.Sprintf("prompt %d", i))))
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("assistant", fmt.Sprintf("answer %d", i))))
	}
	must[Generation](t)(db.RevertTo(bg, s.ID, 8, CauseRevert, ""))
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "after the revert")))
	fork := must[Session](t)(db.ForkSession(bg, s.ID, -1, -1))
	must[Record](t)(db.AppendMessage(bg, fork.ID, message.NewText("user", "in the fork")))

	for _, id := range []string{s.ID, fork.ID} {
		full := must[View](t)(db.View(bg, id))
		for _, limit := range []int{1, 4, 7, len(full.Records), 100} {
			var got []Record
			pos := ViewPos{}
			for range len(full.Records) + 1 {
				p := must[View](t)(db.ViewBefore(bg, id, -1, pos, limit))
				if len(p.Records) > limit || p.Generation.Gen != full.Generation.Gen {
					t.Fatalf("%s limit %d: page of %d records, gen %d", id, limit, len(p.Records), p.Generation.Gen)
				}
				got = append(append([]Record(nil), p.Records...), got...)
				if !p.Earlier {
					break
				}
				if len(p.Records) != limit {
					t.Fatalf("%s limit %d: a short page (%d) says there is more", id, limit, len(p.Records))
				}
				pos = p.Start()
			}
			if !reflect.DeepEqual(got, full.Records) {
				t.Fatalf("%s limit %d: pages hold %d records, the view %d", id, limit, len(got), len(full.Records))
			}
			// forwards with ViewAfter, from the start
			got, pos = nil, ViewPos{}
			for range len(full.Records) + 1 {
				p := must[View](t)(db.ViewAfter(bg, id, -1, pos, limit))
				got = append(got, p.Records...)
				if p.Later != (len(got) < len(full.Records)) {
					t.Fatalf("%s limit %d: Later %v after %d of %d records", id, limit, p.Later, len(got), len(full.Records))
				}
				if !p.Later {
					break
				}
				last := p.Records[len(p.Records)-1]
				pos = ViewPos{SessionID: last.SessionID, Seq: last.Seq}
			}
			if !reflect.DeepEqual(got, full.Records) {
				t.Fatalf("%s limit %d: forward pages hold %d records, the view %d", id, limit, len(got), len(full.Records))
			}
		}
		// a position named by its seq only (a search hit)
		mid := full.Records[len(full.Records)/2]
		p := must[View](t)(db.ViewAfter(bg, id, -1, ViewPos{Seq: mid.Seq}, 2))
		if !reflect.DeepEqual(p.Records, full.Records[len(full.Records)/2+1:len(full.Records)/2+3]) {
			t.Fatalf("%s: the 2 records after seq %d: %+v", id, mid.Seq, p.Records)
		}
	}
	// an archived generation pages too, and a position outside the view is an error
	g0 := must[View](t)(db.GenerationView(bg, s.ID, 0))
	p := must[View](t)(db.ViewBefore(bg, s.ID, 0, ViewPos{}, 3))
	if !reflect.DeepEqual(p.Records, g0.Records[len(g0.Records)-3:]) || !p.Earlier {
		t.Fatalf("tail of generation 0: %+v", p.Records)
	}
	if _, err := db.ViewBefore(bg, s.ID, -1, ViewPos{SessionID: s.ID, Seq: 1 << 40}, 3); err == nil {
		t.Fatal("a position outside the view was accepted")
	}
}

// TestViewAroundReadsThePagesAroundARecord: ViewAround at each record of
// a view (across a revert's segments and a fork's parent session) holds the
// records around it, says whether the view holds more either side, and
// counts the messages before its page; a position outside the view is an
// error.
func TestViewAroundReadsThePagesAroundARecord(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "long", "/w")
	for i := range 10 {
		must[int](t)(db.Checkpoint(bg, s.ID, true))
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", fmt.Sprintf("prompt %d", i))))
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("assistant", fmt.Sprintf("answer %d", i))))
	}
	must[Generation](t)(db.RevertTo(bg, s.ID, 6, CauseRevert, ""))
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "after the revert")))
	fork := must[Session](t)(db.ForkSession(bg, s.ID, -1, -1))
	must[Record](t)(db.AppendMessage(bg, fork.ID, message.NewText("user", "in the fork")))

	for _, id := range []string{s.ID, fork.ID} {
		full := must[View](t)(db.View(bg, id))
		n := len(full.Records)
		for k, r := range full.Records {
			for _, side := range [][2]int{{0, 0}, {2, 3}, {5, 1}, {n, n}} {
				p := must[View](t)(db.ViewAround(bg, id, -1, ViewPos{SessionID: r.SessionID, Seq: r.Seq}, side[0], side[1]))
				from, to := max(0, k-side[0]), min(n, k+side[1]+1)
				if !reflect.DeepEqual(p.Records, full.Records[from:to]) {
					t.Fatalf("%s around record %d (%d before, %d after): %+v, want %+v", id, k, side[0], side[1], p.Records, full.Records[from:to])
				}
				msgs := 0
				for _, r := range full.Records[:from] {
					if r.Kind == KindMessage {
						msgs++
					}
				}
				if p.Earlier != (from > 0) || p.Later != (to < n) || p.MessagesBefore != msgs || p.Generation.Gen != full.Generation.Gen {
					t.Fatalf("%s around record %d (%d before, %d after): earlier %v, later %v, %d messages before, gen %d; want %v, %v, %d, %d",
						id, k, side[0], side[1], p.Earlier, p.Later, p.MessagesBefore, p.Generation.Gen, from > 0, to < n, msgs, full.Generation.Gen)
				}
			}
		}
	}
	// an archived generation, a hit naming its seq only
	g0 := must[View](t)(db.GenerationView(bg, s.ID, 0))
	last := g0.Records[len(g0.Records)-1]
	p := must[View](t)(db.ViewAround(bg, s.ID, 0, ViewPos{Seq: last.Seq}, 1, 5))
	if !reflect.DeepEqual(p.Records, g0.Records[len(g0.Records)-2:]) || !p.Earlier || p.Later {
		t.Fatalf("around the last record of generation 0: %+v", p)
	}
	if _, err := db.ViewAround(bg, s.ID, -1, ViewPos{SessionID: s.ID, Seq: 1 << 40}, 3, 3); err == nil {
		t.Fatal("a position outside the view was accepted")
	}
}

// TestCheckpointsOutside: the checkpoints of a view before a page and
// after it are counted through the checkpoint index, across a revert's
// segments and a fork's parent session, for any page of the view; a
// position outside the view is an error.
func TestCheckpointsOutside(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "long", "/w")
	for i := range 10 {
		turn(t, db, s.ID, fmt.Sprintf("prompt %d", i), 10*i)
	}
	must[Generation](t)(db.RevertTo(bg, s.ID, 6, CauseRevert, ""))
	turn(t, db, s.ID, "after the revert", 5)
	fork := must[Session](t)(db.ForkSession(bg, s.ID, -1, -1))
	turn(t, db, fork.ID, "in the fork", 5)

	for _, id := range []string{s.ID, fork.ID} {
		full := must[View](t)(db.View(bg, id))
		pos := func(r Record) ViewPos { return ViewPos{SessionID: r.SessionID, Seq: r.Seq} }
		for i := range full.Records {
			for j := i; j < len(full.Records); j += 3 {
				before, after, err := db.CheckpointsOutside(bg, id, -1, pos(full.Records[i]), pos(full.Records[j]))
				if err != nil {
					t.Fatal(err)
				}
				wb, wa := 0, 0
				for k, r := range full.Records {
					if r.Kind == KindCheckpoint && k < i {
						wb++
					}
					if r.Kind == KindCheckpoint && k > j {
						wa++
					}
				}
				if before != wb || after != wa {
					t.Fatalf("%s records %d..%d: %d checkpoints before, %d after; want %d, %d", id, i, j, before, after, wb, wa)
				}
			}
		}
	}
	if _, _, err := db.CheckpointsOutside(bg, s.ID, -1, ViewPos{SessionID: s.ID, Seq: 1 << 40}, ViewPos{}); err == nil {
		t.Fatal("a position outside the view was accepted")
	}
}
