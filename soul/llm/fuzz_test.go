package llm

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// FuzzReadStream feeds arbitrary bytes to the SSE reader as a response
// body. Whatever a server sends, the reader must return (no panic, no
// hang), and a failure is one of our *Error values with a message.
func FuzzReadStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("event: error\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n"))
	f.Add([]byte(": keep-alive\r\n{\"error\":{\"message\":\"bad key\",\"code\":401}}\n"))
	p, err := New(Config{BaseURL: "http://127.0.0.1:1", APIKey: "k", Model: "m", Stream: true})
	if err != nil {
		f.Fatal(err)
	}
	p.maxLine = 4 << 10 // reach the long-line path with small inputs
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var got []byte
		resp, err := p.readStream(ctx, cancel, bytes.NewReader(body), Request{}, Callbacks{
			OnContent: func(s string) { got = append(got, s...) },
		})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Error() == "" {
				t.Fatalf("error %T %q is not a described *llm.Error", err, err)
			}
			return
		}
		if !bytes.Equal(got, []byte(resp.Message.Content.PlainText())) {
			t.Fatalf("streamed content %q, final message %q", got, resp.Message.Content.PlainText())
		}
	})
}
