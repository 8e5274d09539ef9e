package llm

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestChunkDecoderMatchesUnmarshal feeds one chunkDecoder a sequence of
// payloads, as a stream does, and checks each result against a fresh
// json.Unmarshal: the same chunk (nothing left over from the previous one)
// and the same error.
func TestChunkDecoderMatchesUnmarshal(t *testing.T) {
	t.Parallel()
	payloads := []string{
		`{"choices":[{"index":0,"delta":{"content":"a","tool_calls":[{"index":0,"id":"c1","function":{"name":"Shell","arguments":"{"}}]}},{"index":1,"delta":{"content":"b"},"finish_reason":"stop"}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning":"r"}}]}`,
		`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
		`{"choices":[{"index":0,"delta":{"content":"x"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"y"}}]} {"choices":[]}`, // trailing value
		`{"choices":[{"index":0,"delta":{"content":"z"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":`, // cut off
		`{"choices":[{"index":0,"delta":{"content":"after"}}]}`,
		`{"choices":"nope"}`, // wrong type
		`{"error":{"message":"boom"}}`,
		`[1,2]`,
		`{}`,
	}
	d := newChunkDecoder()
	var c chunk
	for _, p := range payloads {
		var want chunk
		wantErr := json.Unmarshal([]byte(p), &want)
		err := d.decode([]byte(p), &c)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("decode(%s): error %v, want %v", p, err, wantErr)
		}
		if err != nil {
			continue
		}
		if len(want.Choices) == 0 && len(c.Choices) == 0 {
			want.Choices, c.Choices = nil, nil // reused backing array vs nil
		}
		if !reflect.DeepEqual(c, want) {
			t.Fatalf("decode(%s) = %+v, want %+v", p, c, want)
		}
	}
}
