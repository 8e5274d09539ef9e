package app

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressBar draws one line of progress on a terminal (nothing
// elsewhere), at most every 100 ms; notes print above it.
type progressBar struct {
	w     io.Writer
	tty   bool
	last  time.Time
	shown bool
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w, tty: isTerminal(w)} }

func (p *progressBar) update(done, total int64) {
	if !p.tty || time.Since(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last = time.Now()
	const width = 30
	frac := 1.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	n := int(frac * width)
	fmt.Fprintf(p.w, "\r[%s%s] %3.0f%% %.1f/%.1f MB", strings.Repeat("█", n), strings.Repeat("░", width-n), frac*100,
		float64(done)/1e6, float64(total)/1e6)
	p.shown = true
}

// note prints a line, keeping the bar below it.
func (p *progressBar) note(s string) {
	p.clear()
	fmt.Fprintln(p.w, s)
}

func (p *progressBar) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// done removes the bar.
func (p *progressBar) done() { p.clear() }
