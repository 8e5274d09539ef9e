package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"sync"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// fontSize is the point size the cells are drawn at (72 dpi: pixels).
const fontSize = 15

// faces are the regular and bold Go Mono faces at fontSize.
type faces struct {
	regular, bold font.Face
	cellW, cellH  int
	ascent        int
}

var (
	facesOnce sync.Once
	facesVal  *faces
	facesErr  error
)

// loadFaces parses the embedded Go Mono fonts once.
func loadFaces() (*faces, error) {
	facesOnce.Do(func() {
		open := func(ttf []byte) (font.Face, error) {
			f, err := opentype.Parse(ttf)
			if err != nil {
				return nil, err
			}
			return opentype.NewFace(f, &opentype.FaceOptions{Size: fontSize, DPI: 72, Hinting: font.HintingFull})
		}
		reg, err := open(gomono.TTF)
		if err != nil {
			facesErr = fmt.Errorf("screenshots: go mono: %w", err)
			return
		}
		bold, err := open(gomonobold.TTF)
		if err != nil {
			facesErr = fmt.Errorf("screenshots: go mono bold: %w", err)
			return
		}
		m := reg.Metrics()
		adv, _ := reg.GlyphAdvance('M')
		facesVal = &faces{regular: reg, bold: bold, cellW: adv.Ceil(), cellH: (m.Ascent + m.Descent).Ceil() + 2, ascent: m.Ascent.Ceil() + 1}
	})
	return facesVal, facesErr
}

// Palette resolves the terminal's default colours (cells drawn with
// tcell.ColorDefault).
type Palette struct {
	Foreground, Background color.RGBA
}

func rgba(c tcell.Color, def color.RGBA) color.RGBA {
	if c == tcell.ColorDefault || !c.Valid() {
		return def
	}
	r, g, b := c.TrueColor().RGB()
	if r < 0 {
		return def
	}
	return color.RGBA{uint8(r), uint8(g), uint8(b), 0xff}
}

// dimmed mixes c halfway towards bg (the terminal's "dim" attribute).
func dimmed(c, bg color.RGBA) color.RGBA {
	return color.RGBA{uint8((int(c.R) + int(bg.R)) / 2), uint8((int(c.G) + int(bg.G)) / 2), uint8((int(c.B) + int(bg.B)) / 2), 0xff}
}

// RenderScreen draws a frame's cells into an image: each cell's
// background, then its rune in its foreground colour with Go Mono (bold
// for bold cells). Box-drawing and block characters are drawn as lines and
// rectangles so borders join seamlessly; a few symbols the font lacks are
// drawn as shapes.
func RenderScreen(f frame, pal Palette) (*image.RGBA, error) {
	fc, err := loadFaces()
	if err != nil {
		return nil, err
	}
	cells, w, h := f.cells, f.w, f.h
	img := image.NewRGBA(image.Rect(0, 0, w*fc.cellW, h*fc.cellH))
	draw.Draw(img, img.Bounds(), &image.Uniform{pal.Background}, image.Point{}, draw.Src)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			fg, bg, attr := c.Style.Decompose()
			fgc, bgc := rgba(fg, pal.Foreground), rgba(bg, pal.Background)
			if attr&tcell.AttrReverse != 0 {
				fgc, bgc = bgc, fgc
			}
			if attr&tcell.AttrDim != 0 {
				fgc = dimmed(fgc, bgc)
			}
			r := image.Rect(x*fc.cellW, y*fc.cellH, (x+1)*fc.cellW, (y+1)*fc.cellH)
			draw.Draw(img, r, &image.Uniform{bgc}, image.Point{}, draw.Src)
			if len(c.Runes) == 0 {
				continue
			}
			ch := c.Runes[0]
			if ch == ' ' || ch == 0 {
				continue
			}
			cw := max(1, runewidth.RuneWidth(ch))
			if cw == 2 && x+1 < w {
				r.Max.X += fc.cellW
				draw.Draw(img, r, &image.Uniform{bgc}, image.Point{}, draw.Src)
			}
			if drawShape(img, r, ch, fgc) {
				if attr&tcell.AttrUnderline != 0 {
					underline(img, r, fgc)
				}
				continue
			}
			face := fc.regular
			if attr&tcell.AttrBold != 0 {
				face = fc.bold
			}
			text := string(c.Runes)
			if _, ok := face.GlyphAdvance(ch); !ok {
				text = ""
				if sub, ok := substitutes[ch]; ok {
					if _, ok := face.GlyphAdvance(sub); ok {
						text = string(sub)
					}
				}
			}
			if text == "" {
				fallbackGlyph(img, r, fgc)
			} else {
				d := font.Drawer{Dst: img, Src: &image.Uniform{fgc}, Face: face,
					Dot: fixed.P(r.Min.X+(r.Dx()-fc.cellW*cw)/2, r.Min.Y+fc.ascent)}
				d.DrawString(text)
			}
			if attr&tcell.AttrUnderline != 0 {
				underline(img, r, fgc)
			}
			if cw == 2 {
				x++
			}
		}
	}
	return img, nil
}

