// Command fakemodel is a scripted model server on 127.0.0.1 for recording
// the codex and Claude Code fixtures of store/peers: it speaks the OpenAI
// Responses API (POST /v1/responses, what codex sends) and the Anthropic
// Messages API (POST /v1/messages, what Claude Code sends), streaming, with
// reasoning and tool calls.
//
// The prompt is the script. In the last user message, a line
//
//	@N TOOL {json arguments}
//
// asks for a call of TOOL in round N (1 is the answer to the prompt, 2 the
// answer after round 1's results, ...); several lines of one round are
// parallel calls. A round with no line is the final text answer. For
// codex, TOOL local_shell {"command": [argv]} is a local_shell_call item
// rather than a function call. "@big"
// anywhere in the prompt reports a large input token count (to trigger
// codex's auto-compaction). A request that asks for a summary (a
// compaction) gets "SUMMARY: ..." as its text. Every request body is
// written to -log as one JSON line.
//
// Not shipped: run it with `go run ./store/peers/testdata/tooling/fakemodel`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

var (
	addr    = flag.String("addr", "127.0.0.1:18080", "listen address")
	logPath = flag.String("log", "", "append each request body to this file")
	seq     atomic.Int64
	logMu   sync.Mutex
)

func main() {
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		logRequest(r, body)
		switch {
		case strings.HasSuffix(r.URL.Path, "/responses"):
			responses(w, body)
		case strings.HasSuffix(r.URL.Path, "/messages/count_tokens"):
			writeJSON(w, map[string]any{"input_tokens": 1200})
		case strings.HasSuffix(r.URL.Path, "/messages"):
			messages(w, body)
		case strings.HasSuffix(r.URL.Path, "/models"):
			writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake-model", "object": "model"}}, "models": []any{}})
		default:
			http.Error(w, "fakemodel: no such endpoint", http.StatusNotFound)
		}
	})
	log.Printf("fakemodel on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}

func logRequest(r *http.Request, body map[string]any) {
	if *logPath == "" {
		return
	}
	logMu.Lock()
	defer logMu.Unlock()
	f, err := os.OpenFile(*logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(map[string]any{"path": r.URL.String(), "body": body})
	f.Write(append(b, '\n'))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// call is one scripted tool call.
type call struct{ name, args string }

var directive = regexp.MustCompile(`(?m)(?:^|\s)@(\d+)\s+([A-Za-z_][\w.]*)\s*(\{.*\})?\s*$`)

// plan is what the model does next: calls (round `round` of the prompt's
// script), else text.
func plan(prompt string, round int) ([]call, string) {
	low := strings.ToLower(prompt)
	if strings.Contains(low, "summary") && (strings.Contains(low, "compact") || strings.Contains(low, "checkpoint") || strings.Contains(low, "summariz")) {
		return nil, "SUMMARY: the user asked for scripted tool calls; files were written and read; nothing is pending."
	}
	var calls []call
	for _, m := range directive.FindAllStringSubmatch(prompt, -1) {
		if fmt.Sprint(round) == m[1] {
			args := m[3]
			if args == "" {
				args = "{}"
			}
			calls = append(calls, call{m[2], args})
		}
	}
	if len(calls) > 0 {
		return calls, ""
	}
	first := strings.TrimSpace(strings.SplitN(prompt, "\n", 2)[0])
	if len(first) > 60 {
		first = first[:60]
	}
	return nil, fmt.Sprintf("Done (round %d). You said: %q.", round, first)
}

func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// ---- OpenAI Responses API (codex) ----

func responses(w http.ResponseWriter, body map[string]any) {
	input, _ := body["input"].([]any)
	prompt, round := "", 1
	prevCall := false
	for _, it := range input {
		m, _ := it.(map[string]any)
		isCall := m["type"] == "function_call" || m["type"] == "custom_tool_call" || m["type"] == "local_shell_call"
		switch {
		case m["type"] == "message" && m["role"] == "user":
			text := partsText(m["content"])
			if strings.HasPrefix(strings.TrimSpace(text), "<") && !strings.Contains(text, "@") {
				break // codex's environment context and instructions
			}
			prompt, round = text, 1
		case isCall && !prevCall:
			round++
		}
		prevCall = isCall
	}
	calls, text := plan(prompt, round)
	n := seq.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	rid := fmt.Sprintf("resp_%d", n)
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": rid}})
	reasoning := map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_%d", n),
		"summary": []any{map[string]any{"type": "summary_text", "text": fmt.Sprintf("**Planning round %d**\n\nThinking about the scripted prompt.", round)}}}
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": reasoning})
	sse(w, "response.reasoning_summary_text.delta", map[string]any{"type": "response.reasoning_summary_text.delta", "item_id": reasoning["id"], "output_index": 0, "summary_index": 0, "delta": "Thinking about the scripted prompt."})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": reasoning})
	if text != "" {
		item := map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", n), "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 1, "item": map[string]any{"type": "message", "role": "assistant", "id": item["id"], "content": []any{}}})
		for _, chunk := range splitChunks(text) {
			sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": item["id"], "output_index": 1, "content_index": 0, "delta": chunk})
		}
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 1, "item": item})
	}
	for i, c := range calls {
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", n, i), "call_id": fmt.Sprintf("call_%d_%d", n, i),
			"name": c.name, "arguments": c.args, "status": "completed"}
		if c.name == "local_shell" {
			// The Responses API's local shell call: an exec action, its
			// argv in {"command": [...]}.
			var a struct {
				Command []string `json:"command"`
			}
			_ = json.Unmarshal([]byte(c.args), &a)
			item = map[string]any{"type": "local_shell_call", "id": fmt.Sprintf("lsc_%d_%d", n, i), "call_id": fmt.Sprintf("call_%d_%d", n, i),
				"status": "completed", "action": map[string]any{"type": "exec", "command": a.Command, "working_directory": nil, "timeout_ms": nil, "env": map[string]any{}, "user": nil}}
		}
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 1 + i, "item": item})
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 1 + i, "item": item})
	}
	in := 1500 + 40*len(input)
	if strings.Contains(prompt, "@big") {
		in = 250000
	}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": rid,
		"usage": map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": in / 2},
			"output_tokens": 60, "output_tokens_details": map[string]any{"reasoning_tokens": 20}, "total_tokens": in + 60}}})
}

