package gen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CodexHome writes a codex home (sessions/YYYY/MM/DD/rollout-*.jsonl) of
// the given sessions, each of turns turns shaped as codex 0.171 writes
// them: a prompt, reasoning, an exec_command call (one in five failing)
// and its output, a token count, an answer and a token count, with codex's
// bookkeeping lines between. It returns the records an import makes.
func CodexHome(dir string, sessions, turns int) (int, error) {
	r := rand.New(rand.NewPCG(5, 6))
	start := time.Now().Add(-time.Duration(sessions) * time.Hour)
	records := 0
	for i := range sessions {
		at := start.Add(time.Duration(i) * time.Hour)
		id := uuidOf(r)
		day := filepath.Join(dir, "sessions", at.Format("2006"), at.Format("01"), at.Format("02"))
		if err := os.MkdirAll(day, 0o755); err != nil {
			return 0, err
		}
		var b strings.Builder
		line := func(typ string, payload any) {
			at = at.Add(time.Second)
			data, _ := json.Marshal(map[string]any{"timestamp": at.UTC().Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
			b.Write(data)
			b.WriteByte('\n')
		}
		wd := fmt.Sprintf("/home/dev/project%d", i%50)
		line("session_meta", map[string]any{"id": id, "cwd": wd, "cli_version": "0.171.0", "originator": "codex_exec"})
		line("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "<environment_context>\n  <cwd>" + wd + "</cwd>\n</environment_context>"}}})
		tokens := 1500
		for turn := range turns {
			line("turn_context", map[string]any{"cwd": wd, "model": "gpt-5-codex"})
			line("event_msg", map[string]any{"type": "task_started"})
			line("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": fmt.Sprintf("Turn %d of session %d: %s", turn, i, sentence(r, 12))}}})
			line("response_item", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": sentence(r, 20)}}})
			call := fmt.Sprintf("call_%d_%d", i, turn)
			line("response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": call, "arguments": `{"cmd":"grep -rn ` + sentence(r, 1) + ` ."}`})
			code := 0
			if r.IntN(5) == 0 {
				code = 1
			}
			line("response_item", map[string]any{"type": "function_call_output", "call_id": call, "output": fmt.Sprintf("Chunk ID: 1\nProcess exited with code %d\nOutput:\n%s", code, sentence(r, 40))})
			tokens += 400
			line("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"last_token_usage": map[string]any{"input_tokens": tokens, "output_tokens": 60, "total_tokens": tokens + 60}}})
			line("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": sentence(r, 30)}}})
			tokens += 200
			line("event_msg", map[string]any{"type": "token_count", "info": map[string]any{"last_token_usage": map[string]any{"input_tokens": tokens, "output_tokens": 60, "total_tokens": tokens + 60}}})
			line("event_msg", map[string]any{"type": "task_complete"})
			records += 8 // checkpoint, prompt, reasoning, call, output, usage, answer, usage
		}
		name := filepath.Join(day, "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			return 0, err
		}
	}
	return records, nil
}

// ClaudeHome writes a Claude Code home (projects/<escaped cwd>/<uuid>.jsonl)
// of the given sessions, each of turns turns shaped as Claude Code 2.1
// writes them: a prompt, an answer of three lines sharing its message id
// and usage (thinking, text, a Bash call), its result (one in five an
// error), a closing answer, with bookkeeping records between. It returns
// the records an import makes.
func ClaudeHome(dir string, sessions, turns int) (int, error) {
	r := rand.New(rand.NewPCG(7, 8))
	start := time.Now().Add(-time.Duration(sessions) * time.Hour)
	records := 0
	for i := range sessions {
		at := start.Add(time.Duration(i) * time.Hour)
		id := uuidOf(r)
		wd := fmt.Sprintf("/home/dev/project%d", i%50)
		pdir := filepath.Join(dir, "projects", strings.ReplaceAll(wd, "/", "-"))
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			return 0, err
		}
		var b strings.Builder
		parent := ""
		rec := func(m map[string]any) {
			at = at.Add(time.Second)
			u := uuidOf(r)
			m["uuid"], m["sessionId"], m["cwd"], m["timestamp"] = u, id, wd, at.UTC().Format("2006-01-02T15:04:05.000Z")
			if parent == "" {
				m["parentUuid"] = nil
			} else {
				m["parentUuid"] = parent
			}
			m["isSidechain"] = false
			parent = u
			data, _ := json.Marshal(m)
			b.Write(data)
			b.WriteByte('\n')
		}
		tokens := 1200
		for turn := range turns {
			b.WriteString(`{"type":"queue-operation","operation":"enqueue","timestamp":"` + at.UTC().Format(time.RFC3339) + `","sessionId":"` + id + `"}` + "\n")
			rec(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": fmt.Sprintf("Turn %d of session %d: %s", turn, i, sentence(r, 12))}})
			rec(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "todo"}})
			msg := fmt.Sprintf("msg_%d_%d", i, turn)
			tokens += 300
			usage := map[string]any{"input_tokens": tokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 50}
			call := fmt.Sprintf("toolu_%d_%d", i, turn)
			for _, block := range []map[string]any{
				{"type": "thinking", "thinking": sentence(r, 20), "signature": "c2ln"},
				{"type": "text", "text": sentence(r, 15)},
				{"type": "tool_use", "id": call, "name": "Bash", "input": map[string]any{"command": "ls " + sentence(r, 1), "description": "List"}},
			} {
				rec(map[string]any{"type": "assistant", "message": map[string]any{"id": msg, "role": "assistant", "model": "claude-opus-4-8", "content": []any{block}, "usage": usage}})
			}
			rec(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": sentence(r, 40), "is_error": r.IntN(5) == 0}}}})
			tokens += 200
			rec(map[string]any{"type": "assistant", "message": map[string]any{"id": msg + "b", "role": "assistant", "model": "claude-opus-4-8", "content": []any{map[string]any{"type": "text", "text": sentence(r, 30)}},
				"usage": map[string]any{"input_tokens": tokens, "output_tokens": 40}}})
			b.WriteString(`{"type":"last-prompt","lastPrompt":"x","sessionId":"` + id + `"}` + "\n")
			records += 9 // checkpoint, prompt, thinking, text, call, usage, result, answer, usage
		}
		if err := os.WriteFile(filepath.Join(pdir, id+".jsonl"), []byte(b.String()), 0o644); err != nil {
			return 0, err
		}
	}
	return records, nil
}

func uuidOf(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
}
