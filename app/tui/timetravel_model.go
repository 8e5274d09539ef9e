package tui

import (
	"context"
	"fmt"
	"github.com/rewind-agent/rewind/app/timetravel"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/views"
)

// This file holds the pure (or store-only) parts of time travel: where an
// archived generation branches off the live line, the preview of a
// checkpoint, the count of messages a revert archives and the message diff
// between two generations. Nothing here touches a widget; every function
// may run on a worker.

// noForkCheckpoint places a branch after the last live checkpoint (the
// views package draws a ForkCheckpoint it does not know at the end).
const noForkCheckpoint = math.MaxInt32

// sameView is forkCheckpoint's answer for an archived generation whose
// view is the live one, record for record (the generation an undo or a
// restore brought back): it is not a branch, and the timeline does not
// offer it (restoring it would change nothing).
const sameView = math.MinInt32

// branchKey names a (current generation, archived generation) pair of one
// session: where the archived one leaves the live line never changes while
// that current generation stays current (the live view only grows by
// appending records no archived generation holds).
type branchKey struct {
	session  string
	cur, gen int
}

// branchCache remembers fork checkpoints across reloads (watch mode reloads
// often; loading every archived view each time would not scale). It holds
// the entries of one (session, current generation) only: a fork point is
// valid only while that generation stays current, so switching sessions or
// making a new generation starts afresh, and the cache never grows past one
// session's generations.
type branchCache struct {
	mu      sync.Mutex
	session string
	cur     int
	forks   map[int]int // archived generation → fork checkpoint
}

func (b *branchCache) get(k branchKey) (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.forks == nil || b.session != k.session || b.cur != k.cur {
		return 0, false
	}
	fc, ok := b.forks[k.gen]
	return fc, ok
}

func (b *branchCache) put(k branchKey, fc int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.forks == nil || b.session != k.session || b.cur != k.cur {
		b.session, b.cur, b.forks = k.session, k.cur, map[int]int{}
	}
	b.forks[k.gen] = fc
}

// forkCheckpoint computes where archived generation gen leaves the live
// view cur (the whole view, or its loaded part: cur.Earlier): the first
// live checkpoint after the records they share; -1 when they share none
// of cur's records (compaction, clear, import roots, or a branch that
// leaves before the loaded part: drawn at the top); noForkCheckpoint when
// every live checkpoint is shared (the branch goes at the end); sameView
// when gen's view is cur's. Two views share a prefix, so the first live
// record gen's view does not hold is found by bisection, an index probe
// each (store.ViewHolds): the archived view is never read.
func forkCheckpoint(ctx context.Context, db *store.DB, cur store.View, gen int) (int, error) {
	var err error
	p := sort.Search(len(cur.Records), func(i int) bool {
		r := cur.Records[i]
		held, herr := db.ViewHolds(ctx, cur.SessionID, gen, store.ViewPos{SessionID: r.SessionID, Seq: r.Seq})
		if herr != nil && err == nil {
			err = herr
		}
		return !held
	})
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return -1, nil
	}
	if p == len(cur.Records) {
		last, err := db.ViewBefore(ctx, cur.SessionID, gen, store.ViewPos{}, 1)
		if err != nil {
			return 0, err
		}
		if l := cur.Records[p-1]; len(last.Records) == 1 && last.Records[0].SessionID == l.SessionID && last.Records[0].Seq == l.Seq {
			return sameView, nil
		}
	}
	for _, r := range cur.Records[p:] {
		if r.Kind == store.KindCheckpoint {
			return r.CheckpointID, nil
		}
	}
	return noForkCheckpoint, nil
}

