package gen

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// KimiShare writes a kimi-cli share dir at dir: kimi.json naming 50 work
// dirs, and sessions/<md5 of the work dir>/<uuid>/context.jsonl with about
// records lines in all over the given number of sessions. Each file starts
// with a system prompt line; turns are a checkpoint, a user prompt, an
// assistant message with a think part and a Shell tool call, its result and
// a usage line (5 lines per turn). One session in ten was compacted once
// (context_1.jsonl holds its first half), one in fifty has an empty
// context.jsonl (never used), and one in a hundred ends with a torn line (a
// crash mid-write, no newline). It returns the number of records a
// complete import writes (the torn lines excluded).
func KimiShare(dir string, sessions, records int) (int, error) {
	if sessions <= 0 {
		return 0, fmt.Errorf("gen: sessions must be at least 1")
	}
	r := rand.New(rand.NewPCG(3, 4))
	type workDir struct {
		Path          string  `json:"path"`
		Kaos          string  `json:"kaos"`
		LastSessionID *string `json:"last_session_id"`
	}
	meta := struct {
		WorkDirs []workDir `json:"work_dirs"`
		Thinking bool      `json:"thinking"`
	}{}
	for i := range 50 {
		meta.WorkDirs = append(meta.WorkDirs, workDir{Path: fmt.Sprintf("/home/dev/project%d", i), Kaos: "local"})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	per := records / sessions
	written := 0
	start := time.Now().Add(-time.Duration(sessions) * time.Hour)
	for i := range sessions {
		wd := meta.WorkDirs[i%len(meta.WorkDirs)]
		sum := md5.Sum([]byte(wd.Path))
		uuid := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
		sdir := filepath.Join(dir, "sessions", hex.EncodeToString(sum[:]), uuid)
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			return 0, err
		}
		at := start.Add(time.Duration(i) * time.Hour)
		var lines []string
		if i%50 != 7 {
			lines = kimiLines(r, per)
		}
		files := [][]string{lines}
		if i%10 == 3 && len(lines) > 20 {
			half := len(lines) / 2
			files = [][]string{lines[:half], append([]string{lines[0]}, lines[half:]...)}
		}
		for fi, ls := range files {
			name := "context.jsonl"
			if fi < len(files)-1 {
				name = fmt.Sprintf("context_%d.jsonl", fi+1)
			}
			torn := i%100 == 42 && fi == len(files)-1
			if err := writeLines(filepath.Join(sdir, name), ls, torn, at); err != nil {
				return 0, err
			}
			written += len(ls)
		}
		if i%4 == 0 {
			meta.WorkDirs[i%len(meta.WorkDirs)].LastSessionID = &uuid
		}
	}
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return 0, err
	}
	return written, os.WriteFile(filepath.Join(dir, "kimi.json"), data, 0o644)
}

func writeLines(path string, lines []string, torn bool, mtime time.Time) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if torn {
		w.WriteString(`{"role":"assistant","content":[{"type":"text","text":"half a li`)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Chtimes(path, mtime, mtime)
}

// kimiLines is about n lines of a kimi-cli context.jsonl.
func kimiLines(r *rand.Rand, n int) []string {
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err) // the values built here always marshal
		}
		return string(b)
	}
	type part struct {
		Type  string `json:"type"`
		Text  string `json:"text,omitempty"`
		Think string `json:"think,omitempty"`
	}
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		Type     string `json:"type"`
		ID       string `json:"id"`
		Function fn     `json:"function"`
	}
	out := []string{enc(map[string]string{"role": "_system_prompt", "content": "You are Kimi CLI, an interactive coding agent. " + sentence(r, 40)})}
	tokens := 0
	for turn := 0; len(out) < n; turn++ {
		id := fmt.Sprintf("Shell:%d", turn)
		tokens += 200 + r.IntN(800)
		out = append(out,
			enc(map[string]any{"role": "_checkpoint", "id": turn}),
			enc(map[string]any{"role": "user", "content": []part{{Type: "text", Text: userPrompt(r)}}}),
			enc(map[string]any{"role": "assistant", "content": []part{{Type: "think", Think: sentence(r, 15)}, {Type: "text", Text: sentence(r, 12)}},
				"tool_calls": []call{{Type: "function", ID: id, Function: fn{Name: "Shell", Arguments: `{"command":"grep -rn ` + words[r.IntN(len(words))] + ` ."}`}}}}),
			enc(map[string]any{"role": "tool", "content": []part{{Type: "text", Text: sentence(r, 30)}}, "tool_call_id": id}),
			enc(map[string]any{"role": "_usage", "token_count": tokens}),
		)
	}
	return out[:n]
}
