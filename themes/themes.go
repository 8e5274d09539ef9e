package themes

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/gdamore/tcell/v2"
	"go.yaml.in/yaml/v3"

	"github.com/rewind-agent/rewind/internal/regfile"
)

// DefaultName is the theme used when none is configured or loading fails.
const DefaultName = "dark"

// Theme is a named palette. Every colour a view draws comes from here.
type Theme struct {
	Name        string
	ChromaStyle string // chroma style used for fenced code blocks

	Background    tcell.Color
	Text          tcell.Color
	Dim           tcell.Color
	Accent        tcell.Color
	Border        tcell.Color
	FocusedBorder tcell.Color
	Title         tcell.Color

	User            tcell.Color
	Assistant       tcell.Color
	Reasoning       tcell.Color
	Tool            tcell.Color
	ToolRunning     tcell.Color
	ToolOK          tcell.Color
	ToolError       tcell.Color
	BannerBacktrack tcell.Color
	BannerCompact   tcell.Color
	BannerInterrupt tcell.Color
	BannerInfo      tcell.Color
	BannerPreview   tcell.Color
	Error           tcell.Color
	Warning         tcell.Color

	StatusBarBg tcell.Color
	StatusBarFg tcell.Color

	DiffAdd    tcell.Color
	DiffRemove tcell.Color
	DiffHeader tcell.Color

	SelectionBg    tcell.Color
	SelectionFg    tcell.Color
	MatchHighlight tcell.Color

	Heading tcell.Color
	Link    tcell.Color
	Code    tcell.Color
	CodeBg  tcell.Color
	Quote   tcell.Color
	ModalBg tcell.Color
	Demo    tcell.Color
}

// colourField names one colour of a Theme in theme files.
type colourField struct {
	key string
	get func(*Theme) *tcell.Color
}

// colourFields lists every colour key a theme file may set, in file order.
var colourFields = []colourField{
	{"background", func(t *Theme) *tcell.Color { return &t.Background }},
	{"text", func(t *Theme) *tcell.Color { return &t.Text }},
	{"dim", func(t *Theme) *tcell.Color { return &t.Dim }},
	{"accent", func(t *Theme) *tcell.Color { return &t.Accent }},
	{"border", func(t *Theme) *tcell.Color { return &t.Border }},
	{"focused_border", func(t *Theme) *tcell.Color { return &t.FocusedBorder }},
	{"title", func(t *Theme) *tcell.Color { return &t.Title }},
	{"user", func(t *Theme) *tcell.Color { return &t.User }},
	{"assistant", func(t *Theme) *tcell.Color { return &t.Assistant }},
	{"reasoning", func(t *Theme) *tcell.Color { return &t.Reasoning }},
	{"tool", func(t *Theme) *tcell.Color { return &t.Tool }},
	{"tool_running", func(t *Theme) *tcell.Color { return &t.ToolRunning }},
	{"tool_ok", func(t *Theme) *tcell.Color { return &t.ToolOK }},
	{"tool_error", func(t *Theme) *tcell.Color { return &t.ToolError }},
	{"banner_backtrack", func(t *Theme) *tcell.Color { return &t.BannerBacktrack }},
	{"banner_compact", func(t *Theme) *tcell.Color { return &t.BannerCompact }},
	{"banner_interrupt", func(t *Theme) *tcell.Color { return &t.BannerInterrupt }},
	{"banner_info", func(t *Theme) *tcell.Color { return &t.BannerInfo }},
	{"banner_preview", func(t *Theme) *tcell.Color { return &t.BannerPreview }},
	{"error", func(t *Theme) *tcell.Color { return &t.Error }},
	{"warning", func(t *Theme) *tcell.Color { return &t.Warning }},
	{"status_bar_bg", func(t *Theme) *tcell.Color { return &t.StatusBarBg }},
	{"status_bar_fg", func(t *Theme) *tcell.Color { return &t.StatusBarFg }},
	{"diff_add", func(t *Theme) *tcell.Color { return &t.DiffAdd }},
	{"diff_remove", func(t *Theme) *tcell.Color { return &t.DiffRemove }},
	{"diff_header", func(t *Theme) *tcell.Color { return &t.DiffHeader }},
	{"selection_bg", func(t *Theme) *tcell.Color { return &t.SelectionBg }},
	{"selection_fg", func(t *Theme) *tcell.Color { return &t.SelectionFg }},
	{"match_highlight", func(t *Theme) *tcell.Color { return &t.MatchHighlight }},
	{"heading", func(t *Theme) *tcell.Color { return &t.Heading }},
	{"link", func(t *Theme) *tcell.Color { return &t.Link }},
	{"code", func(t *Theme) *tcell.Color { return &t.Code }},
	{"code_bg", func(t *Theme) *tcell.Color { return &t.CodeBg }},
	{"quote", func(t *Theme) *tcell.Color { return &t.Quote }},
	{"modal_bg", func(t *Theme) *tcell.Color { return &t.ModalBg }},
	{"demo", func(t *Theme) *tcell.Color { return &t.Demo }},
}

