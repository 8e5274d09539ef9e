// Package extension is the part of goldmark's extension package
// (github.com/yuin/goldmark/extension, MIT licence: ../LICENSE) that
// rewind's markdown uses: tables, strikethrough and task lists.
//
// goldmark's package also holds linkify, whose two URL regexps, with the
// rest of its package-level values, are made in its init: about 0.8 ms of
// CPU for every rewind command, a tenth of `rewind --version`, though only
// the TUI renders markdown and it does not linkify. table.go,
// strikethrough.go and tasklist.go are copied unchanged from the goldmark
// version in rewind's go.mod by `go generate` here, and
// views.TestGoldmarkExtensionsAreGoldmarks holds them equal.
//
// It is a module of its own, as third_party/chroma is, so that rewind's
// vet and staticcheck check only rewind's code; its path is outside
// rewind's module path so that deadcode does not report the options of
// goldmark's API that rewind does not call.
package extension

//go:generate sh copy.sh
