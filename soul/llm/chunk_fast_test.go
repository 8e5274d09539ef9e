package llm

import (
	"encoding/json"
	"reflect"
	"testing"
)

// usualChunks are chunks as OpenAI, DeepSeek, OpenRouter, Moonshot and
// llama.cpp send them for text: each goes the fast way.
var usualChunks = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1712345678,"model":"gpt-4o","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}],"usage":null}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"think \"hard\"\n\tok"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"日本語 ✓","content":null},"finish_reason":"stop"}]}`,
	`{ "choices" : [ { "delta" : { "content" : "a\\b\/c\r" } , "index" : 0 } ] , "created" : -1.5e+3 , "x" : true }`,
	`{"choices":[]}`,
	// escapes, bytes that are not UTF-8 and nested values under unknown
	// keys decode as encoding/json decodes them
	`{"choices":[{"index":0,"delta":{"content":"caf\u00e9 \ud83d\ude00 \ud800"},"logprobs":{"content":[{"token":"x","logprob":-0.1}]}}],"\u0078":[1]}`,
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"bad \xff\"}}]}",
}

func TestUsualChunksTakeTheFastPath(t *testing.T) {
	t.Parallel()
	var c chunk
	for _, p := range usualChunks {
		if !decodeFast([]byte(p), &c) {
			t.Errorf("not decoded the fast way: %s", p)
		}
		checkAgrees(t, []byte(p), c)
	}
}

// FuzzDecodeFastAgrees: what decodeFast accepts, json.Unmarshal accepts
// and decodes the same, also into a chunk that held another one.
func FuzzDecodeFastAgrees(f *testing.F) {
	for _, p := range usualChunks {
		f.Add([]byte(p))
	}
	for _, p := range []string{
		`{"Choices":[{"index":0,"delta":{"content":"x"}}]}`,
		`{"choices":[{"index":0,"delta":{"Content":"x","content":"y"}}]}`,
		`{"choices":[{"index":1,"delta":{"content":"a"}},{"index":0,"delta":{"content":"b"},"delta":{"role":"r"}}]}`,
		`{"choices":[{"index":01}]}`,
		`{"choices":[{"index":1e2}]}`,
		`{"choices":[{"index":0,"delta":{"content":"\u00e9"}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"x"}}]} x`,
		`{"choices":[],"choices":[{"index":0}]}`,
		`{"error":null,"choices":[]}`,
		`{"a":nul}`,
		"{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
		`{"choices":[{"index":0,"delta":{"conten\u0074":"x","\u0043ontent":"y"}}]}`,
		`{"choices":[{"index":-0,"finish_reason":1}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a","content":null}}]}`,
		`{"choices":[null],"usage":{"total_tokens":1}}`,
	} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var fresh chunk
		if decodeFast(payload, &fresh) {
			checkAgrees(t, payload, fresh)
		}
		held := chunk{Choices: make([]chunkChoice, 2, 4)}
		held.Choices[0].Delta.Content, held.Choices[1].FinishReason = "old", "stop"
		if decodeFast(payload, &held) {
			checkAgrees(t, payload, held)
		}
	})
}

func checkAgrees(t *testing.T, payload []byte, got chunk) {
	t.Helper()
	var want chunk
	if err := json.Unmarshal(payload, &want); err != nil {
		t.Fatalf("decodeFast took %q, json.Unmarshal refuses it: %v", payload, err)
	}
	if len(want.Choices) == 0 && len(got.Choices) == 0 {
		want.Choices, got.Choices = nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeFast(%q) = %+v, json.Unmarshal %+v", payload, got, want)
	}
}

// BenchmarkChunkDecode decodes a usual content chunk (OpenAI's shape) the
// fast way and with encoding/json.
func BenchmarkChunkDecode(b *testing.B) {
	payload := []byte(usualChunks[0])
	d := newChunkDecoder()
	var c chunk
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := d.decode(payload, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := d.decodeJSON(payload, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
