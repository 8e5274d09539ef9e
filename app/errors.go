package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Exit codes of the rewind binary.
const (
	ExitOK          = 0
	ExitError       = 1  // user or runtime error
	ExitUsage       = 2  // bad flags or arguments
	ExitTempFailure = 75 // EX_TEMPFAIL: retries ran out on a temporary failure
	ExitInterrupted = 130
)

// UserError is an error whose message is already the one sentence the user
// should read (without the "rewind: " prefix).
type UserError struct {
	Msg  string
	Code int // exit code; 0 means ExitError
	Err  error
}

func (e *UserError) Error() string { return e.Msg }
func (e *UserError) Unwrap() error { return e.Err }

func userErrorf(cause error, format string, args ...any) error {
	return &UserError{Msg: fmt.Sprintf(format, args...), Err: cause}
}

// UsageError marks a bad command line; the binary exits 2. Command, when
// set, is the command whose help the message points to ("rewind sessions").
type UsageError struct {
	Err     error
	Command string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage wraps err as a usage error (nil stays nil).
func Usage(err error) error {
	var ue *UsageError
	if err == nil || errors.As(err, &ue) {
		return err
	}
	return &UsageError{Err: err}
}

// UsageIn is Usage for a bad command line of one subcommand: the message
// points to that command's help.
func UsageIn(command string, err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err, Command: command}
}

// ExitCode maps an error returned by a subcommand to the process exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	var u *UserError
	if errors.As(err, &u) && u.Code != 0 {
		return u.Code
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	if isTemporary(err) {
		return ExitTempFailure
	}
	return ExitError
}

// ErrorLine renders err as the single line printed on stderr.
func ErrorLine(err error) string {
	var ue *UsageError
	if errors.As(err, &ue) {
		help := ue.Command
		if help == "" {
			help = "rewind"
		}
		return "rewind: " + oneLine(ue.Err.Error()) + " (see `" + help + " --help`)"
	}
	var u *UserError
	if errors.As(err, &u) {
		return "rewind: " + oneLine(u.Msg)
	}
	if errors.Is(err, context.Canceled) {
		return "rewind: interrupted"
	}
	return "rewind: " + oneLine(describe(err))
}

// oneLine collapses a multi-line message and strips control characters so
// that an error is always exactly one safe line.
func oneLine(s string) string {
	if plainLine(s) {
		return s
	}
	s = sanitize(s)
	fields := strings.Fields(s)
	return strings.Join(fields, " ")
}

// plainLine reports whether oneLine leaves s as it is: printable ASCII,
// words separated by single spaces (most names, ids and arguments).
func plainLine(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' {
			if i == 0 || i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
		} else if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// sanitize replaces terminal control characters (ESC, C0 and C1 controls
// other than newline and tab) so that text from models, tools or files never
// reaches the terminal raw.
func sanitize(s string) string {
	if !hasControl(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == 0x1b:
			b.WriteString("^[")
		case isControl(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hasControl reports whether s holds a rune isControl matches, reading
// bytes, not runes: C0 controls and DEL are single bytes, and the C1
// controls U+0080–U+009F are 0xC2 followed by 0x80–0x9F (a byte that is
// not valid UTF-8 decodes as U+FFFD, which is no control).
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c-0x20 < 0x7f-0x20 {
			continue // printable ASCII, most of any text: one test
		}
		switch {
		case c < 0x20:
			if c != '\n' && c != '\t' {
				return true
			}
		case c == 0x7f:
			return true
		case c == 0xc2:
			if i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0 {
				return true
			}
		}
	}
	return false
}

func isControl(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)
}
