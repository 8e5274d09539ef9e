package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store/message"
)

// Defaults applied by New when the Config leaves a field zero.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultMaxRetries     = 3
	DefaultInitialBackoff = 300 * time.Millisecond
	DefaultMaxBackoff     = 5 * time.Second
	// MaxRetryAfter caps a server's Retry-After so that a confused proxy
	// asking for an hour cannot freeze a run.
	MaxRetryAfter = 60 * time.Second
	// DefaultStreamIdleTimeout: a stream that delivers no bytes for this long
	// is abandoned as a (temporary) timeout.
	DefaultStreamIdleTimeout = 3 * time.Minute
	// DefaultCallTimeout bounds one whole Chat call, retries included: a
	// server that sends keep-alive comments forever resets the idle timer
	// but never answers.
	DefaultCallTimeout = 10 * time.Minute
	// MaxStreamLine caps one line of an event stream. A chunk is a few
	// hundred bytes; a server sending an endless line must not take all
	// memory, so the call fails instead.
	MaxStreamLine = 16 << 20
	// DefaultMaxAnswerBytes caps the text and reasoning of one answer, and
	// DefaultMaxToolArgsBytes the arguments of its tool calls (one call's,
	// or all of them together): a server streaming forever in lines under
	// MaxStreamLine must not take all memory (40 lines of 12 MiB took 10 GB).
	DefaultMaxAnswerBytes   = 8 << 20
	DefaultMaxToolArgsBytes = 8 << 20
)

// Config says which server and model to talk to and how hard to try.
type Config struct {
	BaseURL string // default DefaultBaseURL; "/chat/completions" is appended
	APIKey  string
	Model   string
	Stream  bool // false: one JSON response per call (servers that cannot stream tool calls)
	// MaxRetries is the number of retries after the first attempt of one
	// Chat call: 0 means DefaultMaxRetries, a negative value means none.
	MaxRetries     int
	HTTPClient     *http.Client  // default: a client without an overall timeout (streams are long)
	InitialBackoff time.Duration // default 0.3 s
	MaxBackoff     time.Duration // default 5 s
	// CallTimeout is the overall deadline of one Chat call, retries
	// included; 0 means DefaultCallTimeout.
	CallTimeout time.Duration
	// ThinkingStyle is how this server is asked to think (Request.Thinking);
	// "" is StyleOpenAI.
	ThinkingStyle ThinkingStyle
	// MaxAnswerBytes and MaxToolArgsBytes cap one answer's text and
	// reasoning, and its tool calls' arguments; past either the call fails
	// with ErrAnswerTooLarge. 0 means DefaultMaxAnswerBytes,
	// DefaultMaxToolArgsBytes.
	MaxAnswerBytes   int
	MaxToolArgsBytes int
}

// ToolSpec describes one tool offered to the model.
type ToolSpec struct {
	Name, Description string
	Parameters        json.RawMessage // JSON schema; nil means an object without properties
}

// Request is one model call: the whole context and the tools on offer.
type Request struct {
	Messages []message.Message
	Tools    []ToolSpec
	// Thinking is the effort asked of the model; "" is off. How it is sent
	// depends on the provider's ThinkingStyle.
	Thinking Effort
}

// Callbacks receive the answer while it streams. Every field may be nil.
// They run on the goroutine that called Chat, in stream order.
//
// Deltas of an attempt that later fails have already been delivered: OnRetry
// is the signal that everything streamed since the previous OnRetry (or since
// Chat began) is void and the next attempt streams the whole answer again.
// When Chat returns an error, everything streamed is void as well.
type Callbacks struct {
	OnContent       func(text string)
	OnReasoning     func(text string)
	OnToolCallDelta func(index int, id, name, argsDelta string) // id and name are set on the first delta of a call
	OnRetry         func(attempt, max int, wait time.Duration, reason string)
}

