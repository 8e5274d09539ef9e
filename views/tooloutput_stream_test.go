package views

import (
	"fmt"
	"strings"
	"testing"
)

// streamLines feeds o n lines of command output (every seventh long
// enough to wrap) in chunks of chunk lines, calling frame after each.
func streamLines(o *ToolOutput, n, chunk int, frame func(last int)) {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of the build's output", i)
		if i%7 == 0 {
			b.WriteString(strings.Repeat(" and a long tail", 15))
		}
		b.WriteByte('\n')
		if i%chunk == 0 || i == n {
			o.AppendOutput(b.String())
			b.Reset()
			frame(i)
		}
	}
}

// TestStreamedToolOutputFrameCostIsFlat: a command printing 20,000 lines
// into the tool pane costs each frame the same work however much it
// printed before: a frame lays out the rows it shows (and finds the
// bottom from the end), never the output kept above them, and the newest
// line is on screen. (A 10-row pane: a frame's cells are most of the
// test's cost, and the bound scales with the rows.)
func TestStreamedToolOutputFrameCostIsFlat(t *testing.T) {
	t.Parallel()
	const w, h = 100, 10
	o := NewToolOutput()
	o.SetTheme(dark)
	o.SetTool(ToolCallInfo{ID: "c1", Name: "Shell", Args: "make all", Status: ToolRunning})
	s := draw(t, o, w, h)
	var perFrame []int
	streamLines(o, 20000, 50, func(last int) {
		before := o.laidOut
		redraw(s, o)
		perFrame = append(perFrame, o.laidOut-before)
		if last%5000 == 0 {
			if _, _, ok := find(s, fmt.Sprintf("line %d of", last)); !ok {
				t.Fatalf("after %d lines the newest is not on screen:\n%s", last, screenText(s))
			}
		}
	})
	most := 0
	for _, n := range perFrame {
		most = max(most, n)
	}
	if most > 2*h {
		t.Fatalf("a frame laid out %d lines; a %d-row pane needs at most %d (the shown rows, twice)", most, h, 2*h)
	}
	quarter := func(q int) int {
		sum := 0
		part := perFrame[q*len(perFrame)/4 : (q+1)*len(perFrame)/4]
		for _, n := range part {
			sum += n
		}
		return sum / len(part)
	}
	if first, last := quarter(0), quarter(3); last > first*5/4 || last < first*3/4 {
		t.Fatalf("lines laid out a frame: %d in the first quarter, %d in the last (want within ±25%%)", first, last)
	}
	lines, dropped := o.Lines()
	if len(lines) != DefaultToolOutputLines || dropped != 20000-DefaultToolOutputLines {
		t.Fatalf("kept %d lines and dropped %d; want the last %d kept", len(lines), dropped, DefaultToolOutputLines)
	}
	if lines[len(lines)-1] != "line 20000 of the build's output" {
		t.Fatalf("the last line kept is %q", lines[len(lines)-1])
	}
}

// BenchmarkToolOutputStream is one frame of the tool pane (120x30) while a
// command streams 50 lines a frame, after 1,000 and after 20,000 lines.
func BenchmarkToolOutputStream(b *testing.B) {
	for _, before := range []int{1000, 20000} {
		b.Run(fmt.Sprint(before), func(b *testing.B) {
			o := NewToolOutput()
			o.SetTool(ToolCallInfo{ID: "c1", Name: "Shell", Status: ToolRunning})
			s := benchScreen(b, o, 120, 30)
			streamLines(o, before, 500, func(int) {})
			chunk := strings.Repeat("another line of the build's output\n", 50)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				o.AppendOutput(chunk)
				o.Draw(s)
			}
		})
	}
}