// withBranches fills in ForkCheckpoint of the archived generations in m
// (which timelineModel leaves at -1), loading each archived view once per
// current generation. Errors leave a branch at the top, which is where
// unknown branches are drawn anyway.
//
// A generation keeps its own cause (as `rewind generations` shows it); a
// branch also says why it was left: generation G was archived when
// generation G+1 was made (every operation makes the next generation from
// the current one), so its ArchivedBy is G+1's cause.
func (b *branchCache) withBranches(ctx context.Context, db *store.DB, cur store.View, m views.TimelineModel) views.TimelineModel {
	byGen := make(map[int]views.GenerationRow, len(m.Generations))
	for _, g := range m.Generations {
		byGen[g.Gen] = g
	}
	for i, g := range m.Generations {
		if !g.Archived || g.Current {
			continue
		}
		if next, ok := byGen[g.Gen+1]; ok {
			m.Generations[i].ArchivedBy, m.Generations[i].ArchivedIn, m.Generations[i].ArchivedNote = next.Cause, next.Gen, next.Note
		}
		k := branchKey{cur.SessionID, cur.Generation.Gen, g.Gen}
		fc, ok := b.get(k)
		if !ok {
			var err error
			if fc, err = forkCheckpoint(ctx, db, cur, g.Gen); err != nil {
				continue
			}
			// A branch before the loaded part moves to its checkpoint when
			// an earlier page brings it, and one after it (a search hit's
			// window) when a later page does; the current view may still
			// grow to differ from a generation it equals now.
			if fc != sameView && (fc >= 0 || !cur.Earlier) && (fc != noForkCheckpoint || !cur.Later) {
				b.put(k, fc)
			}
		}
		if fc == sameView {
			m.Generations[i].SameView = true
			continue
		}
		m.Generations[i].ForkCheckpoint = fc
	}
	return m
}

// keptPartial is an interrupt generation read once: its view is the
// current view of its time, then the partial answer (archived views never
// change).
type keptPartial struct {
	last    store.ViewPos // the record before the partial answer (zero: none)
	partial message.Message
}

var keptCache sync.Map // branchKey{session, -1, gen} → keptPartial

// interruptedIn finds the partial answers that interrupted steps left in
// interrupt generations and places them in cur (a whole view or its
// loaded part): after the record where they were cut off (the key is that
// record's index in cur.Records), when cur holds it. Only the last two
// records of each interrupt generation are read.
func interruptedIn(ctx context.Context, db *store.DB, cur store.View, gens []store.Generation) map[int][]message.Message {
	var out map[int][]message.Message
	var at map[store.ViewPos]int // cur's records by position, made on first need
	for _, g := range gens {
		if g.Cause != store.CauseInterrupt {
			continue
		}
		k := branchKey{cur.SessionID, -1, g.Gen}
		var kp keptPartial
		if c, ok := keptCache.Load(k); ok {
			kp = c.(keptPartial)
		} else {
			v, err := db.ViewBefore(ctx, cur.SessionID, g.Gen, store.ViewPos{}, 2)
			if err != nil || len(v.Records) == 0 {
				continue
			}
			last := v.Records[len(v.Records)-1]
			m, err := last.Message()
			if err != nil || last.Kind != store.KindMessage {
				continue
			}
			kp = keptPartial{partial: m}
			if len(v.Records) == 2 {
				kp.last = store.ViewPos{SessionID: v.Records[0].SessionID, Seq: v.Records[0].Seq}
			}
			keptCache.Store(k, kp)
		}
		if kp.last == (store.ViewPos{}) {
			continue
		}
		if at == nil {
			at = make(map[store.ViewPos]int, len(cur.Records))
			for i, r := range cur.Records {
				at[store.ViewPos{SessionID: r.SessionID, Seq: r.Seq}] = i
			}
		}
		i, ok := at[kp.last]
		if !ok {
			continue
		}
		if out == nil {
			out = map[int][]message.Message{}
		}
		out[i] = append(out[i], kp.partial)
	}
	return out
}

// backtrackCache holds the banners of backtrack generations (archived
// generations never change, and what a backtrack discarded is in one).
var backtrackCache sync.Map // branchKey{session, -2, gen} → soul.Backtrack

