package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxToolName is the longest function name OpenAI-compatible APIs accept
// (names must match ^[a-zA-Z0-9_-]{1,64}$).
const maxToolName = 64

// ToolName is the name the model sees for tool on server:
// "mcp__" + server + "__" + tool, with every character outside
// [A-Za-z0-9_-] replaced by "_". A name longer than 64 characters is cut
// and ends in "_" and 8 hex digits of a hash of the exact server and tool
// names, so that two long names sharing a prefix stay apart.
func ToolName(server, tool string) string {
	name := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= maxToolName {
		return name
	}
	return name[:maxToolName-9] + "_" + shortHash(server, tool)
}

// uniqueName is ToolName, or, when taken is already used by another tool
// (two names that sanitise alike, such as "a.b" and "a_b"), the name with a
// hash suffix instead.
func uniqueName(server, tool string, taken map[string]bool) string {
	name := ToolName(server, tool)
	if !taken[name] {
		return name
	}
	suffix := "_" + shortHash(server, tool)
	if len(name)+len(suffix) > maxToolName {
		name = name[:maxToolName-len(suffix)]
	}
	return name + suffix
}

func sanitize(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}

func shortHash(server, tool string) string {
	h := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(h[:4])
}
