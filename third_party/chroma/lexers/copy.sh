#!/bin/sh
# Copies chroma's lexers, as `go generate` here runs it: the XML lexers
# and the lexers written in Go of the chroma version in rewind's go.mod,
# all but lexers.go and the three files with init functions (analysers.go
# and lexers.go here replace them), and chroma's licence.
set -eu
src="$(cd ../../.. && go list -m -f '{{.Dir}}' github.com/alecthomas/chroma/v2)"
rm -f embedded/*.xml
install -m 644 "$src"/lexers/embedded/*.xml embedded/
install -m 644 "$src"/COPYING ..
for f in "$src"/lexers/*.go; do
	case "${f##*/}" in
	lexers.go | dns.go | mysql.go | zed.go | *_test.go) ;;
	*) install -m 644 "$f" . ;;
	esac
done
