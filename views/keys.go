package views

import (
	"strings"

	"github.com/gdamore/tcell/v2"
)

// Key is one key chord: a special key (Key != KeyRune) or a rune.
type Key struct {
	Key  tcell.Key
	Rune rune
	Mod  tcell.ModMask
}

// R is the chord for a plain rune key.
func R(r rune) Key { return Key{Key: tcell.KeyRune, Rune: r} }

// K is the chord for a special key with optional modifiers.
func K(k tcell.Key, mod ...tcell.ModMask) Key {
	var m tcell.ModMask
	for _, x := range mod {
		m |= x
	}
	return Key{Key: k, Mod: m}
}

// Matches reports whether ev is this chord. Rune keys ignore Shift; special
// keys compare Shift/Alt/Ctrl exactly except that Ctrl-letter keys carry
// their own Ctrl modifier.
func (k Key) Matches(ev *tcell.EventKey) bool {
	if k.Key == tcell.KeyRune {
		return ev.Key() == tcell.KeyRune && ev.Rune() == k.Rune && ev.Modifiers()&(tcell.ModAlt|tcell.ModCtrl) == k.Mod&(tcell.ModAlt|tcell.ModCtrl)
	}
	if ev.Key() != k.Key {
		return false
	}
	if k.Key >= tcell.KeyCtrlA && k.Key <= tcell.KeyCtrlZ {
		return true
	}
	const mask = tcell.ModShift | tcell.ModAlt | tcell.ModCtrl
	return ev.Modifiers()&mask == k.Mod&mask
}

// String names the chord as the help overlay shows it, e.g. "Alt+Enter".
func (k Key) String() string {
	var parts []string
	if k.Mod&tcell.ModCtrl != 0 && !(k.Key >= tcell.KeyCtrlA && k.Key <= tcell.KeyCtrlZ) {
		parts = append(parts, "Ctrl")
	}
	if k.Mod&tcell.ModAlt != 0 {
		parts = append(parts, "Alt")
	}
	if k.Mod&tcell.ModShift != 0 {
		parts = append(parts, "Shift")
	}
	var name string
	switch {
	case k.Key == tcell.KeyRune && k.Rune == ' ':
		name = "Space"
	case k.Key == tcell.KeyRune:
		name = string(k.Rune)
	default:
		name = keyNames[k.Key]
		if name == "" {
			name = tcell.KeyNames[k.Key]
		}
	}
	parts = append(parts, name)
	return strings.Join(parts, "+")
}

var keyNames = map[tcell.Key]string{
	tcell.KeyUp: "↑", tcell.KeyDown: "↓", tcell.KeyLeft: "←", tcell.KeyRight: "→",
	tcell.KeyPgUp: "PgUp", tcell.KeyPgDn: "PgDn", tcell.KeyEnter: "Enter", tcell.KeyEsc: "Esc",
	tcell.KeyTab: "Tab", tcell.KeyBacktab: "Shift+Tab", tcell.KeyHome: "Home", tcell.KeyEnd: "End",
	tcell.KeyBackspace: "Backspace", tcell.KeyBackspace2: "Backspace", tcell.KeyDelete: "Del",
}

// KeyBinding is one entry of a view's key registry. The input handler
// dispatches through it and the help overlay lists it, so help never goes
// stale.
type KeyBinding struct {
	Keys        []Key
	Description string
	Handler     func()
	Visible     bool // listed in help and hints
	Dangerous   bool // destructive; help marks it
	// DisabledReason, when set, says why the binding does nothing useful
	// right now ("" when it is enabled); help shows it dimmed.
	DisabledReason func() string
}

// Label is the binding's keys joined with "/", e.g. "j/↓".
func (b KeyBinding) Label() string {
	names := make([]string, len(b.Keys))
	for i, k := range b.Keys {
		names[i] = k.String()
	}
	return strings.Join(names, "/")
}

// Keymap is an ordered list of bindings; the first match wins.
type Keymap []KeyBinding

// Handle runs the first binding matching ev and reports whether one did.
func (m Keymap) Handle(ev *tcell.EventKey) bool {
	for _, b := range m {
		for _, k := range b.Keys {
			if k.Matches(ev) {
				if b.Handler != nil {
					b.Handler()
				}
				return true
			}
		}
	}
	return false
}

// Visible returns the bindings shown in help.
func (m Keymap) Visible() []KeyBinding {
	var out []KeyBinding
	for _, b := range m {
		if b.Visible {
			out = append(out, b)
		}
	}
	return out
}

// bind is shorthand for a visible binding.
func bind(desc string, h func(), keys ...Key) KeyBinding {
	return KeyBinding{Keys: keys, Description: desc, Handler: h, Visible: true}
}

// SlashCommand describes one input command for completion and help.
type SlashCommand struct {
	Name        string // with the leading "/", e.g. "/revert"
	Args        string // e.g. "N"
	Description string
	// DisabledReason, when set, says why the command is refused right now
	// ("" when it runs); help and the slash menu show it dimmed.
	DisabledReason func() string
}
