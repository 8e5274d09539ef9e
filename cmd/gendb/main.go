package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rewind-agent/rewind/internal/gen"
)

func main() {
	out := flag.String("o", "", "database file to create (must not exist)")
	sessions := flag.Int("sessions", 10000, "number of sessions")
	records := flag.Int("records", 1000000, "number of context records in total")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 || *sessions <= 0 || *records < 0 {
		fmt.Fprintln(os.Stderr, "usage: gendb -o FILE [-sessions N>0] [-records N>=0]")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "gendb: %s exists; remove it or choose another name\n", *out)
		os.Exit(1)
	}
	start := time.Now()
	if err := gen.Generate(context.Background(), *out, *sessions, *records); err != nil {
		fmt.Fprintln(os.Stderr, "gendb:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: %d sessions, %d records in %s\n", *out, *sessions, *records, time.Since(start).Round(time.Millisecond))
}
