package views

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// TestApprovalShowsTheHiddenTail: the adversarial command "echo safe",
// 400 blank braille cells and "; touch PWNED" showed as "$ echo safe⠀⠀…"
// and y ran it all. The whole command must be on screen, the blanks named.
func TestApprovalShowsTheHiddenTail(t *testing.T) {
	t.Parallel()
	cmds := map[string]string{
		"braille blanks": "echo safe" + strings.Repeat("\u2800", 400) + "; touch PWNED",
		"spaces":         "echo safe" + strings.Repeat(" ", 400) + "; touch PWNED",
		"zero-width":     "echo safe" + strings.Repeat("\u200b", 400) + "; touch PWNED",
		"bidi override":  "echo safe \u202e; touch PWNED\u202c",
		"C0 and C1":      "echo safe\r\x1b[2K\u0085; touch PWNED",
	}
	for name, cmd := range cmds {
		t.Run(name, func(t *testing.T) {
			for _, sz := range sizes {
				var decided []ApprovalDecision
				m := NewApprovalModal()
				m.SetTheme(dark)
				m.SetOnDecision(func(d ApprovalDecision, _ string) { decided = append(decided, d) })
				m.SetRequest(ApprovalRequest{Tool: "Shell", Action: "run shell command", Command: cmd})
				s := draw(t, m, sz.w, sz.h)
				text := screenText(s)
				if !strings.Contains(text, "touch PWNED") {
					t.Fatalf("%dx%d: the tail of the command is not on screen:\n%s", sz.w, sz.h, text)
				}
				assertNoControls(t, s)
				switch name {
				case "braille blanks":
					wantFg(t, s, "⟨U+2800×400⟩", dark.Warning)
				case "spaces":
					mustFind(t, s, "⟨U+0020×400⟩")
				case "zero-width":
					mustFind(t, s, "⟨U+200B×400⟩")
				case "bidi override":
					mustFind(t, s, "⟨U+202E⟩")
				case "C0 and C1":
					mustFind(t, s, "⟨U+000D⟩⟨U+001B⟩[2K⟨U+0085⟩")
				}
				send(m, key(tcell.KeyRune, 'y', 0))
				if len(decided) != 1 || decided[0] != ApproveOnce {
					t.Fatalf("%dx%d: y on a command shown whole: %v", sz.w, sz.h, decided)
				}
			}
		})
	}
}

// TestApprovalWaitsForTheEndOfALongCommand: a command longer than the
// dialog says how much is left, and approving needs its end on screen.
func TestApprovalWaitsForTheEndOfALongCommand(t *testing.T) {
	t.Parallel()
	var words []string
	for i := 0; len(strings.Join(words, " ")) < 4000; i++ {
		words = append(words, "step"+strings.Repeat("x", i%7))
	}
	cmd := strings.Join(words, " ") + " && touch PWNED"
	var decided []ApprovalDecision
	m := NewApprovalModal()
	m.SetTheme(dark)
	m.SetOnDecision(func(d ApprovalDecision, _ string) { decided = append(decided, d) })
	m.SetRequest(ApprovalRequest{Tool: "Shell", Action: "run shell command", Command: cmd})
	s := draw(t, m, 80, 24)
	mustFind(t, s, "command continues: ")
	wantFg(t, s, "[y]", dark.Dim)
	if strings.Contains(screenText(s), "touch PWNED") {
		t.Fatal("the test command fits; make it longer")
	}
	send(m, key(tcell.KeyRune, 'y', 0), key(tcell.KeyEnter, 0, 0), key(tcell.KeyRune, 'a', 0))
	if len(decided) != 0 {
		t.Fatalf("approved before the end of the command was shown: %v", decided)
	}
	for i := 0; i < 200 && !strings.Contains(screenText(s), "touch PWNED"); i++ {
		send(m, key(tcell.KeyPgDn, 0, 0))
		redraw(s, m)
	}
	mustFind(t, s, "touch PWNED")
	if strings.Contains(screenText(s), "command continues") {
		t.Error("still says the command continues at its end")
	}
	wantFg(t, s, "[y]", dark.ToolOK)
	send(m, key(tcell.KeyRune, 'y', 0))
	if len(decided) != 1 || decided[0] != ApproveOnce {
		t.Fatalf("y at the end of the command: %v", decided)
	}
}

func TestRevealHidden(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ls -la":                     "ls -la",
		"a\u00a0b":                   "a⟨U+00A0⟩b",
		"x" + strings.Repeat(" ", 8): "x        ",
		"x" + strings.Repeat(" ", 9): "x⟨U+0020×9⟩",
		"line1\nline2\tend":          "line1\nline2⟨U+0009⟩end",
		"\xff":                       "⟨U+FFFD⟩",
	} {
		if got := RevealHidden(in); got != want {
			t.Errorf("RevealHidden(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestApprovalSaysWhatSessionApprovalCovers: `a` on a compound command
// with a destructive part must say that part is approved only as typed.
func TestApprovalSaysWhatSessionApprovalCovers(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		m := NewApprovalModal()
		m.SetTheme(dark)
		m.SetRequest(ApprovalRequest{Tool: "Shell", Action: "run shell command", Command: "rm -f gone.txt && echo ok",
			SessionScopes: []string{"rm -f gone.txt", "echo …"}})
		s := draw(t, m, sz.w, sz.h)
		text := strings.Join(strings.Fields(strings.ReplaceAll(screenText(s), "║", " ")), " ")
		if want := "[a] approves “echo …” and exactly “rm -f gone.txt” for this session"; !strings.Contains(text, want) {
			t.Errorf("%dx%d: want %q on screen:\n%s", sz.w, sz.h, want, screenText(s))
		}
	}
	for scopes, want := range map[string]string{
		"":                  "every “edit file”",
		"go test …":         "“go test …”",
		"sudo ls":           "exactly “sudo ls”",
		"a …|b …|rm x|mv y": "“a …”, “b …” and exactly “rm x”, “mv y”",
	} {
		var sc []string
		if scopes != "" {
			sc = strings.Split(scopes, "|")
		}
		if got := ScopeText(sc, "edit file"); got != want {
			t.Errorf("ScopeText(%q) = %q, want %q", sc, got, want)
		}
	}
}
