package kimi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/store"
)

// The metadata roles of context.jsonl.
const (
	RoleSystemPrompt = "_system_prompt"
	RoleCheckpoint   = "_checkpoint"
	RoleUsage        = "_usage"
)

// File is one parsed context.jsonl.
type File struct {
	Name string
	// Records in file order, ready for store.ImportedGeneration: the system
	// prompt line is a message record with role RoleSystemPrompt.
	Records []store.Record
	// Decoded is the decoded message of each message record (nil for
	// checkpoints and usage), for store.ImportedGeneration.Decoded.
	Decoded []*message.Message
	// SystemPrompt is the plain text of the (last) _system_prompt line;
	// HasSystemPrompt says whether there was one.
	SystemPrompt    string
	HasSystemPrompt bool
}

// LineError is a malformed line of a context file.
type LineError struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

var bom = []byte("\xef\xbb\xbf")

// Parse reads a context.jsonl. name is used in error messages. The first
// malformed line fails the whole file with a *LineError.
func Parse(r io.Reader, name string) (File, error) { return ParseWith(r, name, ParseOptions{}) }

// ParseOptions relaxes Parse for bulk imports.
type ParseOptions struct {
	// SkipTorn skips a malformed final line without a trailing newline (a
	// crash mid-write; kimi-cli skips it too) and reports it to Warn.
	SkipTorn bool
	// SkipInvalid skips every malformed line, reporting each to Warn.
	SkipInvalid bool
	Warn        func(*LineError)
	// MaxLine caps one line (0: DefaultMaxLine). A longer message line is
	// kept as its role, ids and tool calls with a content that says it was
	// cut and where the whole line is (cutLine): one 200 MB answer took
	// 3 GB to import and its session 43 s to open.
	MaxLine int
}

// DefaultMaxLine is the longest line an import takes: a model answer and
// its tool calls' arguments at their default caps (8 MiB each).
const DefaultMaxLine = 16 << 20

// errLongLine is the error of a line over ParseOptions.MaxLine.
type errLongLine struct{ size, max int }

func (e errLongLine) Error() string {
	return fmt.Sprintf("the line is %s, over the %s one message may hold (answer_size_cap + tool_args_size_cap)", sizeText(e.size), sizeText(e.max))
}

func sizeText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

// ParseWith is Parse with options.
func ParseWith(r io.Reader, name string, o ParseOptions) (File, error) {
	f := File{Name: name}
	_, err := newFileParser(r, name, o).next(&f, 0)
	if err != nil {
		return File{}, err
	}
	return f, nil
}

// fileParser parses a context file's lines as they are read: whole
// (ParseWith), or a piece at a time (a session too large to hold whole).
type fileParser struct {
	br   *bufio.Reader
	name string
	o    ParseOptions
	n    int // lines read
}

func newFileParser(r io.Reader, name string, o ParseOptions) *fileParser {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	return &fileParser{br: bufio.NewReaderSize(r, 64<<10), name: name, o: o}
}

// next appends the records of the lines that follow to f, up to limit
// records (0: to the end); eof says the file is done.
func (p *fileParser) next(f *File, limit int) (eof bool, _ error) {
	name, o := p.name, p.o
	for added := 0; limit <= 0 || added < limit; {
		p.n++
		n := p.n
		line, long, edges, err := readCappedLine(p.br, o.MaxLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return false, fmt.Errorf("%s: %w", name, err)
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, bom)
		}
		if long > 0 || len(bytes.TrimSpace(line)) > 0 {
			var rec store.Record
			var m *message.Message
			var perr error
			if long > 0 {
				rec, m, perr = cutLine(edges, long, o.MaxLine, name, n)
			} else {
				rec, m, perr = parseLine(line)
			}
			switch {
			case perr == nil:
				if m != nil && rec.Role == RoleSystemPrompt {
					f.SystemPrompt, f.HasSystemPrompt = m.Content.PlainText(), true
				}
				f.Records = append(f.Records, rec)
				f.Decoded = append(f.Decoded, m)
				added++
			case err != nil && o.SkipTorn: // the final line, no newline
				if o.Warn != nil {
					o.Warn(&LineError{File: name, Line: n, Err: fmt.Errorf("torn final line (no newline) skipped: %w", perr)})
				}
			case o.SkipInvalid:
				if o.Warn != nil {
					o.Warn(&LineError{File: name, Line: n, Err: fmt.Errorf("skipped: %w", perr)})
				}
			default:
				return false, &LineError{File: name, Line: n, Err: perr}
			}
		}
		if err != nil { // io.EOF
			return true, nil
		}
	}
	return false, nil
}

