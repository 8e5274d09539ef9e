package benchtext

import (
	"fmt"
	"strconv"
	"strings"
)

// Answer is n tokens of a markdown answer: sections of a heading, a
// 70-word paragraph with code spans and bold, a four-item list, a 12-line
// Go block and a 50-word paragraph. A shorter answer is a prefix of a
// longer one.
func Answer(n int) []string {
	words := strings.Fields("the stream renders each block once and keeps it while the open tail is laid out again on every frame so the cost of a token stays flat however long the answer grows and the terminal gets only the cells that changed")
	var toks []string
	para := func(k, seed int) {
		for i := 0; i < k; i++ {
			w := words[(seed*7+i*3)%len(words)]
			switch i % 17 {
			case 5:
				w = "`" + w + "`"
			case 11:
				w = "**" + w + "**"
			}
			toks = append(toks, w+" ")
		}
		toks[len(toks)-1] = strings.TrimSpace(toks[len(toks)-1]) + ".\n\n"
	}
	for s := 1; len(toks) < n; s++ {
		toks = append(toks, "## ", "Section ", strconv.Itoa(s)+"\n\n")
		para(70, s)
		for i := 0; i < 4; i++ {
			toks = append(toks, "- ")
			para(12, s+i)
			toks[len(toks)-1] = strings.TrimSuffix(toks[len(toks)-1], "\n")
		}
		toks[len(toks)-1] += "\n"
		toks = append(toks, "```go\n")
		for i := 0; i < 12; i++ {
			toks = append(toks, "func ", fmt.Sprintf("f%d_%d", s, i), "(x ", "int) ", "int ", "{ ", "return ", "x ", "* ", strconv.Itoa(i), " }\n")
		}
		toks = append(toks, "```\n\n")
		para(50, s+3)
	}
	return toks[:n]
}
