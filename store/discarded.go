package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/store/message"
)

// Discarded is what leaving a view at one of its checkpoints leaves in the
// archived generation: the messages from the checkpoint on, the user's
// prompts among them, and the prompt the view returns to. A D-Mail's
// banner says it when the backtrack happens and again whenever the
// session is reopened; both read it here.
type Discarded struct {
	Gen      int // the generation whose view was read
	Messages int
	Prompts  int
	// ReturnedTo is the first of the user's prompts at or after the
	// checkpoint, else the last one before it, whitespace folded, whole
	// (the display cuts it); "" when the view holds no prompt.
	ReturnedTo string
}

// discardedPage is how many records DiscardedAt reads at a time.
const discardedPage = 256

// DiscardedAt reads what reverting generation gen's view of sessionID
// (gen < 0: the current one) to checkpoint id discards. The message count
// comes from the counters; the prompts are read in pages from the
// checkpoint on (what a backtrack discards is a few steps), never the part
// of the view before it except to find the prompt it returns to.
func (db *DB) DiscardedAt(ctx context.Context, sessionID string, gen, id int) (Discarded, error) {
	at, err := db.FindCheckpoint(ctx, sessionID, gen, id)
	if err != nil {
		return Discarded{}, err
	}
	gen = at.Generation.Gen
	d := Discarded{Gen: gen, Messages: at.Generation.Messages - at.MessagesBefore}
	for pos := at.Pos; ; {
		page, err := db.ViewAfter(ctx, sessionID, gen, pos, discardedPage)
		if err != nil {
			return Discarded{}, fmt.Errorf("what checkpoint %d discards: %w", id, err)
		}
		for _, r := range page.Records {
			if p := promptOf(r); p != "" {
				d.Prompts++
				if d.ReturnedTo == "" {
					d.ReturnedTo = p
				}
			}
		}
		if !page.Later || len(page.Records) == 0 {
			break
		}
		last := page.Records[len(page.Records)-1]
		pos = ViewPos{SessionID: last.SessionID, Seq: last.Seq}
	}
	for pos := at.Pos; d.ReturnedTo == ""; {
		page, err := db.ViewBefore(ctx, sessionID, gen, pos, discardedPage)
		if err != nil {
			return Discarded{}, fmt.Errorf("the prompt before checkpoint %d: %w", id, err)
		}
		for i := len(page.Records) - 1; i >= 0 && d.ReturnedTo == ""; i-- {
			d.ReturnedTo = promptOf(page.Records[i])
		}
		if !page.Earlier || len(page.Records) == 0 {
			break
		}
		pos = ViewPos{SessionID: page.Records[0].SessionID, Seq: page.Records[0].Seq}
	}
	return d, nil
}

// promptOf is the text of a prompt the user wrote, whitespace folded; ""
// for any other record, and for the messages rewind injects (markers).
func promptOf(r Record) string {
	if r.Kind != KindMessage || r.Role != "user" {
		return ""
	}
	m, err := r.Message()
	if err != nil {
		return ""
	}
	if k, _ := message.MarkerOf(m); k != message.NoMarker {
		return ""
	}
	return strings.Join(strings.Fields(m.Content.PlainText()), " ")
}
