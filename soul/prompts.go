package soul

import (
	_ "embed"
	"runtime"
	"strings"
)

// defaultSystemPrompt is the system prompt used when Config.SystemPrompt is
// empty. ${WORK_DIR} and ${OS} are filled in by New (also in a custom prompt).
//
//go:embed prompts/system.md
var defaultSystemPrompt string

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

func expandPrompt(p, workDir string) string {
	return strings.NewReplacer("${WORK_DIR}", workDir, "${OS}", runtime.GOOS+"/"+runtime.GOARCH).Replace(p)
}