// ColourKeys returns the colour keys a theme file may set, in order.
func ColourKeys() []string {
	keys := make([]string, len(colourFields))
	for i, f := range colourFields {
		keys[i] = f.key
	}
	return keys
}

//go:embed builtin/*.yaml
var builtinFS embed.FS

// builtinNames are the embedded themes, in the order they are offered.
var builtinNames = []string{"dark", "light", "high-contrast"}

// builtins are parsed on first use, not in every rewind process (about
// 0.6 ms of a command's start; most commands draw nothing).
var builtins = sync.OnceValue(func() map[string]Theme {
	m := make(map[string]Theme, len(builtinNames))
	for _, name := range builtinNames {
		data, err := builtinFS.ReadFile("builtin/" + name + ".yaml")
		if err != nil {
			continue // cannot happen with the embed pattern above; tests check every name
		}
		f, err := decodeYAML(data)
		if err != nil {
			continue // tests check that every built-in parses
		}
		t, err := apply(Theme{Name: name}, f, true)
		if err != nil {
			continue
		}
		t.Name = name
		m[name] = t
	}
	return m
})

// BuiltinNames lists the built-in themes.
func BuiltinNames() []string { return append([]string(nil), builtinNames...) }

// Builtin returns a built-in theme by name.
func Builtin(name string) (Theme, bool) {
	t, ok := builtins()[name]
	return t, ok
}

// Default returns the default (dark) theme.
func Default() Theme { return builtins()[DefaultName] }

// file is the on-disk shape of a theme file (YAML or TOML).
type file struct {
	Name        string
	Base        string
	ChromaStyle string
	Colours     map[string]string
}

func decodeYAML(data []byte) (file, error) {
	var raw map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return file{}, errors.New("the file is empty")
		}
		return file{}, err
	}
	return fromMap(raw)
}

func decodeTOML(data []byte) (file, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return file{}, err
	}
	return fromMap(raw)
}

func fromMap(raw map[string]any) (file, error) {
	f := file{Colours: map[string]string{}}
	known := map[string]bool{}
	for _, k := range colourFields {
		known[k.key] = true
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := raw[k]
		s, ok := v.(string)
		if !ok {
			return file{}, fmt.Errorf("key %q: want a string, got %T", k, v)
		}
		switch {
		case k == "name":
			f.Name = s
		case k == "base":
			f.Base = s
		case k == "chroma_style":
			f.ChromaStyle = s
		case known[k]:
			f.Colours[k] = s
		default:
			return file{}, fmt.Errorf("unknown key %q (colour keys: %s)", k, strings.Join(ColourKeys(), ", "))
		}
	}
	return f, nil
}

