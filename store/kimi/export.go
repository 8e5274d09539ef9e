package kimi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// MarshalRecord writes one record as a context.jsonl line (compact JSON,
// without the newline).
func MarshalRecord(r store.Record) ([]byte, error) {
	switch r.Kind {
	case store.KindMessage:
		if len(r.Body) == 0 {
			return nil, fmt.Errorf("record %d: message without a body", r.Seq)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, r.Body); err != nil {
			return nil, fmt.Errorf("record %d: message body: %w", r.Seq, err)
		}
		return b.Bytes(), nil
	case store.KindCheckpoint:
		if kept, ok := keptBody(r, "id", r.CheckpointID); ok {
			return kept, nil
		}
		return []byte(`{"role":"` + RoleCheckpoint + `","id":` + strconv.Itoa(r.CheckpointID) + `}`), nil
	case store.KindUsage:
		if kept, ok := keptBody(r, "token_count", r.TokenCount); ok {
			return kept, nil
		}
		return []byte(`{"role":"` + RoleUsage + `","token_count":` + strconv.Itoa(r.TokenCount) + `}`), nil
	}
	return nil, fmt.Errorf("record %d: unknown kind %q", r.Seq, r.Kind)
}

// keptBody returns the imported line of a checkpoint or usage record that
// had extra fields, when it still agrees with the record.
func keptBody(r store.Record, key string, want int) ([]byte, bool) {
	if len(r.Body) == 0 {
		return nil, false
	}
	var b bytes.Buffer
	if json.Compact(&b, r.Body) != nil {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b.Bytes(), &obj) != nil {
		return nil, false
	}
	role := RoleCheckpoint
	if r.Kind == store.KindUsage {
		role = RoleUsage
	}
	var gotRole string
	if json.Unmarshal(obj["role"], &gotRole) != nil || gotRole != role || string(obj[key]) != strconv.Itoa(want) {
		return nil, false
	}
	return b.Bytes(), true
}

// WriteRecords writes records as context.jsonl lines, one per line, each
// followed by a newline.
func WriteRecords(w io.Writer, recs []store.Record) error {
	bw := bufio.NewWriter(w)
	for _, r := range recs {
		line, err := MarshalRecord(r)
		if err != nil {
			return err
		}
		// A bufio.Writer keeps its first write error and Flush returns it.
		bw.Write(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Export writes generation gen of a session (-1: the current one) as a
// kimi-cli context.jsonl: the view's records in order. Its first line is
// the system prompt, as in every file kimi-cli writes: the generation's own
// (an imported session's), else systemPrompt when it is not empty (what
// rewind sends, which it does not store).
func Export(ctx context.Context, db *store.DB, sessionID string, gen int, systemPrompt string, w io.Writer) error {
	var v store.View
	var err error
	if gen < 0 {
		v, err = db.View(ctx, sessionID)
	} else {
		v, err = db.GenerationView(ctx, sessionID, gen)
	}
	if err != nil {
		return err
	}
	// Images are kept once in the blob table: the file gets their data
	// URLs back, as kimi-cli wrote them.
	for i, r := range v.Records {
		if r.Kind == store.KindMessage && message.HasImageRefs(r.Body) {
			if v.Records[i].Body, err = db.ExpandImages(ctx, r.Body); err != nil {
				return fmt.Errorf("export %s generation %d: record %d: %w", sessionID, v.Generation.Gen, r.Seq, err)
			}
		}
	}
	recs := v.Records
	if systemPrompt != "" && !hasSystemPrompt(recs) {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}{RoleSystemPrompt, systemPrompt}); err != nil {
			return fmt.Errorf("export %s: system prompt: %w", sessionID, err)
		}
		recs = append([]store.Record{{Kind: store.KindMessage, Role: RoleSystemPrompt, Body: line.Bytes()}}, recs...)
	}
	if err := WriteRecords(w, recs); err != nil {
		return fmt.Errorf("export %s generation %d: %w", sessionID, v.Generation.Gen, err)
	}
	return nil
}

// hasSystemPrompt reports whether a view holds a _system_prompt line.
func hasSystemPrompt(recs []store.Record) bool {
	for _, r := range recs {
		if r.Kind == store.KindMessage && r.Role == RoleSystemPrompt {
			return true
		}
	}
	return false
}

// ExportSession writes every generation of a session into dir as a kimi-cli
// session directory: the generations before the current one as
// context_1.jsonl, context_2.jsonl… in creation order, as kimi-cli's
// rotation names them, the current one as context.jsonl. dir is created
// if needed; existing files are never overwritten (an error names the
// first one found). Each file starts with a system prompt line as Export
// writes it. wrap, when not nil, filters each file's bytes (the caller's
// redaction). It returns the files written, in order.
func ExportSession(ctx context.Context, db *store.DB, sessionID string, dir, systemPrompt string, wrap func(io.Writer) io.WriteCloser) ([]string, error) {
	gens, err := db.Generations(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	sess, err := db.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var order []int // archived first, current last
	for _, g := range gens {
		if g.Gen != sess.CurrentGen {
			order = append(order, g.Gen)
		}
	}
	order = append(order, sess.CurrentGen)
	names := make([]string, len(order))
	for i := range order[:len(order)-1] {
		names[i] = filepath.Join(dir, fmt.Sprintf("context_%d.jsonl", i+1)) // as SessionFiles reads them
	}
	names[len(names)-1] = filepath.Join(dir, CurrentFile)
	for _, n := range names {
		if _, err := os.Lstat(n); err == nil {
			return nil, fmt.Errorf("export: %s: %w", n, fs.ErrExist)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	for i, g := range order {
		if err := exportFile(ctx, db, sess.ID, g, names[i], systemPrompt, wrap); err != nil {
			return names[:i], err
		}
	}
	return names, nil
}

func exportFile(ctx context.Context, db *store.DB, sessionID string, gen int, name, systemPrompt string, wrap func(io.Writer) io.WriteCloser) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	var w io.Writer = f
	var filter io.WriteCloser
	if wrap != nil {
		filter = wrap(f)
		w = filter
	}
	err = Export(ctx, db, sessionID, gen, systemPrompt, w)
	if err == nil && filter != nil {
		err = filter.Close() // flushes what it held back
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("export: %w", cerr)
	}
	return err
}
