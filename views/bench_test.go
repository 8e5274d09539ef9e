package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rewind-agent/rewind/internal/benchtext"
	"github.com/rivo/tview"
)

func benchScreen(b *testing.B, p tview.Primitive, w, h int) tcell.SimulationScreen {
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		b.Fatal(err)
	}
	s.SetSize(w, h)
	p.SetRect(0, 0, w, h)
	return s
}

// BenchmarkConversationDraw is one frame of the conversation pane
// (200x60) following the bottom while a reply streams in: every frame a
// delta arrives, so the streaming item is laid out again; the rest is
// cached and only visible rows are drawn.
func BenchmarkConversationDraw(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := NewConversation()
			c.SetItems(manyItems(n))
			c.AppendDelta("Streaming answer with **markdown** and `code`. ")
			s := benchScreen(b, c, 200, 60)
			c.Draw(s)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.AppendDelta("more words ")
				c.Draw(s)
			}
		})
	}
}

// BenchmarkConversationDrawScrolled draws a frame in the middle of the
// history after a page scroll (new items laid out lazily).
func BenchmarkConversationDrawScrolled(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			c := NewConversation()
			c.SetItems(manyItems(n))
			s := benchScreen(b, c, 200, 60)
			c.Draw(s)
			c.Select(n / 2)
			c.Draw(s)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%2 == 0 {
					c.Scroll(-30)
				} else {
					c.Scroll(30)
				}
				c.Draw(s)
			}
		})
	}
}

// BenchmarkConversationFirstFrame is the first frame after loading n
// items (nothing cached yet).
func BenchmarkConversationFirstFrame(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		items := manyItems(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := tcell.NewSimulationScreen("UTF-8")
			if err := s.Init(); err != nil {
				b.Fatal(err)
			}
			s.SetSize(200, 60)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c := NewConversation()
				c.SetItems(items)
				c.SetRect(0, 0, 200, 60)
				c.Draw(s)
			}
		})
	}
}

// BenchmarkSessionListFilter is one keystroke of the fuzzy filter over
// 10,000 sessions (alternating a fresh query and an extension of it).
func BenchmarkSessionListFilter(b *testing.B) {
	l := NewSessionList()
	l.SetSessions(manySessions(10000))
	queries := []string{"r", "re", "ref", "refa", "refac", "refact", "p", "pa", "par", "pars"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.SetFilter(queries[i%len(queries)])
	}
}

// BenchmarkSessionListFilterFresh is the worst case: every keystroke a
// new query over all 10,000 sessions.
func BenchmarkSessionListFilterFresh(b *testing.B) {
	l := NewSessionList()
	l.SetSessions(manySessions(10000))
	queries := []string{"rfct", "prsr", "dlck", "tmln", "mgrt"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.SetFilter("")
		l.SetFilter(queries[i%len(queries)])
	}
}

// BenchmarkSessionListDraw draws the list of 10,000 sessions, filtered.
func BenchmarkSessionListDraw(b *testing.B) {
	l := NewSessionList()
	l.SetSessions(manySessions(10000))
	l.SetFilter("tl")
	s := benchScreen(b, l, 200, 60)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.Draw(s)
	}
}

// BenchmarkTimelineDraw draws a timeline of 1,000 checkpoints and 100
// archived branches.
func BenchmarkTimelineDraw(b *testing.B) {
	t := NewTimeline()
	t.SetModel(bigTimeline(1000))
	s := benchScreen(b, t, 80, 40)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t.Draw(s)
	}
}

// BenchmarkTimelineSetModel rebuilds the rows of 1,000 checkpoints.
func BenchmarkTimelineSetModel(b *testing.B) {
	t := NewTimeline()
	m := bigTimeline(1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t.SetModel(m)
	}
}

// BenchmarkWorkspaceDraw is a full 200x60 frame of the workspace.
func BenchmarkWorkspaceDraw(b *testing.B) {
	ws := newTestWorkspace()
	ws.Conversation.SetItems(manyItems(10000))
	ws.Sessions.SetSessions(manySessions(10000))
	ws.Timeline.SetModel(bigTimeline(1000))
	s := benchScreen(b, ws, 200, 60)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ws.Conversation.AppendDelta("tok ")
		ws.Draw(s)
	}
}

// BenchmarkConversationStreamLongReply is one frame while a long reply
// (~40 KB: prose and several large fenced Go blocks) is streaming: the
// reply is laid out again every frame.
func BenchmarkConversationStreamLongReply(b *testing.B) {
	c := NewConversation()
	c.SetItems(manyItems(1000))
	var sb strings.Builder
	for k := 0; k < 4; k++ {
		sb.WriteString("Here is **part** of the change, with `inline code` and a list:\n\n- first\n- second\n\n```go\n")
		for j := 0; j < 100; j++ {
			fmt.Fprintf(&sb, "func f%d(x int) (int, error) { if x > %d { return x * 2, nil }; return 0, fmt.Errorf(\"bad %%d\", x) }\n", j, j)
		}
		sb.WriteString("```\n\n")
	}
	c.AppendDelta(sb.String())
	s := benchScreen(b, c, 200, 60)
	c.Draw(s)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.AppendDelta("word ")
		c.Draw(s)
	}
}

// BenchmarkStreamAnswerFrames draws a 4,000-token answer shaped like
// cmd/streambench's in a 160x48 conversation, a frame per 100 tokens (2,000
// tokens/s at 20 frames/s); ns/token is the UI's share of a token's cost.
func BenchmarkStreamAnswerFrames(b *testing.B) {
	toks := benchtext.Answer(4000) // cmd/streambench's answer
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := NewConversation()
		c.Append(Item{Kind: ItemUser, Text: "go"})
		s := benchScreen(b, c, 160, 48)
		for j, t := range toks {
			c.AppendDelta(t)
			if j%100 == 99 {
				c.Draw(s)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(toks)), "ns/token")
}

// BenchmarkFrameScreenStreamAnswer is BenchmarkStreamAnswerFrames through
// the FrameScreen over tmux's terminal screen, as the product draws: each
// frame is tview's clear, the conversation's draw and the flush of the
// changed cells.
func BenchmarkFrameScreenStreamAnswer(b *testing.B) {
	toks := benchtext.Answer(4000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, _ := newTermFrameScreen(b, 160, 48)
		c := NewConversation()
		c.Append(Item{Kind: ItemUser, Text: "go"})
		c.SetRect(0, 0, 160, 48)
		for j, t := range toks {
			c.AppendDelta(t)
			if j%100 == 99 {
				frame(f, c)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(toks)), "ns/token")
}

// BenchmarkFrameScreenFrame is the FrameScreen's own share of a frame: a
// clear, every cell of a 160x48 screen set (a background, then text in a
// few styles) and the flush of the one changed row.
func BenchmarkFrameScreenFrame(b *testing.B) {
	f, _ := newTermFrameScreen(b, 160, 48)
	bg := tcell.StyleDefault.Background(tcell.ColorNavy)
	styles := []tcell.Style{bg, bg.Foreground(tcell.ColorYellow), bg.Bold(true), bg.Foreground(tcell.ColorGreen)}
	draw := func(n int) {
		f.Clear()
		for y := 0; y < 48; y++ {
			for x := 0; x < 160; x++ {
				f.SetContent(x, y, ' ', nil, bg)
			}
			for x := 0; x < 150; x++ {
				f.SetContent(x, y, 'a'+rune((x+y)%26), nil, styles[(x/7)%len(styles)])
			}
		}
		f.SetContent(n%160, 47, 'z', nil, bg)
		f.Show()
	}
	draw(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		draw(i)
	}
}