// lineEdges are the first and last bytes of a line too long to keep.
type lineEdges struct{ head, tail []byte }

// Edge sizes kept of a long line: the head holds its role, the tail its
// tool_call_id and tool_calls (kimi-cli writes them after the content).
const (
	longHead = 4 << 10
	longTail = 256 << 10
)

// readCappedLine reads one line; a line longer than max is read to its end
// but not kept: long is then its length, line nil, and edges its head and
// tail.
func readCappedLine(br *bufio.Reader, max int) (line []byte, long int, edges lineEdges, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if long == 0 && len(line)+len(frag) > max {
			long = len(line)
			edges.head = append([]byte(nil), line[:min(len(line), longHead)]...)
			edges.tail = append(edges.tail, line...)
			line = nil
		}
		if long > 0 {
			long += len(frag)
			if len(edges.head) < longHead {
				edges.head = append(edges.head, frag[:min(len(frag), longHead-len(edges.head))]...)
			}
			edges.tail = append(edges.tail, frag...)
			if len(edges.tail) > 2*longTail {
				edges.tail = append(edges.tail[:0], edges.tail[len(edges.tail)-longTail:]...)
			}
		} else {
			line = append(line, frag...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(edges.tail) > longTail {
				edges.tail = edges.tail[len(edges.tail)-longTail:]
			}
			return line, long, edges, err
		}
	}
}

// Compiled on first use (a line over the cap): toolCallIDField's {1,200}
// compiles to a long program, about 0.2 ms in every rewind process.
var (
	roleField       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"role"\s*:\s*"([a-z_]+)"`) })
	toolCallIDField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"tool_call_id"\s*:\s*"([^"\\]{1,200})"`) })
)

// cutLine keeps a message line longer than max as a message of its role,
// with its tool_call_id and tool calls when its tail holds them, whose
// content says it was cut and where the whole line is. A line that is not
// a message is the error errLongLine.
func cutLine(e lineEdges, size, max int, file string, n int) (store.Record, *message.Message, error) {
	rm := roleField().FindSubmatch(e.head)
	if rm == nil || string(rm[1]) == RoleCheckpoint || string(rm[1]) == RoleUsage {
		return store.Record{}, nil, errLongLine{size, max}
	}
	body := map[string]any{
		"role":    string(rm[1]),
		"content": fmt.Sprintf("[truncated at import: this message was %s, over the %s one message may hold; the whole text is line %d of %s]", sizeText(size), sizeText(max), n, file),
	}
	if id := toolCallIDField().FindSubmatch(e.tail); id != nil {
		body["tool_call_id"] = string(id[1])
	}
	if i := bytes.LastIndex(e.tail, []byte(`"tool_calls"`)); i >= 0 {
		rest := bytes.TrimLeft(e.tail[i+len(`"tool_calls"`):], " \t:")
		var calls json.RawMessage
		if json.NewDecoder(bytes.NewReader(rest)).Decode(&calls) == nil && len(calls) > 0 && calls[0] == '[' {
			body["tool_calls"] = calls
		}
	}
	data, err := json.Marshal(body)
	if err != nil {
		return store.Record{}, nil, errLongLine{size, max}
	}
	m := new(message.Message)
	if err := json.Unmarshal(data, m); err != nil { // the tool calls did not decode: keep the rest
		delete(body, "tool_calls")
		if data, err = json.Marshal(body); err != nil || json.Unmarshal(data, m) != nil {
			return store.Record{}, nil, errLongLine{size, max}
		}
	}
	return store.Record{Kind: store.KindMessage, Role: m.Role, Body: data}, m, nil
}

