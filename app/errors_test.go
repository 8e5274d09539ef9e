package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/store"
)

func TestExitCodesAndLines(t *testing.T) {
	t.Parallel()
	held := fmt.Errorf("store: acquire lease: %w", fmt.Errorf("%w (pid 4242 on box)", store.ErrLeaseHeld))
	cases := []struct {
		name  string
		err   error
		code  int
		wants []string
	}{
		{"usage", Usage(errors.New("unknown flag: --x")), ExitUsage, []string{"unknown flag: --x", "rewind --help"}},
		{"user", userErrorf(nil, "no API key: set OPENAI_API_KEY"), ExitError, []string{"no API key"}},
		{"user with code", &UserError{Msg: "interrupted", Code: ExitInterrupted}, ExitInterrupted, []string{"interrupted"}},
		{"canceled", fmt.Errorf("run: %w", context.Canceled), ExitInterrupted, []string{"interrupted"}},
		{"temporary provider", &llm.Error{Status: 503, Message: "busy", Temporary: true, Exhausted: true}, ExitTempFailure, []string{"HTTP 503", "busy", "try again later"}},
		{"unreachable", &llm.Error{Message: "dial tcp: connection refused", Temporary: true, Exhausted: true}, ExitTempFailure, []string{"cannot reach", "--base-url"}},
		{"empty answer", &llm.Error{Message: "empty response: no content and no tool calls", Temporary: true, Exhausted: true, Err: llm.ErrEmptyAnswer}, ExitTempFailure, []string{"the model returned an empty answer", "model name"}},
		{"answer too large", &llm.Error{Message: "the model's answer passed 8 MiB (answer_size_cap) and was stopped", Err: llm.ErrAnswerTooLarge}, ExitError, []string{"answer_size_cap"}},
		{"bad key", &llm.Error{Status: 401, Message: "invalid key"}, ExitError, []string{"refused the API key", "OPENAI_API_KEY"}},
		{"other 4xx", &llm.Error{Status: 400, Message: "bad tool schema"}, ExitError, []string{"HTTP 400", "bad tool schema"}},
		{"session sentinel", fmt.Errorf("store: get: %w", store.ErrSessionNotFound), ExitError, []string{"no such session", "rewind sessions"}},
		{"not a database", fmt.Errorf("store: open: %w", store.ErrNotDatabase), ExitError, []string{"not a rewind database", "unchanged"}},
		{"newer schema", fmt.Errorf("store: open: %w", store.ErrNewerSchema), ExitError, []string{"newer rewind", "upgrade"}},
		{"lease", held, ExitError, []string{"another rewind process", "rewind watch"}},
		{"busy", errors.New("store: append: database is locked"), ExitError, []string{"locked", "try again"}},
		{"multi-line", errors.New("first\nsecond\x1b[2J"), ExitError, []string{"first second^[[2J"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExitCode(tc.err); got != tc.code {
				t.Errorf("ExitCode = %d, want %d", got, tc.code)
			}
			line := ErrorLine(tc.err)
			if !strings.HasPrefix(line, "rewind: ") || strings.ContainsAny(line, "\n\x1b") {
				t.Errorf("not one safe line: %q", line)
			}
			for _, w := range tc.wants {
				if !strings.Contains(line, w) {
					t.Errorf("%q lacks %q", line, w)
				}
			}
		})
	}
	if ExitCode(nil) != ExitOK {
		t.Error("nil error is not exit 0")
	}
}

func TestStoreErrorNamesWhatWasAsked(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err   error
		wants []string
	}{
		{fmt.Errorf("x: %w", store.ErrSessionNotFound), []string{`no session matches "ab12"`, "rewind sessions"}},
		{fmt.Errorf("x: %w", store.ErrAmbiguousID), []string{`more than one session starts with "ab12"`}},
		{fmt.Errorf("x: %w", store.ErrCheckpointNotFound), []string{"has no checkpoint 9", "rewind show ab12"}},
		{fmt.Errorf("x: %w", store.ErrGenerationNotFound), []string{"has no checkpoint 9", "rewind generations ab12"}},
		{fmt.Errorf("x: %w (pid 7 on h)", store.ErrLeaseHeld), []string{"pid 7 on h", "rewind watch ab12"}},
	}
	for _, tc := range cases {
		line := ErrorLine(storeError(tc.err, "ab12", "checkpoint 9"))
		for _, w := range tc.wants {
			if !strings.Contains(line, w) {
				t.Errorf("%q lacks %q", line, w)
			}
		}
	}
	if storeError(nil, "x", "") != nil {
		t.Error("storeError(nil) is not nil")
	}
}

func TestCompactedRegionNamesTheGenerationToRestore(t *testing.T) {
	t.Parallel()
	err := storeError(fmt.Errorf("plan: %w", &timetravel.CompactedError{Checkpoint: 4, Source: 2}), "01abc", "checkpoint 4")
	got := ErrorLine(err)
	for _, want := range []string{"checkpoint 4 of session 01abc", "replaced by compaction", "rewind restore 01abc 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if ExitCode(err) == 0 || strings.Contains(got, "\n") {
		t.Errorf("exit %d, line %q", ExitCode(err), got)
	}
}
