package app

import (
	"context"
	"errors"
	"fmt"
)

// This file is the one place where the CLI hands over to the full-screen
// workspace. The TUI controller replaces RunTUI (and the demo branch below)
// when it lands; nothing else in the CLI needs to change.

// TUIMode says which workspace the user asked for.
type TUIMode int

const (
	TUINew      TUIMode = iota // `rewind`: a new session in the work dir
	TUIContinue                // `rewind -c`: the newest session of the work dir
	TUIResume                  // `rewind --session ID`
	TUIWatch                   // `rewind watch [ID]`: read-only follow
	TUIDemo                    // `rewind demo`: scripted model, no key
)

// TUIOptions are what the workspace needs to start.
type TUIOptions struct {
	Mode      TUIMode
	SessionID string // TUIResume, TUIWatch ("" = newest live session)
	Runtime   *Runtime
}

// ErrNoTUI is returned while the workspace is not part of the build.
var ErrNoTUI = errors.New("the TUI is not built yet: use `rewind -p PROMPT` for a headless run, or `rewind sessions` / `rewind show ID` to browse history")

// RunTUI starts the workspace. It is a variable so that the TUI package can
// install itself without the CLI changing.
var RunTUI = func(ctx context.Context, opts TUIOptions) error {
	if opts.Mode == TUIDemo {
		_, err := fmt.Fprintln(opts.Runtime.Stdout, "rewind demo: the TUI workspace is coming; try `rewind -p` with a server")
		return err
	}
	return &UserError{Msg: ErrNoTUI.Error(), Err: ErrNoTUI}
}
