package llm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrAnswerTooLarge is wrapped by the *Error of an answer whose text and
// reasoning passed Config.MaxAnswerBytes, or whose tool calls' arguments
// passed Config.MaxToolArgsBytes. It is not retried: the same question
// would get the same answer.
var ErrAnswerTooLarge = errors.New("answer too large")

// ErrEmptyAnswer is wrapped by the *Error of an answer with neither text
// nor tool calls: the server was reached and answered, with nothing.
var ErrEmptyAnswer = errors.New("empty answer")

// retryableStatus reports whether an HTTP status is worth retrying
// 408, 429, 500, 502, 503, 504 and Cloudflare's 520–529.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return code >= 520 && code <= 529
}

// statusError turns a non-2xx response into an *Error carrying the server's
// message and any Retry-After.
func statusError(resp *http.Response, body []byte) *Error {
	msg := serverMessage(body)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
		if msg == "" {
			msg = resp.Status
		}
	}
	return &Error{
		Status:     resp.StatusCode,
		Message:    msg,
		Temporary:  retryableStatus(resp.StatusCode),
		retryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
}

// serverMessage digs the human-readable message out of an error body:
// {"error":{"message":…}}, {"error":"…"}, {"message":…}, {"detail":…}, or the
// body text itself (trimmed to a line's worth).
func serverMessage(body []byte) string {
	body = []byte(strings.TrimSpace(string(body)))
	if len(body) == 0 {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil {
		if raw, ok := obj["error"]; ok {
			if m := errorObjectMessage(raw); m != "" {
				return m
			}
		}
		for _, k := range []string{"message", "detail", "msg"} {
			if raw, ok := obj[k]; ok {
				var s string
				if json.Unmarshal(raw, &s) == nil && s != "" {
					return s
				}
				return string(raw)
			}
		}
	}
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// apiError is the lenient shape of an OpenAI-style error object.
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

func decodeErrorObject(raw json.RawMessage) (apiError, bool) {
	var e apiError
	if err := json.Unmarshal(raw, &e); err == nil {
		if e.Message == "" {
			var msgs []string // some servers send a list of messages
			var list struct {
				Message []string `json:"message"`
			}
			if json.Unmarshal(raw, &list) == nil {
				msgs = list.Message
			}
			e.Message = strings.Join(msgs, ", ")
		}
		return e, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return apiError{Message: s}, true
	}
	return apiError{}, false
}

func errorObjectMessage(raw json.RawMessage) string {
	e, ok := decodeErrorObject(raw)
	if !ok {
		return strings.TrimSpace(string(raw))
	}
	if e.Message == "" {
		if e.Type != "" {
			return e.Type
		}
		return strings.TrimSpace(string(raw))
	}
	return e.Message
}

// streamError turns an error object found inside a 200 response (an SSE
// event or a JSON body) into an *Error. It is temporary when the object
// looks like a server-side or rate-limit problem: a numeric code in the
// retryable set, or a type/code naming overload, rate limits, timeouts or
// server errors. Anything else (invalid request, content policy, …) fails at
// once with the server's message.
func streamError(raw json.RawMessage) *Error {
	e, _ := decodeErrorObject(raw)
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(string(raw))
	}
	out := &Error{Message: "error in response: " + msg}
	var code int
	if json.Unmarshal(e.Code, &code) == nil && code != 0 {
		if code >= 100 && code <= 599 {
			out.Status = code
		}
		out.Temporary = retryableStatus(code)
	} else {
		var s string
		_ = json.Unmarshal(e.Code, &s)
		if n, err := strconv.Atoi(s); err == nil {
			out.Temporary = retryableStatus(n)
		}
		hint := strings.ToLower(e.Type + " " + s)
		for _, w := range []string{"server_error", "overload", "rate_limit", "timeout", "unavailable", "internal"} {
			if strings.Contains(hint, w) {
				out.Temporary = true
			}
		}
	}
	return out
}

// parseRetryAfter reads a Retry-After value: delay seconds (fractions
// accepted, for fake servers and tests) or an HTTP date. Bad or past values
// give 0 (no preference).
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 || secs != secs {
			return 0
		}
		if secs > MaxRetryAfter.Seconds() {
			return MaxRetryAfter
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, MaxRetryAfter)
		}
	}
	return 0
}

// transportError classifies an error from sending the request or reading
// the response. Connection refused/reset, EOF, broken pipes and timeouts are
// temporary; TLS/certificate failures, unknown hosts and bad URLs are not.
func transportError(err error, what string) *Error {
	e := &Error{Message: fmt.Sprintf("%s: %v", what, err), Err: err, Temporary: true}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		e.Temporary = false
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &recordErr):
		e.Temporary = false
	case strings.Contains(err.Error(), "unsupported protocol scheme"):
		e.Temporary = false
	}
	return e
}

// reason is the short text OnRetry receives.
func (e *Error) reason() string {
	switch {
	case e.Status != 0 && e.Message != "":
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
	case e.Status != 0:
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return e.Message
}

// ctxError prefers the context's own error once it is done, so callers can
// test errors.Is(err, context.Canceled).
func ctxError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
