package tui

import (
	"context"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store/peers"
	"github.com/rewind-agent/rewind/views"
)

// This file sends the input's prompts to the model: a run of the open
// session, or of a new one created on the way. A prompt that cannot be
// sent, or that the run could not save, goes back into the input: nothing
// typed is lost.

// prompter owns the prompt in flight (UI goroutine only).
type prompter struct {
	c prompterDeps
	// unsent is the prompt of the run in flight until the run ends: given
	// back to the input when it was not saved (onUINotSaved).
	unsent *unsentPrompt
	seq    int // numbers the prompt items' IDs
	// importNoted: the sessions imported from another agent whose notice
	// the first prompt showed.
	importNoted map[string]bool
}

// prompterDeps is what sending a prompt reaches besides the common: the
// soul settings a new session starts with, the input and the conversation,
// the pager (a prompt follows the newest message), the database-busy
// notice, and the Controller's run and new session through the host.
type prompterDeps struct {
	featureCommon
	prompterHost
	*stepItems
	soul   *soul.Config // Options.Soul
	input  *views.Input
	conv   *views.Conversation
	pg     *pager
	dbBusy *dbBusyNotice
}

type prompterHost interface {
	startOp(op string, f func(ctx context.Context) error)
	onWorkerCreateSession(ctx context.Context, cfg soul.Config) (*openSession, error)
}

// unsentPrompt is a prompt shown as sent whose run has not ended: at is
// its item in the conversation.
type unsentPrompt struct {
	text string
	at   int
	id   string // its item's ID
}

// runPrompt sends text to the model (UI).
func (p *prompter) runPrompt(text string) { p.runPromptShown(text, text) }

// runPromptShown is runPrompt with the text as the conversation shows it
// (long pastes folded).
func (p *prompter) runPromptShown(text, shown string) {
	c := p.c
	if r := c.firstHolding([]rule{ruleReadOnly, ruleRunActive}); r != 0 {
		c.input.SetText(text)
		c.setMessage(c.refusal("", r)+" (your text stays in the input)", true)
		return
	}
	if c.pg.win.later > 0 {
		// Opened at a search hit: the prompt follows the newest message,
		// so the conversation jumps there first.
		c.pg.onUIJumpToEnd(func() {
			if c.pg.win.later > 0 { // the end could not be read (the status bar says why)
				c.input.SetText(text)
				return
			}
			p.runPromptShown(text, shown)
		})
		return
	}
	o, cfg := c.cur(), *c.soul
	if o != nil && !p.importNoted[o.sess.ID] {
		// The first prompt of a session imported from another agent says
		// once that rewind goes on with its own model and tools.
		if note := peers.ContinueNotice(o.sess.Origin); note != "" {
			if p.importNoted == nil {
				p.importNoted = map[string]bool{}
			}
			p.importNoted[o.sess.ID] = true
			infoBanner(c.conv, note)
		}
	}
	p.seq++
	p.unsent = &unsentPrompt{text: text, at: c.conv.Len(), id: fmt.Sprintf("prompt-%d", p.seq)}
	item := promptItem(text, shown)
	item.ID = p.unsent.id // PromptImages adds the images it attached
	c.conv.Append(item)
	c.conv.ScrollToEnd()
	c.markStepStart()
	c.startOp("run", func(ctx context.Context) error {
		if o == nil { // the first prompt of a new session creates it
			var err error
			if o, err = c.onWorkerCreateSession(ctx, cfg); err != nil {
				return fmt.Errorf("%w: %w", soul.ErrNotSaved, err)
			}
		}
		return o.soul.Run(ctx, text)
	})
	c.dbBusy.onUIPromptSent() // the prompt waits too: say how to stop it
}

// onUIImages shows the images the prompt being run attached under it.
func (p *prompter) onUIImages(ev soul.PromptImages) {
	if p.unsent == nil || p.unsent.id == "" {
		return
	}
	p.c.conv.UpdateItem(p.unsent.id, func(it *views.Item) { it.Images = imageLabels(ev.Images) })
}

// takeUnsent ends the prompt in flight: its run ended (UI).
func (p *prompter) takeUnsent() *unsentPrompt {
	u := p.unsent
	p.unsent = nil
	return u
}

// onUINotSaved gives back a prompt the run could not save (the database
// stayed busy until Esc, or refused the write): the conversation no longer
// shows it as sent, and its text is back in the input.
func (p *prompter) onUINotSaved(u *unsentPrompt, err error) {
	if u == nil {
		return
	}
	c := p.c
	// The prompt is the last user item with its text (older pages loaded
	// meanwhile moved it from u.at).
	for i := c.conv.Len() - 1; i >= min(u.at, c.conv.Len()-1) && i >= 0; i-- {
		if it, _ := c.conv.Item(i); it.Kind == views.ItemUser && (it.Text == u.text || it.Full == u.text) {
			c.conv.SetItems(convItems(c.conv, i))
			c.markStepStart()
			break
		}
	}
	if cur := c.input.Text(); cur != "" {
		c.input.SetText(u.text + "\n" + cur)
	} else {
		c.input.SetText(u.text)
	}
	why := "the database stayed busy (another process is writing)"
	if !errors.Is(err, context.Canceled) {
		why = oneLine(err.Error(), 100)
	}
	c.setMessage("not sent: "+why+"; your prompt is back in the input", true)
}

// infoBanner shows text as an info banner at the end of conv (UI).
func infoBanner(conv *views.Conversation, text string) {
	conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: text})
	conv.ScrollToEnd()
}