func underline(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	fillRect(img, image.Rect(r.Min.X, r.Max.Y-2, r.Max.X, r.Max.Y-1), c)
}

func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

// arms of the box-drawing characters: up, right, down, left; 1 = light,
// 2 = heavy, 3 = double.
var boxArms = map[rune][4]int{
	'─': {0, 1, 0, 1}, '│': {1, 0, 1, 0}, '┌': {0, 1, 1, 0}, '┐': {0, 0, 1, 1},
	'└': {1, 1, 0, 0}, '┘': {1, 0, 0, 1}, '├': {1, 1, 1, 0}, '┤': {1, 0, 1, 1},
	'┬': {0, 1, 1, 1}, '┴': {1, 1, 0, 1}, '┼': {1, 1, 1, 1},
	'━': {0, 2, 0, 2}, '┃': {2, 0, 2, 0}, '┏': {0, 2, 2, 0}, '┓': {0, 0, 2, 2},
	'┗': {2, 2, 0, 0}, '┛': {2, 0, 0, 2}, '┣': {2, 2, 2, 0}, '┫': {2, 0, 2, 2},
	'═': {0, 3, 0, 3}, '║': {3, 0, 3, 0}, '╔': {0, 3, 3, 0}, '╗': {0, 0, 3, 3},
	'╚': {3, 3, 0, 0}, '╝': {3, 0, 0, 3}, '╠': {3, 3, 3, 0}, '╣': {3, 0, 3, 3},
	'╭': {0, 1, 1, 0}, '╮': {0, 0, 1, 1}, '╰': {1, 1, 0, 0}, '╯': {1, 0, 0, 1},
	'╴': {0, 0, 0, 1}, '╶': {0, 1, 0, 0}, '╵': {1, 0, 0, 0}, '╷': {0, 0, 1, 0},
}