// backtracksIn is the banner of each D-Mail whose marker cur (a whole view
// or its loaded part) holds, by the backtrack generation it starts: the
// same facts the live banner showed, read again from the archived
// generation, so a reopened session shows what happened.
func backtracksIn(ctx context.Context, db *store.DB, cur store.View, gens []store.Generation) map[int]soul.Backtrack {
	var out map[int]soul.Backtrack
	var rewinds []store.Rewind
	checkpoint := -1
	for i, r := range cur.Records {
		if r.Kind == store.KindCheckpoint {
			checkpoint = r.CheckpointID
		}
		if r.Kind != store.KindMessage || r.Role != "user" || r.Gen < 0 || r.Gen >= len(gens) {
			continue
		}
		g := gens[r.Gen]
		if g.Gen != r.Gen || g.Cause != store.CauseBacktrack || g.SourceGen == nil {
			continue
		}
		if m, err := r.Message(); err != nil || !isDMail(m) {
			continue
		}
		k := branchKey{cur.SessionID, -2, g.Gen}
		if c, ok := backtrackCache.Load(k); ok {
			out = putBacktrack(out, g.Gen, c.(soul.Backtrack))
			continue
		}
		cp := checkpoint
		if i == 0 || cp < 0 { // the page starts at the marker: its checkpoint is before it
			before, err := db.ViewBefore(ctx, cur.SessionID, g.Gen, store.ViewPos{SessionID: r.SessionID, Seq: r.Seq}, 2)
			if err != nil {
				continue
			}
			for _, p := range before.Records {
				if p.Kind == store.KindCheckpoint {
					cp = p.CheckpointID
				}
			}
		}
		if cp < 0 {
			continue
		}
		lost, err := db.DiscardedAt(ctx, cur.SessionID, *g.SourceGen, cp)
		if err != nil {
			continue
		}
		if rewinds == nil {
			if rewinds, err = db.Rewinds(ctx, cur.SessionID); err != nil {
				rewinds = []store.Rewind{}
			}
		}
		bt := soul.Backtrack{CheckpointID: cp, Discarded: lost.Messages, Prompts: lost.Prompts, ReturnedTo: lost.ReturnedTo,
			Note: g.Note, NewGen: g.Gen, ArchivedGen: lost.Gen}
		for _, rw := range rewinds {
			bt.FilesReverted = bt.FilesReverted || rw.Op == "backtrack" && rw.AfterGen == g.Gen && rw.FilesUndo > 0
		}
		backtrackCache.Store(k, bt)
		out = putBacktrack(out, g.Gen, bt)
	}
	return out
}

func putBacktrack(m map[int]soul.Backtrack, gen int, bt soul.Backtrack) map[int]soul.Backtrack {
	if m == nil {
		m = map[int]soul.Backtrack{}
	}
	m[gen] = bt
	return m
}

func isDMail(m message.Message) bool {
	k, _ := message.MarkerOf(m)
	return k == message.MarkerDMail
}

// diffMsg is one message of a generation diff.
type diffMsg struct {
	key  string // identity for matching: role + full content
	text string // what the diff shows
}

// diffMessages lists a view's messages for a diff: the user, assistant and
// tool messages as the conversation shows them (checkpoint markers hidden).
func diffMessages(v store.View) []diffMsg {
	var out []diffMsg
	for _, r := range v.Records {
		if r.Kind != store.KindMessage {
			continue
		}
		m, err := r.Message()
		if err != nil || message.IsCheckpoint(m) {
			continue
		}
		var sb strings.Builder
		sb.WriteString(m.Role)
		sb.WriteString(": ")
		text := strings.TrimSpace(m.Content.PlainText())
		for _, c := range m.ToolCalls {
			if text != "" {
				text += "\n"
			}
			text += "→ " + c.Name + " " + oneLine(tools.CallLabel(c.Name, c.Args), 80)
		}
		shown := text
		if m.Role == "assistant" {
			// An answer is markdown: its words, not its syntax ("##", "**").
			shown = views.MarkdownPlain(text)
		}
		sb.WriteString(shown)
		key := m.Role + "\x00" + m.ToolCallID + "\x00" + text
		out = append(out, diffMsg{key: key, text: clipLines(sb.String(), 6, 160)})
	}
	return out
}

// clipLines keeps the first n lines of s, each cut to w runes.
func clipLines(s string, n, w int) string {
	lines := strings.Split(s, "\n")
	more := len(lines) - n
	if more > 0 {
		lines = lines[:n]
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > w {
			lines[i] = string(r[:w-1]) + "…"
		}
	}
	out := strings.Join(lines, "\n")
	if more > 0 {
		out += fmt.Sprintf("\n… (%d more lines)", more)
	}
	return out
}

// maxDiffCells bounds the LCS table of a generation diff; beyond it the
// differing middle is shown as removed then added.
const maxDiffCells = 4_000_000

// diffContext is how many shared messages are shown around a change.
const diffContext = 2

