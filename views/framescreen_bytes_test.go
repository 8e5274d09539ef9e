package views

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/gdamore/tcell/v2/terminfo"
)

// termTty is a terminal that records what it is sent.
type termTty struct {
	mu   sync.Mutex
	out  bytes.Buffer
	w, h int
}

func (t *termTty) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.Write(p)
}

func (t *termTty) sent() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.Len()
}

func (*termTty) Read([]byte) (int, error) { return 0, io.EOF }
func (*termTty) Close() error             { return nil }
func (*termTty) Start() error             { return nil }
func (*termTty) Stop() error              { return nil }
func (*termTty) Drain() error             { return nil }
func (*termTty) NotifyResize(func())      {}
func (t *termTty) WindowSize() (tcell.WindowSize, error) {
	return tcell.WindowSize{Width: t.w, Height: t.h}, nil
}

// newTermFrameScreen is a FrameScreen over tcell's terminal screen for
// tmux (what streambench measures), writing to a recording tty.
func newTermFrameScreen(t testing.TB, w, h int) (*FrameScreen, *termTty) {
	t.Helper()
	ti, err := terminfo.LookupTerminfo("tmux-256color")
	if err != nil {
		t.Fatal(err)
	}
	tty := &termTty{w: w, h: h}
	s, err := tcell.NewTerminfoScreenFromTtyTerminfo(tty, ti)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFrameScreen(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Fini)
	return f, tty
}

// streamedAnswer is markdown as streambench streams it: sections of a
// heading, a paragraph with code spans and bold words, a list and a
// highlighted Go block, in words.
func streamedAnswer(sections int) []string {
	words := strings.Fields("the stream renders each block once and keeps it while the open tail is laid out again on every frame")
	var toks []string
	para := func(k, seed int) {
		for i := 0; i < k; i++ {
			w := words[(seed*7+i*3)%len(words)]
			switch i % 17 {
			case 5:
				w = "`" + w + "`"
			case 11:
				w = "**" + w + "**"
			}
			toks = append(toks, w+" ")
		}
		toks[len(toks)-1] = strings.TrimSpace(toks[len(toks)-1]) + ".\n\n"
	}
	for s := 1; s <= sections; s++ {
		toks = append(toks, "## ", fmt.Sprintf("Section %d\n\n", s))
		para(70, s)
		for i := 0; i < 4; i++ {
			toks = append(toks, "- ")
			para(12, s+i)
			toks[len(toks)-1] = strings.TrimSuffix(toks[len(toks)-1], "\n")
		}
		toks[len(toks)-1] += "\n```go\n"
		for i := 0; i < 12; i++ {
			toks = append(toks, "func ", fmt.Sprintf("f%d_%d", s, i), "(x ", "int) ", "int ", "{ ", "return ", "x ", "* ", fmt.Sprint(i), " }\n")
		}
		toks = append(toks, "```\n\n")
		para(50, s+3)
	}
	return toks
}

// TestStreamedAnswerSendsFewBytes: the bytes a streamed answer costs the
// terminal (tmux, 160x48, 100 tokens a frame as at 2,000 tokens/s and 20
// frames a second) stay near the text's own: the space between two new
// words is sent as a space, not a cursor move over it (6 to 8 bytes), and
// a space takes the colours of the cell before it, so a highlighted code
// row is not sent a reset and two colours for each space.
func TestStreamedAnswerSendsFewBytes(t *testing.T) {
	t.Parallel()
	const w, h = 160, 48
	f, tty := newTermFrameScreen(t, w, h)
	c := NewConversation()
	c.SetRect(0, 0, w, h)
	c.SetItems(sampleItems())
	frame(f, c)
	start := tty.sent()
	toks := streamedAnswer(6)
	text := 0
	for i, tok := range toks {
		c.AppendDelta(tok)
		text += len(strings.TrimSpace(tok)) + 1
		if i%100 == 99 || i == len(toks)-1 {
			frame(f, c)
		}
	}
	c.Settle()
	frame(f, c)
	tty.mu.Lock()
	out := tty.out.Bytes()[start:]
	tty.mu.Unlock()
	skips, colouredSpaces := shortSkips(out), colouredSpaces(out)
	t.Logf("%d tokens, %d bytes of text: %d bytes sent (%.2f a byte of text); %d short cursor moves, %d spaces sent their own colours",
		len(toks), text, len(out), float64(len(out))/float64(text), skips, colouredSpaces)
	if skips > 0 {
		t.Errorf("%d cursor moves skipped %d cells or fewer on a row: a plain cell costs a byte, the move 6 to 8", skips, maxGap)
	}
	if colouredSpaces > 0 {
		t.Errorf("%d spaces were sent colours of their own (a space shows only its background)", colouredSpaces)
	}
	// 93 kB before (10.9 a byte of text), 80 kB now: what remains is a
	// page move's repaint, the code rows' background and their colours
	if most := 95 * text / 10; len(out) > most {
		t.Errorf("the answer (%d bytes of text) sent the terminal %d bytes; want at most %d", text, len(out), most)
	}
}

var (
	sgrOrMove = regexp.MustCompile(`^\x1b\[([0-9;?]*)([A-Za-z])`)
	lone      = regexp.MustCompile("\x1b\\[[0-9;]*m \x1b\\[m")
)

// shortSkips counts the cursor moves in out that skip 1 to maxGap cells
// forward on the row the cursor is on, within a frame (every cell printed
// is one wide).
func shortSkips(out []byte) int {
	row, col, n := -1, -1, 0
	for i := 0; i < len(out); {
		if out[i] == 0x1b {
			m := sgrOrMove.FindSubmatch(out[i:])
			if m == nil {
				i++
				continue
			}
			if string(m[2]) == "H" {
				var r, c int
				fmt.Sscanf(string(m[1]), "%d;%d", &r, &c)
				if r == row && c-col >= 1 && c-col <= maxGap {
					n++
				}
				row, col = r, c
			} else if strings.HasPrefix(string(m[1]), "?") {
				row, col = -1, -1 // a frame's start: tcell assumes no position
			}
			i += len(m[0])
			continue
		}
		if out[i] >= 0x20 && (out[i] < 0x80 || out[i] >= 0xc0) {
			col++
		}
		i++
	}
	return n
}

// colouredSpaces counts a single space sent between two colour changes
// (tcell starts each with a reset).
func colouredSpaces(out []byte) int { return len(lone.FindAll(out, -1)) }
