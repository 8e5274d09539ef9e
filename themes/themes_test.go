package themes

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/styles"
	"github.com/gdamore/tcell/v2"
)

func TestBuiltinsComplete(t *testing.T) {
	t.Parallel()
	for _, name := range BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			data, err := builtinFS.ReadFile("builtin/" + name + ".yaml")
			if err != nil {
				t.Fatal(err)
			}
			f, err := decodeYAML(data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := apply(Theme{}, f, true); err != nil {
				t.Fatalf("built-in %s incomplete: %v", name, err)
			}
			th, ok := Builtin(name)
			if !ok || th.Name != name {
				t.Fatalf("Builtin(%q) = %v, %v", name, th.Name, ok)
			}
			if _, ok := styles.Registry[th.ChromaStyle]; !ok || chromaStyleFile(th.ChromaStyle) == "" {
				t.Fatalf("chroma style %q unknown", th.ChromaStyle)
			}
			for _, fld := range colourFields {
				if *fld.get(&th) == tcell.ColorDefault {
					t.Errorf("%s: colour %s unset", name, fld.key)
				}
			}
			if th.DiffAdd == th.DiffRemove || th.Border == th.FocusedBorder || th.ToolOK == th.ToolError {
				t.Errorf("%s: colours that must differ are equal", name)
			}
		})
	}
	if Default().Name != "dark" {
		t.Fatalf("default = %q", Default().Name)
	}
	dark, _ := Builtin("dark")
	light, _ := Builtin("light")
	if dark.Background == light.Background || dark.ChromaStyle == light.ChromaStyle {
		t.Fatal("dark and light are not different")
	}
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "ocean.yaml", "base: light\nchroma_style: dracula\naccent: \"#112233\"\ntext: navy\n")
	write(t, dir, "forest.toml", "base = \"high-contrast\"\nbackground = \"#010203\"\n")
	write(t, dir, "plain.yml", "error: \"#abcdef\"\n")
	write(t, dir, "broken.yaml", "accent: [unclosed\n")
	write(t, dir, "badcolour.yaml", "accent: notacolour\n")
	write(t, dir, "unknownkey.yaml", "acent: \"#ffffff\"\n")
	write(t, dir, "badbase.yaml", "base: sepia\n")
	write(t, dir, "badchroma.toml", "chroma_style = \"nope\"\n")
	write(t, dir, "badtoml.toml", "background = \n")
	write(t, dir, "empty.yaml", "")
	write(t, dir, "dark.yaml", "accent: \"#ff0000\"\n") // user file shadows a built-in

	light, _ := Builtin("light")
	hc, _ := Builtin("high-contrast")
	dark, _ := Builtin("dark")

	t.Run("yaml inherits base", func(t *testing.T) {
		th, err := Load("ocean", dir)
		if err != nil {
			t.Fatal(err)
		}
		if th.Name != "ocean" || th.ChromaStyle != "dracula" {
			t.Fatalf("name/chroma = %q/%q", th.Name, th.ChromaStyle)
		}
		if th.Accent != tcell.NewHexColor(0x112233) || th.Text.Hex() != tcell.ColorNavy.Hex() {
			t.Fatalf("accent/text = %v/%v", th.Accent, th.Text)
		}
		if th.Background != light.Background || th.DiffAdd != light.DiffAdd {
			t.Fatal("unset colours not inherited from light")
		}
	})
	t.Run("toml", func(t *testing.T) {
		th, err := Load("forest", dir)
		if err != nil {
			t.Fatal(err)
		}
		if th.Background != tcell.NewHexColor(0x010203) || th.Text != hc.Text || th.ChromaStyle != hc.ChromaStyle {
			t.Fatalf("got %+v", th)
		}
	})
	t.Run("yml default base dark", func(t *testing.T) {
		th, err := Load("plain", dir)
		if err != nil {
			t.Fatal(err)
		}
		if th.Error != tcell.NewHexColor(0xabcdef) || th.Text != dark.Text {
			t.Fatal("plain not layered over dark")
		}
	})
	t.Run("user shadows builtin", func(t *testing.T) {
		th, err := Load("dark", dir)
		if err != nil || th.Accent.Hex() != tcell.ColorRed.Hex() {
			t.Fatalf("accent %v err %v", th.Accent, err)
		}
	})
	t.Run("builtin without dir", func(t *testing.T) {
		th, err := Load("light", "")
		if err != nil || th.Name != "light" {
			t.Fatal(th.Name, err)
		}
		th, err = Load("", "")
		if err != nil || th.Name != "dark" {
			t.Fatal(th.Name, err)
		}
	})
	for _, tc := range []struct{ name, want string }{
		{"broken", "malformed"},
		{"badcolour", "not a colour"},
		{"unknownkey", `unknown key "acent"`},
		{"badbase", `base "sepia"`},
		{"badchroma", "not a chroma style"},
		{"badtoml", "malformed"},
		{"empty", "empty"},
		{"nosuchtheme", "not found"},
		{"../etc/passwd", "not found"},
	} {
		t.Run("error "+tc.name, func(t *testing.T) {
			th, err := Load(tc.name, dir)
			if err == nil {
				t.Fatal("want an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
			if th.Name != Default().Name || th.Accent != Default().Accent {
				t.Fatalf("want the default theme back, got %q", th.Name)
			}
		})
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "zeta.toml", "")
	write(t, dir, "alpha.yaml", "")
	write(t, dir, "light.yaml", "")
	write(t, dir, "notes.txt", "")
	got := strings.Join(Names(dir), ",")
	if got != "dark,light,high-contrast,alpha,zeta" {
		t.Fatalf("Names = %s", got)
	}
	if strings.Join(Names(filepath.Join(dir, "missing")), ",") != "dark,light,high-contrast" {
		t.Fatal("missing dir")
	}
}

func TestParseColour(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]tcell.Color{
		"#ff0000": tcell.ColorRed, "Red": tcell.ColorRed, "default": tcell.ColorDefault, " #00ff00 ": tcell.NewHexColor(0x00ff00),
	} {
		c, err := ParseColour(in)
		if err != nil || c.Hex() != want.Hex() {
			t.Errorf("ParseColour(%q) = %v, %v", in, c, err)
		}
	}
	for _, bad := range []string{"", "#12", "rouge", "#gggggg"} {
		if _, err := ParseColour(bad); err == nil {
			t.Errorf("ParseColour(%q) accepted", bad)
		}
	}
}

