// Command genpeers writes a realistic codex home (or with -claude a Claude
// Code home) for trying and benchmarking `rewind import`:
// genpeers -o DIR [-claude] [-sessions 1000] [-records 1000000]. One
// session of 240,000 records is the large rollout of store/BENCHMARKS.md.
package main

import (
	"flag"

	"github.com/rewind-agent/rewind/internal/gen"
)

var claude = flag.Bool("claude", false, "write a Claude Code home (~/.claude) instead of a codex one (~/.codex)")

func main() {
	gen.Main("genpeers", "codex or Claude Code home", 1000, func(out string, sessions, records int) (int, error) {
		// A generated turn makes 8 records of codex's, 9 of Claude Code's.
		write, perTurn := gen.CodexHome, 8
		if *claude {
			write, perTurn = gen.ClaudeHome, 9
		}
		return write(out, sessions, max(records/sessions/perTurn, 1))
	})
}
