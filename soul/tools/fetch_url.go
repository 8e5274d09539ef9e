package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
)

//go:embed fetch_url.md
var fetchURLDescription string

// FetchURL's limits: a page is one request of bounded time and size.
const (
	fetchTimeout      = 30 * time.Second
	fetchMaxRedirects = 5
	fetchMaxBytes     = 10 << 20
	fetchOutputCap    = 64 << 10
)

// fetchURLArgs are FetchURL's arguments.
type fetchURLArgs struct {
	URL string `json:"url" jsonschema:"The http or https URL to fetch."`
}

func (fetchURLArgs) About() About {
	return About{Name: "FetchURL", Description: fetchURLDescription, ReadOnly: true}
}

func (a fetchURLArgs) Label() string { return a.URL }

// FetchURL reads a web page as markdown (go-readability for the main
// content, html-to-markdown for the rest), as kimi-cli's FetchURL does with
// trafilatura.
type FetchURL struct {
	Typed[fetchURLArgs]
	// NeedsApproval makes every fetch ask first (fetch_needs_approval);
	// by default fetching runs without asking, as in kimi-cli.
	NeedsApproval bool
	// Client is the HTTP client; nil builds one with FetchURL's limits.
	Client *http.Client
}

// ActionFetchURL is the approval class of FetchURL when it asks.
const ActionFetchURL = "fetch a web page"

// errTooManyRedirects stops a redirect chain past fetchMaxRedirects.
var errTooManyRedirects = errors.New("too many redirects")

func (t *FetchURL) client() *http.Client {
	if t.Client != nil {
		return t.Client
	}
	return &http.Client{
		Timeout: fetchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= fetchMaxRedirects {
				return errTooManyRedirects
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a %s: URL", req.URL.Scheme)
			}
			return nil
		},
	}
}

func (t *FetchURL) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	u, err := url.Parse(strings.TrimSpace(a.URL))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return invalidArgs(t.Name(), "%q is not an http or https URL; FetchURL reads web pages only (use ReadFile for local files).", a.URL)
	}
	if t.NeedsApproval {
		if res, ok := approve(ctx, env, Approval{Tool: t.Name(), Action: ActionFetchURL, Description: "Fetch " + u.String()}); !ok {
			return res
		}
	}
	page, err := t.get(ctx, u)
	if err != nil {
		return fetchError(u, err)
	}
	return page.result(u)
}

// fetchedPage is one answer, its body read up to fetchMaxBytes.
type fetchedPage struct {
	status    int
	mediaType string
	body      []byte
	truncated bool
	final     *url.URL // after redirects
}

func (t *FetchURL) get(ctx context.Context, u *url.URL) (fetchedPage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fetchedPage{}, err
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; rewind FetchURL)")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5")
	resp, err := t.client().Do(req)
	if err != nil {
		return fetchedPage{}, err
	}
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBytes+1))
	if err != nil {
		return fetchedPage{}, err
	}
	p := fetchedPage{status: resp.StatusCode, mediaType: strings.ToLower(mt), body: body, final: resp.Request.URL}
	if len(body) > fetchMaxBytes {
		p.body, p.truncated = body[:fetchMaxBytes], true
	}
	if p.mediaType == "" {
		p.mediaType = strings.ToLower(strings.SplitN(http.DetectContentType(p.body), ";", 2)[0])
	}
	return p, nil
}

// fetchError says what went wrong in words the model can act on.
func fetchError(u *url.URL, err error) Result {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return errorResult("interrupted", "Fetching %s was interrupted.", u)
	case errors.Is(err, errTooManyRedirects):
		return errorResult("too many redirects", "Fetching %s followed more than %d redirects; the page redirects in a loop or too far.", u, fetchMaxRedirects)
	case errors.As(err, &ne) && ne.Timeout():
		return errorResult("timed out", "Fetching %s took longer than %s; the server is slow or unreachable.", u, fetchTimeout)
	}
	return errorResult("fetch failed", "Fetching %s failed: %v.", u, err)
}

func (p fetchedPage) result(asked *url.URL) Result {
	where := asked.String()
	if p.final != nil && p.final.String() != where {
		where += " (redirected to " + p.final.String() + ")"
	}
	if p.status >= 400 {
		return errorResult(fmt.Sprintf("HTTP %d", p.status), "Fetching %s failed: HTTP %d %s.", where, p.status, http.StatusText(p.status))
	}
	var text, kind string
	switch {
	case p.mediaType == "text/html" || p.mediaType == "application/xhtml+xml":
		text, kind = htmlToMarkdown(p.body, p.final), "page"
	case strings.HasPrefix(p.mediaType, "text/") || p.mediaType == "application/json" || strings.HasSuffix(p.mediaType, "+json") ||
		p.mediaType == "application/xml" || strings.HasSuffix(p.mediaType, "+xml") || p.mediaType == "application/javascript":
		text, kind = string(p.body), p.mediaType
	default:
		return Result{Output: fmt.Sprintf("%s is %s (%s): FetchURL reads web pages and text only, not this type.", where, p.mediaType, humanBytes(len(p.body), p.truncated)),
			Brief: p.mediaType + ", not read"}
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return Result{Output: fmt.Sprintf("%s has no readable text (the page may need JavaScript to render).", where), Brief: "no text"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Content of %s:\n\n", where)
	b.WriteString(CapOutput(text, fetchOutputCap))
	if p.truncated {
		fmt.Fprintf(&b, "\n\n[Only the first %d MB of the answer were read.]", fetchMaxBytes>>20)
	}
	return Result{Output: b.String(), Brief: fmt.Sprintf("%s, %s", kind, humanBytes(len(text), false))}
}

// htmlToMarkdown is the page's main content (readability) as markdown,
// titled; a page readability finds no article in is converted whole (the
// converter drops scripts and styles itself).
func htmlToMarkdown(body []byte, base *url.URL) string {
	domain := ""
	if base != nil {
		domain = base.Scheme + "://" + base.Host
	}
	opts := []converter.ConvertOptionFunc{converter.WithDomain(domain)}
	article, err := readability.FromReader(strings.NewReader(string(body)), base)
	if err == nil && article.Node != nil {
		if md, err := htmltomarkdown.ConvertNode(article.Node, opts...); err == nil && strings.TrimSpace(string(md)) != "" {
			if title := strings.TrimSpace(article.Title()); title != "" && !strings.HasPrefix(strings.TrimSpace(string(md)), "# ") {
				return "# " + title + "\n\n" + string(md)
			}
			return string(md)
		}
	}
	doc, err := html.Parse(strings.NewReader(string(body)))
	if err != nil {
		return ""
	}
	md, err := htmltomarkdown.ConvertNode(doc, opts...)
	if err != nil {
		return ""
	}
	return string(md)
}

// humanBytes is n as "41 kB", "6.2 MB" ("more than" when cut).
func humanBytes(n int, more bool) string {
	s := ""
	switch {
	case n < 1000:
		s = fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		s = fmt.Sprintf("%d kB", (n+500)/1000)
	default:
		s = fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	if more {
		s = "more than " + s
	}
	return s
}
