package soul

import (
	_ "embed"
	"strings"
)

// compactPrompt is the instruction appended to the messages being compacted.
//
//go:embed prompts/compact.md
var compactPrompt string

// initPrompt is what /init asks the model: explore the project and write
// (or improve) its AGENTS.md.
//
//go:embed prompts/init.md
var initPrompt string

// InitPrompt is initPrompt, trimmed.
func InitPrompt() string { return strings.TrimSpace(initPrompt) }
