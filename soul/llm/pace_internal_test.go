package llm

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestPacedBodyReadsABurstWithoutPauses: a body whose data is there when
// asked (a burst, a server that buffered the answer) is read without
// pauses; paced per read, 1 MiB in 4 KiB reads would take 256 pauses
// (2.5 s). The body is in memory so that the data is there by
// construction: through a real server the test measured whether the
// server kept ahead of the client, which a loaded machine under -race
// does not (12 pauses in 43 reads).
func TestPacedBodyReadsABurstWithoutPauses(t *testing.T) {
	t.Parallel()
	answer := strings.Repeat("0123456789abcdef", 1<<16)
	b := newPacedBody(context.Background(), strings.NewReader(answer), StreamReadPace)
	defer b.stop()
	var got bytes.Buffer
	buf := make([]byte, 4<<10)
	for {
		n, err := b.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got.String() != answer {
		t.Fatal("the body read differs")
	}
	// A read preempted for over readWaited counts as one that waited and
	// pauses the next: rare, never one in four.
	if b.pauses > b.reads/4 {
		t.Fatalf("%d pauses in %d reads of a burst", b.pauses, b.reads)
	}
}

// TestPacedBodyPausesAfterAWait: a read that had to wait for the network
// is followed by a pause until the pace has passed since it
// returned, so what trickles in meanwhile is read at once.
func TestPacedBodyPausesAfterAWait(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	const pace = 200 * time.Millisecond // longer than any stall between two reads on a loaded machine
	b := newPacedBody(context.Background(), pr, pace)
	defer b.stop()
	go func() {
		time.Sleep(2 * readWaited) // why: the first read must wait for the network, which is what a pause follows
		pw.Write([]byte("a"))
		pw.Write([]byte("b"))
		pw.Close()
	}()
	buf := make([]byte, 16)
	if n, err := b.Read(buf); err != nil || string(buf[:n]) != "a" {
		t.Fatalf("first read: %q %v", buf[:n], err)
	}
	returned := time.Now()
	if _, err := b.Read(buf); err != nil {
		t.Fatal(err)
	}
	if b.pauses != 1 {
		t.Fatalf("%d pauses after a read that waited, want 1", b.pauses)
	}
	if d := time.Since(returned); d < pace/2 {
		t.Fatalf("the read after a wait came %v later, before the pace (%v)", d, pace)
	}
}