// genDiff diffs two message lists (old = the archived generation, new = the
// current view) at message granularity: a shared prefix and suffix are
// trimmed, the middle matched by LCS, and long runs of shared messages are
// folded to a count.
func genDiff(old, cur []diffMsg) []views.DiffLine {
	pre := 0
	for pre < len(old) && pre < len(cur) && old[pre].key == cur[pre].key {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(cur)-pre && old[len(old)-1-suf].key == cur[len(cur)-1-suf].key {
		suf++
	}
	a, b := old[pre:len(old)-suf], cur[pre:len(cur)-suf]
	type op struct {
		op views.DiffOp
		m  diffMsg
	}
	var ops []op
	for _, m := range old[:pre] {
		ops = append(ops, op{views.DiffSame, m})
	}
	if len(a)*len(b) > maxDiffCells {
		for _, m := range a {
			ops = append(ops, op{views.DiffRemove, m})
		}
		for _, m := range b {
			ops = append(ops, op{views.DiffAdd, m})
		}
	} else {
		// lcs[i][j] = LCS length of a[i:], b[j:]
		lcs := make([][]int32, len(a)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(b)+1)
		}
		for i := len(a) - 1; i >= 0; i-- {
			for j := len(b) - 1; j >= 0; j-- {
				if a[i].key == b[j].key {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(a) || j < len(b) {
			switch {
			case i < len(a) && j < len(b) && a[i].key == b[j].key:
				ops = append(ops, op{views.DiffSame, a[i]})
				i++
				j++
			case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
				ops = append(ops, op{views.DiffAdd, b[j]})
				j++
			default:
				ops = append(ops, op{views.DiffRemove, a[i]})
				i++
			}
		}
	}
	for _, m := range cur[len(cur)-suf:] {
		ops = append(ops, op{views.DiffSame, m})
	}
	// Fold runs of shared messages far from any change.
	near := make([]bool, len(ops))
	for k, o := range ops {
		if o.op == views.DiffSame {
			continue
		}
		for d := max(0, k-diffContext); d <= min(len(ops)-1, k+diffContext); d++ {
			near[d] = true
		}
	}
	var out []views.DiffLine
	folded := 0
	flush := func() {
		if folded > 0 {
			out = append(out, views.DiffLine{Op: views.DiffHeader, Text: fmt.Sprintf("… %d shared %s", folded, words.Plural(folded, "message", "messages"))})
			folded = 0
		}
	}
	for k, o := range ops {
		if o.op == views.DiffSame && !near[k] {
			folded++
			continue
		}
		flush()
		out = append(out, views.DiffLine{Op: o.op, Text: o.m.text})
	}
	flush()
	return out
}

// labelUndos names each generation an undo made "undo": the store keeps it
// as a restore (what it did to the view), the rewind log says why.
func labelUndos(m views.TimelineModel, rewinds []store.Rewind) views.TimelineModel {
	undid := timetravel.MadeByUndo(rewinds)
	for i, g := range m.Generations {
		if undid[g.Gen] && g.Cause == string(store.CauseRestore) {
			m.Generations[i].Cause = "undo"
		}
	}
	return m
}

// viewEnd identifies an archived generation's view: two views that end at
// the same record are the same view (a view is a prefix of its parent's
// plus its own records), and every view without a message offers the
// same thing, an empty conversation.
type viewEnd struct {
	empty bool
	last  store.ViewPos
}

var viewEndCache sync.Map // branchKey{session, -2, gen} → viewEnd (archived views never change)

// foldSame folds the archived generations of m (after withBranches) whose
// views are the same into one row, the oldest, which lists the others
// (revert → undo → restore makes two generations of the start's view);
// generations without a message are not offered while another branch is,
// or when the live view has none either: restoring them gives nothing
// that /clear does not. Only the last record of each view is read, once.
func foldSame(ctx context.Context, db *store.DB, session string, liveMessages int, m views.TimelineModel) views.TimelineModel {
	first := map[viewEnd]int{} // view → index in m.Generations of its row
	emptyRow, others := -1, false
	for i, g := range m.Generations {
		if !g.Archived || g.Current || g.SameView {
			continue
		}
		end := viewEnd{empty: g.Messages == 0}
		if !end.empty {
			k := branchKey{session, -2, g.Gen}
			if c, ok := viewEndCache.Load(k); ok {
				end = c.(viewEnd)
			} else {
				v, err := db.ViewBefore(ctx, session, g.Gen, store.ViewPos{}, 1)
				if err != nil || len(v.Records) != 1 {
					others = true
					continue
				}
				end.last = store.ViewPos{SessionID: v.Records[0].SessionID, Seq: v.Records[0].Seq}
				viewEndCache.Store(k, end)
			}
		}
		if at, ok := first[end]; ok {
			m.Generations[i].Folded = true
			m.Generations[at].SameAs = append(m.Generations[at].SameAs, views.GenerationAlias{Gen: g.Gen, Cause: g.Cause})
			continue
		}
		first[end] = i
		if end.empty {
			emptyRow = i
		} else {
			others = true
		}
	}
	if emptyRow >= 0 && (others || liveMessages == 0) {
		m.Generations[emptyRow].Folded = true
	}
	return m
}
