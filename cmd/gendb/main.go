package main

import (
	"context"

	"github.com/rewind-agent/rewind/internal/gen"
)

func main() {
	gen.Main("gendb", "database file", 10000, func(out string, sessions, records int) (int, error) {
		return records, gen.Generate(context.Background(), out, sessions, records)
	})
}
