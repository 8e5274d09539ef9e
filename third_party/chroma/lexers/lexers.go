// Package lexers is chroma's lexers package (github.com/alecthomas/chroma/v2/lexers,
// MIT licence: ../COPYING) with its registry built when a lexer is first
// asked for, not when the program starts.
//
// chroma's package parses the configuration of its 279 XML lexers in its
// init: about 7 ms of CPU and 2.7 MB for every rewind command, though only
// the TUI's markdown highlights code. The other files of this package (the
// lexers chroma writes in Go) and embedded/ are copied unchanged from the
// chroma version in rewind's go.mod by `go generate` here, and
// views.TestLexersAreChromas holds them equal. This file and analysers.go
// replace chroma's lexers.go and its three init functions (dns.go,
// mysql.go, zed.go), which asked the registry for a lexer at start.
//
// It is a module of its own so that rewind's vet and staticcheck, which
// the copied code does not satisfy (unkeyed chroma.Rule literals, dot
// imports), check only rewind's code.
package lexers

//go:generate sh copy.sh

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// goLexers are the lexers written in Go (this package's other files), in
// the order their variables are initialised, which is the order chroma
// registers them in.
var goLexers []chroma.Lexer

// Register keeps a lexer written in Go for the registry; chroma's Register
// adds it to its registry at once.
func Register(lexer chroma.Lexer) chroma.Lexer {
	goLexers = append(goLexers, lexer)
	return lexer
}

// registry is chroma's GlobalLexerRegistry, built the same way on first
// use: the XML lexers in the order of their file names, then those written
// in Go (one of the same name replaces the XML one in its place), then the
// analysers chroma's init functions set.
var registry = sync.OnceValue(func() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	paths, err := fs.Glob(embedded, "embedded/*.xml")
	if err != nil {
		panic(err)
	}
	for _, path := range paths {
		reg.Register(chroma.MustNewXMLLexer(embedded, path))
	}
	for _, l := range goLexers {
		reg.Register(l)
	}
	setAnalysers(reg)
	return reg
})

// Registry is chroma's GlobalLexerRegistry, built on the first call.
func Registry() *chroma.LexerRegistry { return registry() }

// Get a lexer by name, alias or file name (chroma's lexers.Get).
func Get(name string) chroma.Lexer { return registry().Get(name) }

// MatchMimeType returns the lexer of a MIME type (chroma's
// lexers.MatchMimeType).
func MatchMimeType(mimeType string) chroma.Lexer { return registry().MatchMimeType(mimeType) }

// Analyse returns the lexer whose analyser scores text highest, or nil
// (chroma's lexers.Analyse).
func Analyse(text string) chroma.Lexer { return registry().Analyse(text) }
