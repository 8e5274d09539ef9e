package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeSearch answers as each provider documents it, and records what it
// was asked.
type fakeSearch struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (f *fakeSearch) handler(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, r)
	f.body = append(f.body, string(b))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/coding/v1/search":
		if r.Header.Get("Authorization") != "Bearer sk-kimi" {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"search_results":[{"site_name":"Go","title":"Go 1.26 Release Notes","url":"https://go.dev/doc/go1.26","snippet":"The latest Go release,\nversion 1.26","content":"","date":"2026-02-10","icon":"","mime":"text/html"},
			{"site_name":"Blog","title":"What's new","url":"https://go.dev/blog/go1.26","snippet":"Highlights","date":""}]}`)
	case r.URL.Path == "/search":
		if r.URL.Query().Get("format") != "json" {
			http.Error(w, "format", http.StatusForbidden)
			return
		}
		fmt.Fprint(w, `{"query":"go release","number_of_results":2,"results":[{"url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","content":"The latest Go release","engine":"duckduckgo","publishedDate":null},{"url":"https://go.dev/blog/go1.26","title":"What's new","content":"Highlights"}]}`)
	case r.URL.Path == "/res/v1/web/search":
		if r.Header.Get("X-Subscription-Token") != "brave-token" {
			http.Error(w, `{"type":"ErrorResponse"}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"type":"search","query":{"original":"go release"},"web":{"type":"search","results":[{"title":"Go 1.26 Release Notes","url":"https://go.dev/doc/go1.26","description":"The <strong>latest</strong> Go release","age":"February 10, 2026"},{"title":"What's new","url":"https://go.dev/blog/go1.26","description":"Highlights"}]}}`)
	default:
		http.NotFound(w, r)
	}
}

func TestSearchWebProviders(t *testing.T) {
	t.Parallel()
	f := &fakeSearch{}
	srv := httptest.NewServer(http.HandlerFunc(f.handler))
	defer srv.Close()
	cases := []struct {
		tool  *SearchWeb
		check func(r *http.Request, body string) string
	}{
		{&SearchWeb{Provider: SearchKimi, BaseURL: srv.URL + "/coding/v1/search", APIKey: "sk-kimi"}, func(r *http.Request, body string) string {
			var b map[string]any
			_ = json.Unmarshal([]byte(body), &b)
			if r.Method != http.MethodPost || b["text_query"] != "go release" || b["limit"] != float64(2) {
				return fmt.Sprintf("kimi request %s %s", r.Method, body)
			}
			return ""
		}},
		{&SearchWeb{Provider: SearchSearXNG, BaseURL: srv.URL + "/"}, func(r *http.Request, _ string) string {
			if r.URL.Query().Get("q") != "go release" {
				return "searxng query " + r.URL.RawQuery
			}
			return ""
		}},
		{&SearchWeb{Provider: SearchBrave, BaseURL: srv.URL + "/res/v1/web/search", APIKey: "brave-token"}, func(r *http.Request, _ string) string {
			if r.URL.Query().Get("q") != "go release" || r.URL.Query().Get("count") != "2" {
				return "brave query " + r.URL.RawQuery
			}
			return ""
		}},
	}
	for _, tc := range cases {
		res := tc.tool.Call(context.Background(), nil, json.RawMessage(`{"query":"go release","limit":2}`))
		if res.IsError {
			t.Fatalf("%s: %s", tc.tool.Provider, res.Output)
		}
		for _, want := range []string{"Title: Go 1.26 Release Notes\nURL: https://go.dev/doc/go1.26\n", "Summary: The latest Go release", "Title: What's new"} {
			if !strings.Contains(res.Output, want) {
				t.Errorf("%s: output lacks %q:\n%s", tc.tool.Provider, want, res.Output)
			}
		}
		if strings.Contains(res.Output, "<strong>") {
			t.Errorf("%s: markup in the summary:\n%s", tc.tool.Provider, res.Output)
		}
		f.mu.Lock()
		r, body := f.reqs[len(f.reqs)-1], f.body[len(f.body)-1]
		f.mu.Unlock()
		if msg := tc.check(r, body); msg != "" {
			t.Error(msg)
		}
	}
}

func TestSearchWebFailuresAreOneToolError(t *testing.T) {
	t.Parallel()
	f := &fakeSearch{}
	srv := httptest.NewServer(http.HandlerFunc(f.handler))
	defer srv.Close()
	bad := &SearchWeb{Provider: SearchBrave, BaseURL: srv.URL + "/res/v1/web/search", APIKey: "wrong"}
	res := bad.Call(context.Background(), nil, json.RawMessage(`{"query":"x"}`))
	if !res.IsError || !strings.Contains(res.Output, "HTTP 401") || strings.Contains(res.Output, "wrong") {
		t.Fatalf("bad key: %+v", res)
	}
	html := &SearchWeb{Provider: SearchSearXNG, BaseURL: srv.URL + "/nowhere"}
	if res := html.Call(context.Background(), nil, json.RawMessage(`{"query":"x"}`)); !res.IsError {
		t.Fatalf("missing endpoint: %+v", res)
	}
	if res := html.Call(context.Background(), nil, json.RawMessage(`{"query":"  "}`)); !res.IsError || !strings.Contains(res.Output, "empty") {
		t.Fatalf("empty query: %+v", res)
	}
}
