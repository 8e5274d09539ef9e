package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

//go:embed search_web.md
var searchWebDescription string

// The search providers SearchWeb speaks to.
const (
	// SearchKimi is Moonshot's search service, with the Kimi key, as
	// kimi-cli's SearchWeb.
	SearchKimi = "kimi"
	// SearchSearXNG is a self-hosted SearXNG instance (its JSON format must
	// be enabled); no key.
	SearchSearXNG = "searxng"
	// SearchBrave is the Brave Search API, with its subscription token.
	SearchBrave = "brave"
)

// SearchProviders lists the providers, as the config names them.
var SearchProviders = []string{SearchKimi, SearchSearXNG, SearchBrave}

// Default endpoints of the providers that have one.
const (
	DefaultKimiSearchURL  = "https://api.kimi.com/coding/v1/search"
	DefaultBraveSearchURL = "https://api.search.brave.com/res/v1/web/search"
)

const (
	searchTimeout  = 60 * time.Second
	searchMaxBody  = 4 << 20
	searchMaxLimit = 20
)

// searchWebArgs are SearchWeb's arguments.
type searchWebArgs struct {
	Query string `json:"query" jsonschema:"What to search for."`
	// The bound in the description is searchMaxLimit (TestArgDescriptionsMatchConstants).
	Limit int `json:"limit,omitempty" jsonschema:"How many results to return (at most 20). Usually leave it: a more concrete query beats more results."`
}

func (searchWebArgs) About() About {
	return About{Name: "SearchWeb", Description: searchWebDescription, ReadOnly: true, Params: map[string]Param{
		"limit": {Default: 5, Minimum: Min(1)},
	}}
}

func (a searchWebArgs) Label() string { return a.Query }

// SearchWeb searches the web through the configured provider. It is offered
// only when one is configured.
type SearchWeb struct {
	Typed[searchWebArgs]
	Provider string // SearchKimi, SearchSearXNG or SearchBrave
	BaseURL  string // the endpoint; "" is the provider's default (SearXNG has none)
	APIKey   string
	Client   *http.Client // nil: a client with SearchWeb's timeout
}

// searchResult is one hit, whatever the provider.
type searchResult struct {
	Title, URL, Snippet, Date string
}

func (t *SearchWeb) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	q := strings.TrimSpace(a.Query)
	if q == "" {
		return invalidArgs(t.Name(), "the query is empty.")
	}
	limit := min(max(a.Limit, 1), searchMaxLimit)
	results, err := t.search(ctx, q, limit)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return errorResult("interrupted", "The search was interrupted.")
		}
		return errorResult("search failed", "Searching the web (%s) failed: %v. Try again later, or read a known page with FetchURL.", t.Provider, err)
	}
	if len(results) > limit {
		results = results[:limit]
	}
	if len(results) == 0 {
		return Result{Output: fmt.Sprintf("No results for %q. Try other words.", q), Brief: "no results"}
	}
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteString("---\n\n")
		}
		fmt.Fprintf(&b, "Title: %s\nURL: %s\n", oneLineText(r.Title), r.URL)
		if r.Date != "" {
			fmt.Fprintf(&b, "Date: %s\n", r.Date)
		}
		fmt.Fprintf(&b, "Summary: %s\n\n", oneLineText(r.Snippet))
	}
	return Result{Output: CapOutput(b.String(), 0), Brief: fmt.Sprintf("%d results", len(results))}
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

func (t *SearchWeb) client() *http.Client {
	if t.Client != nil {
		return t.Client
	}
	return &http.Client{Timeout: searchTimeout}
}

// search asks the provider, in its documented request and answer shapes.
func (t *SearchWeb) search(ctx context.Context, q string, limit int) ([]searchResult, error) {
	var req *http.Request
	var err error
	switch t.Provider {
	case SearchKimi:
		body, _ := json.Marshal(map[string]any{"text_query": q, "limit": limit, "enable_page_crawling": false, "timeout_seconds": 30})
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, orDefault(t.BaseURL, DefaultKimiSearchURL), bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+t.APIKey)
		}
	case SearchSearXNG:
		u := strings.TrimRight(t.BaseURL, "/") + "/search?" + url.Values{"q": {q}, "format": {"json"}}.Encode()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	case SearchBrave:
		u := orDefault(t.BaseURL, DefaultBraveSearchURL) + "?" + url.Values{"q": {q}, "count": {strconv.Itoa(limit)}}.Encode()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err == nil {
			req.Header.Set("X-Subscription-Token", t.APIKey)
		}
	default:
		return nil, fmt.Errorf("unknown search provider %q", t.Provider)
	}
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "rewind")
	resp, err := t.client().Do(req)
	if err != nil {
		return nil, redactKey(err, t.APIKey)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, searchMaxBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d from the search service", resp.StatusCode)
	}
	return decodeSearch(t.Provider, data)
}

func decodeSearch(provider string, data []byte) ([]searchResult, error) {
	var out []searchResult
	switch provider {
	case SearchKimi:
		var r struct {
			SearchResults []struct {
				Title, URL, Snippet, Date string
			} `json:"search_results"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("unexpected answer: %v", err)
		}
		for _, h := range r.SearchResults {
			out = append(out, searchResult{Title: h.Title, URL: h.URL, Snippet: h.Snippet, Date: h.Date})
		}
	case SearchSearXNG:
		var r struct {
			Results []struct {
				Title, URL, Content, PublishedDate string
			} `json:"results"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("unexpected answer (is format=json enabled in the SearXNG settings?): %v", err)
		}
		for _, h := range r.Results {
			out = append(out, searchResult{Title: h.Title, URL: h.URL, Snippet: h.Content, Date: h.PublishedDate})
		}
	case SearchBrave:
		var r struct {
			Web struct {
				Results []struct {
					Title, URL, Description, Age string
				} `json:"results"`
			} `json:"web"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("unexpected answer: %v", err)
		}
		for _, h := range r.Web.Results {
			out = append(out, searchResult{Title: h.Title, URL: h.URL, Snippet: stripTags(h.Description), Date: h.Age})
		}
	}
	return out, nil
}

// stripTags drops the <strong> marks Brave puts around matched words.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// redactKey keeps a provider key out of an error that quotes the request.
func redactKey(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "[key redacted]"))
}