// parseLine turns one non-blank line into a record (and, for a message,
// its decoded body). A message line is compacted and decoded once; other
// lines, and any line that fails, take the careful path, which names what
// is wrong.
func parseLine(line []byte) (store.Record, *message.Message, error) {
	line = bytes.TrimSpace(line)
	if line[0] == '{' {
		var body bytes.Buffer
		body.Grow(len(line))
		if json.Compact(&body, line) == nil {
			m := new(message.Message)
			if json.Unmarshal(body.Bytes(), m) == nil && m.Role != "" && m.Role != RoleCheckpoint && m.Role != RoleUsage {
				return store.Record{Kind: store.KindMessage, Role: m.Role, Body: body.Bytes()}, m, nil
			}
		}
	}
	return parseLineCarefully(line)
}

func parseLineCarefully(line []byte) (store.Record, *message.Message, error) {
	if line[0] != '{' {
		return store.Record{}, nil, fmt.Errorf("want a JSON object, got %s", describe(line))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return store.Record{}, nil, jsonError(line, err)
	}
	rawRole, ok := obj["role"]
	if !ok {
		return store.Record{}, nil, errors.New(`no "role" field`)
	}
	var role string
	if err := json.Unmarshal(rawRole, &role); err != nil {
		return store.Record{}, nil, fmt.Errorf(`"role" is not a string: %s`, abbrev(rawRole))
	}
	var body bytes.Buffer
	if err := json.Compact(&body, line); err != nil {
		return store.Record{}, nil, jsonError(line, err)
	}
	switch role {
	case RoleCheckpoint:
		id, err := count(obj, "id")
		if err != nil {
			return store.Record{}, nil, fmt.Errorf("%s: %w", role, err)
		}
		r := store.Record{Kind: store.KindCheckpoint, CheckpointID: id}
		if len(obj) > 2 {
			r.Body = body.Bytes()
		}
		return r, nil, nil
	case RoleUsage:
		n, err := count(obj, "token_count")
		if err != nil {
			return store.Record{}, nil, fmt.Errorf("%s: %w", role, err)
		}
		r := store.Record{Kind: store.KindUsage, TokenCount: n}
		if len(obj) > 2 {
			r.Body = body.Bytes()
		}
		return r, nil, nil
	}
	var m message.Message
	if err := json.Unmarshal(body.Bytes(), &m); err != nil {
		return store.Record{}, nil, fmt.Errorf("%s message: %w", role, err)
	}
	return store.Record{Kind: store.KindMessage, Role: role, Body: body.Bytes()}, &m, nil
}

// count reads a non-negative integer field.
func count(obj map[string]json.RawMessage, key string) (int, error) {
	raw, ok := obj[key]
	if !ok {
		return 0, fmt.Errorf("no %q field", key)
	}
	n, err := strconv.ParseInt(string(raw), 10, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q must be a non-negative integer, got %s", key, abbrev(raw))
	}
	return int(n), nil
}

// jsonError describes a JSON syntax error with its column.
func jsonError(line []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at column %d: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("want a JSON object, got %s", describe(line))
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// describe names the kind of JSON value line starts with.
func describe(line []byte) string {
	switch line[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "a number"
	}
	return strconv.Quote(string(abbrev(line)))
}

// abbrev shortens a value for an error message.
func abbrev(b []byte) []byte {
	const max = 40
	if len(b) <= max {
		return b
	}
	return append(append([]byte(nil), b[:max]...), "…"...)
}
