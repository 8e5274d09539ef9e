package llmtest

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Script answers requests by what the conversation's last user or tool
// message says, for demos and multi-turn end-to-end tests:
//
//	sc := llmtest.NewScript().
//		On("write hello.txt", llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]string{"path": "hello.txt", "content": "hi"}))).
//		On("Wrote", llmtest.Text("Done: hello.txt written.")).
//		Otherwise(llmtest.Text("I can only write hello.txt."))
//	srv.Handle(sc.Reply)
//
// Rules are tried in the order they were added; a rule matches when the
// last user/tool message contains its substring. Its replies are used one
// per matching request, in order; the last one is reused once the others
// are spent. Script is safe for concurrent use.
type Script struct {
	mu        sync.Mutex
	rules     []*rule
	otherwise *Reply
}

type rule struct {
	substr  string
	replies []Reply
	used    int
}

// NewScript returns an empty script.
func NewScript() *Script { return &Script{} }

// On adds a rule. At least one reply is needed; On without replies adds
// nothing.
func (sc *Script) On(substr string, replies ...Reply) *Script {
	if len(replies) == 0 {
		return sc
	}
	sc.mu.Lock()
	sc.rules = append(sc.rules, &rule{substr: substr, replies: replies})
	sc.mu.Unlock()
	return sc
}

// Otherwise sets the reply when no rule matches.
func (sc *Script) Otherwise(r Reply) *Script {
	sc.mu.Lock()
	sc.otherwise = &r
	sc.mu.Unlock()
	return sc
}

// Reply answers one request; pass it to Server.Handle. Without a matching
// rule or an Otherwise reply it answers HTTP 400 naming the message it
// could not match.
func (sc *Script) Reply(req Request) Reply {
	text := req.LastText()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, r := range sc.rules {
		if strings.Contains(text, r.substr) {
			i := min(r.used, len(r.replies)-1)
			r.used++
			return r.replies[i]
		}
	}
	if sc.otherwise != nil {
		return *sc.otherwise
	}
	return HTTPError(http.StatusBadRequest, fmt.Sprintf("llmtest: script has no rule for %.80q", text))
}
