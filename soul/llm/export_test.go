package llm

import (
	"context"
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
