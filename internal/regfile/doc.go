// Package regfile opens files that rewind reads on someone else's say-so —
// a path from the model (ReadFile, Grep), an import, the config file, MCP
// configuration, AGENTS.md, theme files — only when they are regular files.
//
// Opening a named pipe for reading blocks until a writer appears, possibly
// forever, and reading a device such as /dev/zero or /dev/tty never ends or
// steals the terminal's input. Open therefore opens without blocking
// (O_NONBLOCK), checks the type on the open descriptor (so a path swapped
// between a stat and the open cannot slip through), and refuses anything but
// a regular file with an error that says what the path is. A file of a
// kernel pseudo-filesystem (/proc, /sys, …) stats as regular but is made up
// as it is read (/proc/kmsg blocks until the kernel logs): it is refused
// too. NewReader bounds each read in time and by a context, for whatever
// still stalls (a hung network mount).
package regfile
