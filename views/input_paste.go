package views

import (
	"fmt"
	"strings"
)

// A paste of more than pasteFoldLines lines shows in the input as one
// "[pasted 214 lines]" label; the whole text is what gets sent, and the
// conversation shows the label with the text a keypress away.

// pasteFoldLines is the most lines a paste may have and still show whole.
const pasteFoldLines = 20

type pastedBlock struct{ label, text string }

// foldPaste keeps text aside and returns the label that stands for it.
func (in *Input) foldPaste(text string, lines int) string {
	label := fmt.Sprintf("[pasted %d lines]", lines)
	for _, p := range in.pastes {
		if p.label == label {
			label = fmt.Sprintf("[pasted %d lines #%d]", lines, len(in.pastes)+1)
			break
		}
	}
	in.pastes = append(in.pastes, pastedBlock{label, text})
	return label
}

// expandPastes puts the folded pastes back in place of their labels.
func (in *Input) expandPastes(s string) string {
	for _, p := range in.pastes {
		s = strings.Replace(s, p.label, p.text, 1)
	}
	return s
}

// SetOnSend sets the callback for Enter with both texts: the text to send
// (long pastes whole) and the text as shown (long pastes as labels). It
// replaces the SetOnSubmit callback.
func (in *Input) SetOnSend(f func(text, shown string)) { in.onSend = f }
