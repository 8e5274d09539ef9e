package app

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/llm"
)

// providerError phrases a failed model call; temporary failures that ran out
// of retries exit 75.
func providerError(le *llm.Error, cfg Config, sessionID string) error {
	msg, _ := describeProvider(le, cfg.BaseURL)
	code := ExitError
	if le.Temporary {
		code = ExitTempFailure
	}
	if sessionID != "" {
		msg += " (session " + sessionID + ")"
	}
	return &UserError{Msg: msg, Code: code, Err: le}
}

// describeProvider phrases an *llm.Error: what the server said and what to do.
// baseURL, when known, names the server.
func describeProvider(err error, baseURL string) (string, bool) {
	var le *llm.Error
	if !errors.As(err, &le) {
		return "", false
	}
	detail := oneLine(le.Message)
	if detail == "" && le.Err != nil {
		detail = oneLine(le.Err.Error())
	}
	var ne net.Error
	switch {
	case errors.Is(le, syscall.ECONNREFUSED):
		detail = "connection refused"
	case errors.Is(le, syscall.ECONNRESET):
		detail = "connection reset"
	case errors.As(le, &ne) && ne.Timeout():
		detail = "timed out"
	}
	server := "the model server"
	if baseURL != "" {
		server += " " + baseURL
	}
	var dnsErr *net.DNSError
	switch {
	case errors.Is(le, llm.ErrCallTimeout):
		return fmt.Sprintf("%s sent no complete answer in time (%s): try again later, or raise model_call_timeout", server, detail), true
	case errors.Is(le, llm.ErrEmptyAnswer):
		return fmt.Sprintf("the model returned an empty answer (no text, no tool calls), gave up after %s: try again, or check the model name (--model, REWIND_MODEL)", retries(le)), true
	case errors.Is(le, llm.ErrAnswerTooLarge):
		return detail, true
	case le.HTML:
		return detail + " (base_url in the config, OPENAI_BASE_URL or --base-url)", true
	case errors.As(le, &dnsErr):
		return detail, true
	case le.Status == 401 || le.Status == 403:
		return fmt.Sprintf("the model server refused the API key (HTTP %d: %s): check OPENAI_API_KEY or api_key", le.Status, detail), true
	case le.Status == 404:
		return fmt.Sprintf("the model server answered 404 (%s): check --base-url and --model", detail), true
	case le.Temporary && le.Status == 0:
		return fmt.Sprintf("cannot reach %s (%s), gave up after %s: check --base-url / OPENAI_BASE_URL and that the server is up", server, detail, retries(le)), true
	case le.Temporary:
		return fmt.Sprintf("%s kept failing (HTTP %d: %s), gave up after %s: try again later", server, le.Status, detail, retries(le)), true
	case le.Status != 0:
		return fmt.Sprintf("the model server rejected the request (HTTP %d: %s)", le.Status, detail), true
	}
	return "model call failed: " + detail, true
}

// retries says how many retries a failed call had, as the retry notes
// counted them.
func retries(le *llm.Error) string {
	return fmt.Sprintf("%d %s", le.Retries(), words.Plural(le.Retries(), "retry", "retries"))
}

// isTemporary reports a provider failure that might pass if tried later.
func isTemporary(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) && le.Temporary
}