// Usage is the token count of one call. Estimated is true when the server
// did not report it and EstimateTokens filled it in.
type Usage struct {
	PromptTokens, CompletionTokens, TotalTokens int
	Estimated                                   bool
}

// Response is the complete answer of one successful call.
type Response struct {
	Message      message.Message // role assistant; think part first when the model reasoned
	Usage        Usage
	FinishReason string
}

// Client is what the soul needs from a model provider.
type Client interface {
	Chat(ctx context.Context, req Request, cb Callbacks) (Response, error)
	Model() string
}

// Error is a failed model call. Temporary failures (connection trouble,
// timeouts, 408/429/5xx, empty or cut-off answers) were retried; Exhausted
// says the retries ran out. Other failures were not retried and Message is
// the provider's own explanation.
type Error struct {
	Status    int    // HTTP status, 0 when the failure was not an HTTP error status
	Message   string // the server's message or a description of what went wrong
	Temporary bool
	Exhausted bool
	// HTML: the server answered 2xx with a web page, so the base URL is not
	// an OpenAI-compatible API (a site, a portal, a proxy's page).
	HTML bool
	// Rejected names the capability (CapThinking, CapImageIn) whose part of
	// the request the server refused; "" for other failures.
	Rejected string
	Err      error // underlying error, if any

	retryAfter time.Duration // from a Retry-After header; 0 = none
	attempts   int
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("model call failed: ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d: ", e.Status)
	}
	b.WriteString(e.Message)
	if e.Exhausted {
		fmt.Fprintf(&b, " (gave up after %d %s)", e.Retries(), words.Plural(e.Retries(), "retry", "retries"))
	}
	return b.String()
}

// Retries is how many times the call was retried after its first attempt:
// the same count OnRetry's attempt reached, so status and error agree.
func (e *Error) Retries() int { return max(e.attempts-1, 0) }

func (e *Error) Unwrap() error { return e.Err }

// Provider is a Client for one OpenAI-compatible chat completions endpoint.
// It is safe for concurrent use.
type Provider struct {
	cfg      Config
	endpoint string
	hc       *http.Client

	// Learned server quirks, remembered for the Provider's lifetime.
	noStreamOptions atomic.Bool // the server rejected stream_options
	noReasoning     atomic.Bool // the server rejected reasoning_content in messages

	// Seams for tests.
	sleep       func(ctx context.Context, d time.Duration) error
	jitter      func() float64 // in [0,1)
	idleTimeout time.Duration
	maxLine     int
	readPace    time.Duration // pacedBody: 0 reads a stream as it comes
	// onStreamRead, when set, is told how many reads of a stream's body
	// were made and how many pauses taken before them (tests).
	onStreamRead func(reads, pauses int)
}

var _ Client = (*Provider)(nil)