func partsText(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			m, _ := p.(map[string]any)
			if t, ok := m["text"].(string); ok {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString(t)
			}
		}
		return b.String()
	}
	return ""
}

func splitChunks(s string) []string {
	var out []string
	for len(s) > 12 {
		out, s = append(out, s[:12]), s[12:]
	}
	return append(out, s)
}

// ---- Anthropic Messages API (Claude Code) ----

func messages(w http.ResponseWriter, body map[string]any) {
	msgs, _ := body["messages"].([]any)
	prompt, round := "", 1
	for _, x := range msgs {
		m, _ := x.(map[string]any)
		if m["role"] != "user" {
			continue
		}
		if hasToolResult(m["content"]) {
			round++
			continue
		}
		prompt, round = userText(m["content"]), 1
	}
	model, _ := body["model"].(string)
	calls, text := plan(prompt, round)
	if tools, _ := body["tools"].([]any); len(tools) == 0 && strings.Contains(strings.ToLower(fmt.Sprint(body["system"])), "title") {
		calls, text = nil, `{"isNewTopic": true, "title": "Scripted session"}`
	}
	n := seq.Add(1)
	id := fmt.Sprintf("msg_fake_%d", n)
	in := 1200 + 30*len(msgs)
	usage := map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 50}
	stop := "end_turn"
	if len(calls) > 0 {
		stop = "tool_use"
	}
	_, thinking := body["thinking"]
	if stream, _ := body["stream"].(bool); !stream {
		var content []any
		if text != "" {
			content = append(content, map[string]any{"type": "text", "text": text})
		}
		for i, c := range calls {
			var in any
			_ = json.Unmarshal([]byte(c.args), &in)
			content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, i), "name": c.name, "input": in})
		}
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	start := map[string]any{"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}
	sse(w, "message_start", map[string]any{"type": "message_start", "message": start})
	idx := 0
	if thinking {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "thinking_delta", "thinking": fmt.Sprintf("Planning round %d of the scripted prompt.", round)}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "signature_delta", "signature": "c2lnbmF0dXJl"}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	if text != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, chunk := range splitChunks(text) {
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": chunk}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	for i, c := range calls {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, i), "name": c.name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": c.args}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 50}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

func hasToolResult(content any) bool {
	parts, _ := content.([]any)
	for _, p := range parts {
		if m, _ := p.(map[string]any); m["type"] == "tool_result" {
			return true
		}
	}
	return false
}

// userText is the user's own text: Claude Code's <system-reminder> parts aside.
func userText(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			m, _ := p.(map[string]any)
			t, _ := m["text"].(string)
			if m["type"] != "text" || strings.HasPrefix(strings.TrimSpace(t), "<system-reminder>") {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(t)
		}
		return b.String()
	}
	return ""
}