// ParseColour accepts "#rrggbb", a W3C/X11 colour name, or "default".
func ParseColour(s string) (tcell.Color, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "default" || s == "reset" {
		return tcell.ColorDefault, nil
	}
	c := tcell.GetColor(s)
	if c == tcell.ColorDefault {
		return c, fmt.Errorf("%q is not a colour (use #rrggbb, a colour name, or default)", s)
	}
	return c, nil
}

// apply layers f over base. With complete set, every colour must be present.
func apply(base Theme, f file, complete bool) (Theme, error) {
	t := base
	if f.Name != "" {
		t.Name = f.Name
	}
	if f.ChromaStyle != "" {
		if chromaStyleFile(f.ChromaStyle) == "" {
			return base, fmt.Errorf("chroma_style %q is not a chroma style", f.ChromaStyle)
		}
		t.ChromaStyle = strings.ToLower(f.ChromaStyle)
	} else if complete {
		return base, errors.New("chroma_style is missing")
	}
	for _, fld := range colourFields {
		v, ok := f.Colours[fld.key]
		if !ok {
			if complete {
				return base, fmt.Errorf("colour %q is missing", fld.key)
			}
			continue
		}
		c, err := ParseColour(v)
		if err != nil {
			return base, fmt.Errorf("colour %q: %w", fld.key, err)
		}
		*fld.get(&t) = c
	}
	return t, nil
}

// userFile finds name.yaml, name.yml or name.toml in dir.
func userFile(dir, name string) (string, bool) {
	if dir == "" || name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", false
	}
	for _, ext := range []string{".yaml", ".yml", ".toml"} {
		p := filepath.Join(dir, name+ext)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// LoadFile reads one user theme file (YAML, or TOML by the .toml extension).
// Colours it does not set come from its `base:` built-in (dark by default).
func LoadFile(path string) (Theme, error) {
	data, err := regfile.ReadFile(path)
	if err != nil {
		return Default(), fmt.Errorf("theme %s: %w", path, err)
	}
	var f file
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		f, err = decodeTOML(data)
	} else {
		f, err = decodeYAML(data)
	}
	if err != nil {
		return Default(), fmt.Errorf("theme %s is malformed: %v; using the default theme", path, err)
	}
	baseName := f.Base
	if baseName == "" {
		baseName = DefaultName
	}
	base, ok := Builtin(baseName)
	if !ok {
		return Default(), fmt.Errorf("theme %s: base %q is not a built-in theme (%s); using the default theme", path, baseName, strings.Join(builtinNames, ", "))
	}
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	t, err := apply(base, f, false)
	if err != nil {
		return Default(), fmt.Errorf("theme %s is malformed: %v; using the default theme", path, err)
	}
	return t, nil
}

// Load returns the theme called name: a user theme from userDir
// ($REWIND_HOME/themes) if one has that name, else a built-in. An empty
// name means the default. On any error it returns the default theme and an
// error the caller shows to the user.
func Load(name, userDir string) (Theme, error) {
	if name == "" {
		name = DefaultName
	}
	if p, ok := userFile(userDir, name); ok {
		return LoadFile(p)
	}
	if t, ok := Builtin(name); ok {
		return t, nil
	}
	return Default(), fmt.Errorf("theme %q not found (built-in: %s; user themes go in %s); using the default theme",
		name, strings.Join(builtinNames, ", "), displayDir(userDir))
}

func displayDir(d string) string {
	if d == "" {
		return "$REWIND_HOME/themes"
	}
	return d
}

// Names lists the built-in themes followed by the user themes in userDir
// (sorted, without extension, duplicates of built-in names removed).
func Names(userDir string) []string {
	names := BuiltinNames()
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	entries, err := os.ReadDir(userDir)
	if err != nil {
		return names
	}
	var user []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if ext != ".yaml" && ext != ".yml" && ext != ".toml" {
			continue
		}
		n := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		if !seen[n] {
			seen[n] = true
			user = append(user, n)
		}
	}
	sort.Strings(user)
	return append(names, user...)
}