// New checks cfg and returns a Provider. The errors name what to set.
func New(cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("no API key: set OPENAI_API_KEY (or KIMI_API_KEY for Moonshot/Kimi)")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("no model: set REWIND_MODEL or pass --model")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid base URL %q: want http(s)://host/…; set OPENAI_BASE_URL or pass --base-url", cfg.BaseURL)
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.InitialBackoff <= 0 {
		cfg.InitialBackoff = DefaultInitialBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.MaxAnswerBytes <= 0 {
		cfg.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if cfg.MaxToolArgsBytes <= 0 {
		cfg.MaxToolArgsBytes = DefaultMaxToolArgsBytes
	}
	if cfg.MaxBackoff < cfg.InitialBackoff {
		cfg.MaxBackoff = cfg.InitialBackoff
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Provider{
		cfg:         cfg,
		endpoint:    strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions",
		hc:          hc,
		sleep:       sleepCtx,
		jitter:      rand.Float64,
		idleTimeout: DefaultStreamIdleTimeout,
		maxLine:     MaxStreamLine,
		readPace:    StreamReadPace,
	}, nil
}

// StreamReadPace is the least time between two reads of a streamed
// answer that trickles in (pacedBody).
const StreamReadPace = 10 * time.Millisecond

// Model is the configured model name.
func (p *Provider) Model() string { return p.cfg.Model }

// Chat sends req and returns the complete answer, retrying temporary
// failures (retryableStatus, Config.MaxRetries). Cancelling ctx aborts the request or stream
// at once; the error then satisfies errors.Is(err, context.Canceled) (or
// context.DeadlineExceeded for a deadline).
//
// The whole call, retries included, must end within Config.CallTimeout;
// past it the call fails with a temporary, exhausted *Error.
func (p *Provider) Chat(ctx context.Context, req Request, cb Callbacks) (Response, error) {
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, p.cfg.CallTimeout, ErrCallTimeout)
	defer cancel()
	max := p.cfg.MaxRetries
	for attempt := 0; ; attempt++ {
		resp, err := p.attempt(ctx, req, cb)
		if err == nil {
			return resp, nil
		}
		if parent.Err() != nil {
			return Response{}, parent.Err()
		}
		if context.Cause(ctx) == ErrCallTimeout {
			return Response{}, p.callTimeoutError(attempt + 1)
		}
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Message: err.Error(), Err: err}
		}
		e.attempts = attempt + 1
		p.redact(e)
		if !e.Temporary {
			return Response{}, e
		}
		if attempt >= max {
			e.Exhausted = true
			return Response{}, e
		}
		wait := p.backoff(attempt, e.retryAfter)
		if cb.OnRetry != nil {
			cb.OnRetry(attempt+1, max, wait, e.reason())
		}
		if err := p.sleep(ctx, wait); err != nil {
			if parent.Err() == nil && context.Cause(ctx) == ErrCallTimeout {
				return Response{}, p.callTimeoutError(attempt + 1)
			}
			return Response{}, err
		}
	}
}

// ErrCallTimeout is wrapped by the *Error of a Chat call that passed its
// overall deadline (Config.CallTimeout).
var ErrCallTimeout = errors.New("model call deadline passed")

func (p *Provider) callTimeoutError(attempts int) *Error {
	return &Error{
		Message:   fmt.Sprintf("no complete answer within %s (the model_call_timeout); the server may be stuck sending keep-alives", p.cfg.CallTimeout),
		Temporary: true,
		Exhausted: true,
		Err:       ErrCallTimeout,
		attempts:  attempts,
	}
}

// redactedKey replaces the API key wherever a failure would print it.
const redactedKey = "[API key redacted]"

// redact removes the API key from a failure before anyone prints or stores
// it: some servers echo the key they refused ("invalid key sk-…"), and the
// message travels to the terminal, the event stream and logs.
func (p *Provider) redact(e *Error) {
	key := strings.TrimSpace(p.cfg.APIKey)
	if key == "" {
		return
	}
	e.Message = strings.ReplaceAll(e.Message, key, redactedKey)
	if e.Err != nil && strings.Contains(e.Err.Error(), key) {
		e.Err = errors.New(strings.ReplaceAll(e.Err.Error(), key, redactedKey))
	}
}

// backoff is the wait before retry number attempt+1: exponential from
// InitialBackoff, capped at MaxBackoff, with equal jitter (half fixed, half
// random) so that many clients do not retry in lockstep yet every wait is at
// least half the nominal one. A Retry-After from the server replaces the
// computed wait (capped at MaxRetryAfter): the server knows when it will
// have room.
func (p *Provider) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := p.cfg.InitialBackoff
	for i := 0; i < attempt && d < p.cfg.MaxBackoff; i++ {
		d *= 2
	}
	if d > p.cfg.MaxBackoff {
		d = p.cfg.MaxBackoff
	}
	half := d / 2
	wait := half + time.Duration(p.jitter()*float64(d-half))
	if retryAfter > 0 {
		if retryAfter > MaxRetryAfter {
			retryAfter = MaxRetryAfter
		}
		wait = retryAfter
	}
	return wait
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
