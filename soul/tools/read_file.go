package tools

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/internal/words"
)

//go:embed read_file.md
var readFileDescription string

// ReadFile limits.
const (
	readMaxLines     = 1000
	readMaxLineChars = 2000
	readMaxBytes     = 100 << 10
)

// readFileArgs are ReadFile's arguments.
type readFileArgs struct {
	Path       string `json:"path" jsonschema:"The file to read (relative to the work dir, or absolute)."`
	LineOffset int    `json:"line_offset,omitempty" jsonschema:"The 1-based line number to start reading at."`
	// The bound in the description is readMaxLines (TestArgDescriptionsMatchConstants).
	NLines int `json:"n_lines,omitempty" jsonschema:"The number of lines to read (at most 1000)."`
}

func (readFileArgs) About() About {
	return About{Name: "ReadFile", Description: readFileDescription, ReadOnly: true, Params: map[string]Param{
		"line_offset": {Default: 1, Minimum: Min(1)},
		"n_lines":     {Default: readMaxLines, Minimum: Min(1)},
	}}
}

func (a readFileArgs) Label() string { return a.Path }

// ReadFile returns numbered lines of a text file.
type ReadFile struct{ Typed[readFileArgs] }

func (t *ReadFile) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	if strings.TrimSpace(a.Path) == "" {
		return invalidArgs(t.Name(), "the path is empty.")
	}
	a.NLines = min(a.NLines, readMaxLines)
	tg, res, ok := resolveForRead(ctx, env, t.Name(), a.Path, "Read")
	if !ok {
		return res
	}
	info, err := os.Stat(tg.Real)
	if err != nil {
		return statErr(tg.Display, err)
	}
	if info.IsDir() {
		return errorResult("is a directory", "%s is a directory; use ListDir to list it.", tg.Display)
	}
	f, err := regfile.Open(tg.Real)
	var notRegular *regfile.NotRegularError
	if errors.As(err, &notRegular) {
		return errorResult("not a regular file", "%s is %s, not a regular file; ReadFile reads regular files only (a pipe or device could block forever). Use Shell if you really mean to read it.", tg.Display, notRegular.Kind)
	}
	if err != nil {
		return statErr(tg.Display, err)
	}
	defer f.Close()

	// Each read is bounded in time and by ctx: a file on a hung mount
	// must not hold the step past Esc.
	br := bufio.NewReaderSize(regfile.NewReader(ctx, f, tg.Display), 64<<10)
	head, _ := br.Peek(binarySniffLen)
	if isBinary(head) {
		return errorResult("binary file", "%s looks like a binary file (%s); ReadFile reads text files only.", tg.Display, HumanBytes(info.Size()))
	}

	var out strings.Builder
	lineNo, shown, cutLines := 0, 0, 0
	lastShown := 0
	stopReason := ""
	for {
		if ctx.Err() != nil {
			return errorResult("interrupted", "Reading %s was interrupted.", tg.Display)
		}
		line, full, err := readLine(br, readMaxLineChars*4)
		if err != nil && line == "" {
			if ctx.Err() != nil {
				return errorResult("interrupted", "Reading %s was interrupted.", tg.Display)
			}
			if !errors.Is(err, io.EOF) {
				return errorResult("read failed", "Reading %s failed: %v.", tg.Display, err)
			}
			break
		}
		lineNo++
		if lineNo < a.LineOffset {
			continue
		}
		if shown >= a.NLines {
			stopReason = "lines"
			break
		}
		line = strings.TrimSuffix(line, "\r")
		if !full || utf8.RuneCountInString(line) > readMaxLineChars {
			line = clipRunes(line, readMaxLineChars) + " … [line truncated]"
			cutLines++
		}
		entry := fmt.Sprintf("%6d\t%s\n", lineNo, line)
		if out.Len()+len(entry) > readMaxBytes && shown > 0 {
			stopReason = "bytes"
			break
		}
		out.WriteString(entry)
		shown++
		lastShown = lineNo
	}
	if lineNo < a.LineOffset && shown == 0 {
		if lineNo == 0 {
			return Result{Output: fmt.Sprintf("%s is empty.", tg.Display), Brief: "empty file"}
		}
		return errorResult("offset past end", "line_offset %d is past the end of %s, which has %s.", a.LineOffset, tg.Display, words.Count(lineNo, "line"))
	}
	text := out.String()
	switch stopReason {
	case "lines":
		text += fmt.Sprintf("\n[Showing lines %d-%d of %s; more follow. Continue with line_offset=%d.]", a.LineOffset, lastShown, tg.Display, lastShown+1)
	case "bytes":
		text += fmt.Sprintf("\n[Output truncated at %s: showing lines %d-%d of %s. Continue with line_offset=%d.]", HumanBytes(readMaxBytes), a.LineOffset, lastShown, tg.Display, lastShown+1)
	}
	if cutLines > 0 {
		text += fmt.Sprintf("\n[%s longer than %d characters truncated.]", words.Count(cutLines, "line"), readMaxLineChars)
	}
	return Result{
		Output: strings.TrimRight(text, "\n"),
		Brief:  fmt.Sprintf("read %s of %s", words.Count(shown, "line"), tg.Display),
	}
}

// readLine reads one line without its newline. Bytes beyond max are
// discarded (full is false). err is io.EOF at the end.
func readLine(br *bufio.Reader, max int) (line string, full bool, err error) {
	var b []byte
	total := 0
	for {
		chunk, err := br.ReadSlice('\n')
		total += len(chunk)
		if room := max - len(b); room > 0 {
			b = append(b, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			total-- // the newline
		}
		return strings.TrimSuffix(string(b), "\n"), total <= max, err
	}
}

// clipRunes cuts s to n runes, dropping a broken last rune.
func clipRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return strings.ToValidUTF8(s, "")
}
