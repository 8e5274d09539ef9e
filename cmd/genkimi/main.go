package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/rewind-agent/rewind/internal/gen"
)

func main() {
	out := flag.String("o", "", "share dir to create (must not exist)")
	sessions := flag.Int("sessions", 1000, "number of sessions")
	records := flag.Int("records", 1000000, "number of context lines in total")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 || *sessions <= 0 || *records < 0 {
		fmt.Fprintln(os.Stderr, "usage: genkimi -o DIR [-sessions N>0] [-records N>=0]")
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "genkimi: %s exists; remove it or choose another name\n", *out)
		os.Exit(1)
	}
	start := time.Now()
	n, err := gen.KimiShare(*out, *sessions, *records)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genkimi:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: %d sessions, %d records in %s\n", *out, *sessions, n, time.Since(start).Round(time.Millisecond))
}
