package live

import (
	"net"
	"time"
)

// progressChunk is the most a deadlineWriter writes under one deadline.
const progressChunk = 16 << 10

// deadlineWriter bounds each chunk it writes, not a whole line: a peer
// taking a long line (a step's replay of a megabyte) steadily is not
// dropped for the line's length; one that takes nothing for timeout is.
// by, when set, is one deadline for all that follows (the last flush of a
// closing writer, which must not wait on a slow watcher).
type deadlineWriter struct {
	conn    net.Conn
	timeout time.Duration
	by      time.Time
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		deadline := d.by
		if deadline.IsZero() {
			deadline = time.Now().Add(d.timeout)
		}
		d.conn.SetWriteDeadline(deadline)
		n, err := d.conn.Write(p[:min(len(p), progressChunk)])
		written += n
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}
