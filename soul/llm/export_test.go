package llm

import (
	"context"
	"sync/atomic"
	"time"
)

// SetTestHooks replaces the sleep, jitter and stream idle timeout of p.
func SetTestHooks(p *Provider, sleep func(context.Context, time.Duration) error, jitter func() float64, idle time.Duration) {
	if sleep != nil {
		p.sleep = sleep
	}
	if jitter != nil {
		p.jitter = jitter
	}
	if idle > 0 {
		p.idleTimeout = idle
	}
}

var ParseRetryAfter = parseRetryAfter

func (p *Provider) Backoff(attempt int, retryAfter time.Duration) time.Duration {
	return p.backoff(attempt, retryAfter)
}

// CountStreamReads makes p add each stream's reads and pauses (pacedBody)
// to the counters.
func CountStreamReads(p *Provider, reads, pauses *atomic.Int64) {
	p.onStreamRead = func(r, ps int) { reads.Add(int64(r)); pauses.Add(int64(ps)) }
}
