#!/bin/sh
# Copies the goldmark extensions rewind's markdown uses (tables,
# strikethrough, task lists), as `go generate` here runs it: the files of
# the goldmark version in rewind's go.mod, unchanged, and goldmark's
# licence.
set -eu
src="$(cd ../../.. && go list -m -f '{{.Dir}}' github.com/yuin/goldmark)"
for f in table.go strikethrough.go tasklist.go; do
	install -m 644 "$src/extension/$f" .
done
install -m 644 "$src"/LICENSE ..
