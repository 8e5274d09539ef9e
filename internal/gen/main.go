package gen

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// Main is the command line of a generator: -o OUT (which must not exist),
// -sessions and -records, then write. write returns the records it wrote.
// gendb and genkimi are this with their own target.
func Main(name, target string, defaultSessions int, write func(out string, sessions, records int) (int, error)) {
	out := flag.String("o", "", target+" to create (must not exist)")
	sessions := flag.Int("sessions", defaultSessions, "number of sessions")
	records := flag.Int("records", 1000000, "number of records in total")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 || *sessions <= 0 || *records < 0 {
		fmt.Fprintf(os.Stderr, "usage: %s -o OUT [-sessions N>0] [-records N>=0]\n", name)
		os.Exit(2)
	}
	if _, err := os.Stat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "%s: %s exists; remove it or choose another name\n", name, *out)
		os.Exit(1)
	}
	start := time.Now()
	n, err := write(*out, *sessions, *records)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: %d sessions, %d records in %s\n", *out, *sessions, n, time.Since(start).Round(time.Millisecond))
}
