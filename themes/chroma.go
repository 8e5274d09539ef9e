package themes

import (
	"embed"
	"io/fs"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// chroma's styles package parses all of its 70-odd styles when the program
// starts (about 9 ms of CPU for every rewind command, also those that never
// highlight code; upstream declined a lazy registry: alecthomas/chroma#956).
// The same files, copied from the chroma version in go.mod, are parsed here
// one at a time, when a code block is first drawn in that style.
//
//go:generate sh -c "install -m 644 \"$(go list -m -f '{{.Dir}}' github.com/alecthomas/chroma/v2)\"/styles/*.xml chroma/"

//go:embed chroma/*.xml
var chromaFS embed.FS

// chromaFallback is the style chroma's styles.Get returns for a name it
// does not know.
const chromaFallback = "swapoff"

var chromaStyles sync.Map // lower-case name → *chroma.Style

// chromaStyleFile is the file of the named style ("" if there is none): a
// style's file is its lower-case name.
func chromaStyleFile(name string) string {
	f := "chroma/" + strings.ToLower(name) + ".xml"
	if !fs.ValidPath(f) || strings.Count(f, "/") != 1 {
		return ""
	}
	if _, err := fs.Stat(chromaFS, f); err != nil {
		return ""
	}
	return f
}

// ChromaStyle returns the named chroma style (the name as a theme's
// chroma_style gives it), or chroma's fallback style when there is none.
func ChromaStyle(name string) *chroma.Style {
	name = strings.ToLower(name)
	if s, ok := chromaStyles.Load(name); ok {
		return s.(*chroma.Style)
	}
	f := chromaStyleFile(name)
	if f == "" {
		if name == chromaFallback {
			panic("themes: chroma's fallback style is missing")
		}
		return ChromaStyle(chromaFallback)
	}
	r, err := chromaFS.Open(f)
	if err != nil {
		panic(err) // embedded: it was found above
	}
	defer r.Close()
	s, err := chroma.NewXMLStyle(r)
	if err != nil {
		panic(err) // embedded files are parsed by a test
	}
	actual, _ := chromaStyles.LoadOrStore(name, s)
	return actual.(*chroma.Style)
}