// TestChromaStylesAreChromas: the styles parsed on demand are chroma's own,
// every one of them, entry for entry (a chroma upgrade that adds or changes
// a style fails here until `go generate ./themes` copies its files again),
// and an unknown name gets chroma's fallback, as styles.Get gives it.
func TestChromaStylesAreChromas(t *testing.T) {
	t.Parallel()
	files, err := fs.Glob(chromaFS, "chroma/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(styles.Registry) {
		t.Errorf("%d style files, chroma has %d styles: go generate ./themes", len(files), len(styles.Registry))
	}
	for name, want := range styles.Registry {
		if chromaStyleFile(name) == "" {
			t.Errorf("chroma style %q has no file: go generate ./themes", name)
			continue
		}
		got := ChromaStyle(strings.ToUpper(name))
		gotTypes, wantTypes := got.Types(), want.Types()
		slices.Sort(gotTypes)
		slices.Sort(wantTypes)
		if got.Name != want.Name || !slices.Equal(gotTypes, wantTypes) {
			t.Errorf("style %q: %v, chroma's %v", name, gotTypes, wantTypes)
			continue
		}
		for _, tt := range wantTypes {
			if got.Get(tt) != want.Get(tt) {
				t.Errorf("style %q, %v: %v, chroma's %v", name, tt, got.Get(tt), want.Get(tt))
			}
		}
	}
	for _, name := range []string{"nope", "../themes", "chroma/monokai", ""} {
		if chromaStyleFile(name) != "" {
			t.Errorf("%q is a style file", name)
		}
		if got := ChromaStyle(name); got != ChromaStyle(styles.Fallback.Name) {
			t.Errorf("ChromaStyle(%q) = %s, want the fallback %s", name, got.Name, styles.Fallback.Name)
		}
	}
}
