package soul

import (
	_ "embed"
	"runtime"
	"strings"
)

//go:embed prompts/system.md
var defaultSystemPrompt string

//go:embed prompts/compact.md
var compactPrompt string

// DefaultSystemPrompt is the system prompt used when Config.SystemPrompt is
// empty. ${WORK_DIR} and ${OS} are filled in by New (also in a custom prompt).
func DefaultSystemPrompt() string { return defaultSystemPrompt }

// CompactPrompt is the instruction appended to the messages being compacted.
func CompactPrompt() string { return compactPrompt }

func expandPrompt(p, workDir string) string {
	return strings.NewReplacer("${WORK_DIR}", workDir, "${OS}", runtime.GOOS+"/"+runtime.GOARCH).Replace(p)
}
