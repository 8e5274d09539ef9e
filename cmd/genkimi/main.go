package main

import "github.com/rewind-agent/rewind/internal/gen"

func main() {
	gen.Main("genkimi", "kimi-cli share dir", 1000, gen.KimiShare)
}