// drawShape draws box-drawing, block and a few geometric characters
// directly; false when ch is left to the font.
func drawShape(img *image.RGBA, r image.Rectangle, ch rune, c color.RGBA) bool {
	cx, cy := (r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2
	if arms, ok := boxArms[ch]; ok {
		for i, a := range arms {
			if a == 0 {
				continue
			}
			th := 1
			if a == 2 {
				th = 2
			}
			offs := []int{0}
			if a == 3 {
				offs = []int{-2, 2}
			}
			for _, o := range offs {
				switch i {
				case 0:
					fillRect(img, image.Rect(cx+o, r.Min.Y, cx+o+th, cy+th), c)
				case 1:
					fillRect(img, image.Rect(cx, cy+o, r.Max.X, cy+o+th), c)
				case 2:
					fillRect(img, image.Rect(cx+o, cy, cx+o+th, r.Max.Y), c)
				case 3:
					fillRect(img, image.Rect(r.Min.X, cy+o, cx+th, cy+o+th), c)
				}
			}
		}
		return true
	}
	switch ch {
	case '▸', '▶', '▾', '▼':
		triangle(img, r, ch == '▾' || ch == '▼', c)
	case '█':
		fillRect(img, r, c)
	case '▏', '▎', '▍':
		fillRect(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+max(1, r.Dx()*map[rune]int{'▏': 1, '▎': 2, '▍': 3}[ch]/8), r.Max.Y), c)
	case '✓', '✔':
		for i := 0; i < r.Dx()/3; i++ { // short stroke down-right, long stroke up-right
			fillRect(img, image.Rect(r.Min.X+1+i, cy+i, r.Min.X+3+i, cy+i+2), c)
		}
		for i := 0; i < r.Dx()*2/3; i++ {
			x0 := r.Min.X + 1 + r.Dx()/3 + i
			y0 := cy + r.Dx()/3 - i
			fillRect(img, image.Rect(x0, y0, x0+2, y0+2), c)
		}
	case '✗', '✘':
		for i := 0; i < r.Dx()-2; i++ {
			fillRect(img, image.Rect(r.Min.X+1+i, cy-r.Dx()/2+1+i, r.Min.X+3+i, cy-r.Dx()/2+3+i), c)
			fillRect(img, image.Rect(r.Max.X-3-i, cy-r.Dx()/2+1+i, r.Max.X-1-i, cy-r.Dx()/2+3+i), c)
		}
	case '▌':
		fillRect(img, image.Rect(r.Min.X, r.Min.Y, cx, r.Max.Y), c)
	case '▐':
		fillRect(img, image.Rect(cx, r.Min.Y, r.Max.X, r.Max.Y), c)
	case '▀':
		fillRect(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, cy), c)
	case '▄':
		fillRect(img, image.Rect(r.Min.X, cy, r.Max.X, r.Max.Y), c)
	case '░', '▒', '▓':
		step := map[rune]int{'░': 4, '▒': 2, '▓': 1}[ch]
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if (x+y)%(step+1) == 0 {
					img.SetRGBA(x, y, c)
				}
			}
		}
	case '●', '◉', '○', '◐', '◯', '•':
		rad := min(r.Dx(), r.Dy()) * 2 / 5
		if ch == '•' {
			rad = min(r.Dx(), r.Dy()) / 5
		}
		circle(img, cx, cy, rad, c, ch)
	default:
		return false
	}
	return true
}

// circle draws the circle glyphs: filled, ring, ring with a dot, half.
func circle(img *image.RGBA, cx, cy, rad int, c color.RGBA, ch rune) {
	r2 := rad * rad
	in := (rad - 2) * (rad - 2)
	dot := (rad / 2) * (rad / 2)
	for y := -rad; y <= rad; y++ {
		for x := -rad; x <= rad; x++ {
			d := x*x + y*y
			if d > r2 {
				continue
			}
			on := false
			switch ch {
			case '●', '•':
				on = true
			case '○', '◯':
				on = d >= in
			case '◉':
				on = d >= in || d <= dot
			case '◐':
				on = d >= in || x <= 0
			}
			if on {
				img.SetRGBA(cx+x, cy+y, c)
			}
		}
	}
}

// substitutes are look-alikes Go Mono has for symbols it lacks.
var substitutes = map[rune]rune{'⟲': '«', '⇊': '↓', '⚙': '*', 'ℹ': 'i', '⏎': '↵', '✎': '*'}

// triangle draws a filled triangle pointing right (or down) in the cell.
func triangle(img *image.RGBA, r image.Rectangle, down bool, c color.RGBA) {
	size := min(r.Dx(), r.Dy()) * 2 / 3
	x0, y0 := r.Min.X+(r.Dx()-size)/2, r.Min.Y+(r.Dy()-size)/2
	for i := 0; i < size; i++ {
		// row/column i spans a width that shrinks towards the tip
		span := size - 2*abs(i-size/2)
		if down {
			fillRect(img, image.Rect(x0+i, y0, x0+i+1, y0+span/2+1), c)
		} else {
			fillRect(img, image.Rect(x0, y0+i, x0+span/2+1, y0+i+1), c)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// fallbackGlyph marks a character the font cannot draw with a small box,
// like a terminal's replacement glyph.
func fallbackGlyph(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	in := image.Rect(r.Min.X+2, r.Min.Y+r.Dy()/4, r.Max.X-2, r.Max.Y-r.Dy()/4)
	fillRect(img, image.Rect(in.Min.X, in.Min.Y, in.Max.X, in.Min.Y+1), c)
	fillRect(img, image.Rect(in.Min.X, in.Max.Y-1, in.Max.X, in.Max.Y), c)
	fillRect(img, image.Rect(in.Min.X, in.Min.Y, in.Min.X+1, in.Max.Y), c)
	fillRect(img, image.Rect(in.Max.X-1, in.Min.Y, in.Max.X, in.Max.Y), c)
}
