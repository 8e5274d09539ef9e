package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const articlePage = `<!doctype html><html><head><title>Release notes 2.0</title>
<style>body { color: red }</style><script>trackEverything()</script></head>
<body>
<nav><a href="/">Home</a> · <a href="/blog">Blog</a> · <a href="/about">About us</a></nav>
<article>
<h1>Release notes 2.0</h1>
<p>Version 2.0 brings a faster parser and a <a href="/docs/migrate">migration guide</a>. The parser is now
twice as fast on large files, and it no longer allocates for each token it reads from the input stream.</p>
<h2>Breaking changes</h2>
<p>The <code>Parse</code> function now takes a context. Every caller must pass one; the old signature is gone
and there is no shim, because a shim would hide cancellation bugs from the callers that need it most.</p>
<pre><code>func Parse(ctx context.Context, r io.Reader) (*Doc, error)</code></pre>
<p>We thank everyone who reported bugs in the release candidates; the list of fixed issues is long and the
details are in the changelog, which also lists the contributors of this release by name.</p>
</article>
<footer>Copyright 2026 · Privacy · Cookie settings</footer>
</body></html>`

func fetch(t *testing.T, ft *FetchURL, url string) Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"url": url})
	return ft.Call(context.Background(), &Env{WorkDir: t.TempDir()}, args)
}

func TestFetchURLReadsAnArticleAsMarkdown(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articlePage)
	}))
	defer srv.Close()
	res := fetch(t, &FetchURL{}, srv.URL+"/notes")
	if res.IsError {
		t.Fatalf("error: %s", res.Output)
	}
	for _, want := range []string{"# Release notes 2.0", "## Breaking changes", "`Parse`", "func Parse(ctx context.Context", "[migration guide](" + srv.URL + "/docs/migrate)"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	for _, junk := range []string{"trackEverything", "color: red", "Cookie settings", "About us"} {
		if strings.Contains(res.Output, junk) {
			t.Errorf("output keeps %q:\n%s", junk, res.Output)
		}
	}
}

func TestFetchURLPassesTextAndNamesOtherTypes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"version":"2.0","ok":true}`)
		case "/readme.md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Readme\n\n*as is*")
		case "/paper.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			fmt.Fprint(w, "%PDF-1.7 "+strings.Repeat("x", 5000))
		case "/gone":
			http.Error(w, "no such page", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	if res := fetch(t, &FetchURL{}, srv.URL+"/api"); res.IsError || !strings.Contains(res.Output, `{"version":"2.0","ok":true}`) {
		t.Errorf("json: %+v", res)
	}
	if res := fetch(t, &FetchURL{}, srv.URL+"/readme.md"); res.IsError || !strings.Contains(res.Output, "# Readme\n\n*as is*") {
		t.Errorf("markdown: %+v", res)
	}
	res := fetch(t, &FetchURL{}, srv.URL+"/paper.pdf")
	if res.IsError || !strings.Contains(res.Output, "application/pdf") || strings.Contains(res.Output, "%PDF") || strings.Count(res.Output, "\n") > 0 {
		t.Errorf("pdf: want one line naming the type, got %+v", res)
	}
	if res := fetch(t, &FetchURL{}, srv.URL+"/gone"); !res.IsError || !strings.Contains(res.Output, "HTTP 404") {
		t.Errorf("404: %+v", res)
	}
}

func TestFetchURLLimits(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			chunk := strings.Repeat("y", 1<<20)
			for i := 0; i < 50; i++ {
				if _, err := fmt.Fprint(w, chunk); err != nil {
					return
				}
			}
		case "/slow":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "first bytes")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(release)

	if res := fetch(t, &FetchURL{}, srv.URL+"/loop"); !res.IsError || !strings.Contains(res.Output, "redirects") {
		t.Errorf("redirect loop: %+v", res)
	}
	res := fetch(t, &FetchURL{}, srv.URL+"/big")
	if res.IsError || len(res.Output) > fetchOutputCap+1024 || !strings.Contains(res.Output, "Only the first 10 MB") {
		t.Errorf("50 MB body: error %v, %d bytes out, note present %v", res.IsError, len(res.Output), strings.Contains(res.Output, "Only the first"))
	}
	slow := &FetchURL{Client: &http.Client{Timeout: 200 * time.Millisecond}}
	if res := fetch(t, slow, srv.URL+"/slow"); !res.IsError || !strings.Contains(res.Output, "longer than") && !strings.Contains(res.Output, "Timeout") {
		t.Errorf("slow body: %+v", res)
	}
	for _, bad := range []string{"file:///etc/passwd", "ftp://example.com/x", "not a url"} {
		if res := fetch(t, &FetchURL{}, bad); !res.IsError || !strings.Contains(res.Output, "not an http or https URL") {
			t.Errorf("%s: %+v", bad, res)
		}
	}
}

func TestFetchURLAsksOnlyWhenConfigured(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") }))
	defer srv.Close()
	for _, ask := range []bool{false, true} {
		rec := &recorder{decide: func(Approval) Decision { return Decision{} }}
		args, _ := json.Marshal(map[string]string{"url": srv.URL})
		res := (&FetchURL{NeedsApproval: ask}).Call(context.Background(), &Env{WorkDir: t.TempDir(), Approve: rec.Approve}, args)
		if asked := len(rec.approvals) > 0; asked != ask {
			t.Errorf("NeedsApproval %v: asked %v", ask, asked)
		}
		if ask && !res.Rejected {
			t.Errorf("a rejected fetch ran: %+v", res)
		}
	}
}
