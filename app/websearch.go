package app

import (
	"slices"
	"strings"

	"github.com/rewind-agent/rewind/soul/tools"
)

// SearchConfig is the resolved [search] table: which provider SearchWeb
// asks, where, and with which key (never stored or printed).
type SearchConfig struct {
	Provider string // "" = no SearchWeb
	BaseURL  string
	APIKey   string
}

// searchConfig is the on-disk [search] table.
type searchConfig struct {
	Provider  string `toml:"provider" yaml:"provider"`
	BaseURL   string `toml:"base_url" yaml:"base_url"`
	APIKeyEnv string `toml:"api_key_env" yaml:"api_key_env"`
	APIKey    string `toml:"api_key" yaml:"api_key"`
}

// resolveSearch checks [search] and finds its key: api_key_env, then
// api_key; the kimi provider falls back on KIMI_API_KEY and then on the
// model's key, as kimi-cli's search uses the Kimi key.
func resolveSearch(in *searchConfig, getenv func(string) string, c Config, file string) (SearchConfig, error) {
	if in == nil || in.Provider == "" {
		return SearchConfig{}, nil
	}
	p := strings.ToLower(strings.TrimSpace(in.Provider))
	if !slices.Contains(tools.SearchProviders, p) {
		return SearchConfig{}, userErrorf(nil, "%s: [search] provider must be one of %s, got %q", file, strings.Join(tools.SearchProviders, ", "), in.Provider)
	}
	out := SearchConfig{Provider: p, BaseURL: strings.TrimSpace(in.BaseURL), APIKey: in.APIKey}
	if in.APIKeyEnv != "" {
		if v := strings.TrimSpace(getenv(in.APIKeyEnv)); v != "" {
			out.APIKey = v
		}
	}
	switch p {
	case tools.SearchKimi:
		if out.APIKey == "" {
			out.APIKey = firstEnv(getenv, "KIMI_API_KEY")
		}
		if out.APIKey == "" {
			out.APIKey = c.APIKey
		}
	case tools.SearchSearXNG:
		if out.BaseURL == "" {
			return SearchConfig{}, userErrorf(nil, "%s: [search] provider \"searxng\" needs base_url, your instance's address (e.g. \"http://127.0.0.1:8888\")", file)
		}
	case tools.SearchBrave:
		if out.APIKey == "" {
			return SearchConfig{}, userErrorf(nil, "%s: [search] provider \"brave\" needs a key: api_key_env = \"BRAVE_API_KEY\" (set that variable) or api_key", file)
		}
	}
	return out, nil
}

// searchStatus is /status's line about SearchWeb.
func (c Config) searchStatus() string {
	if c.Search.Provider == "" {
		return "off: add [search] provider = \"searxng\" (base_url), \"brave\" (api_key_env) or \"kimi\" to " + c.configPath() + ", or a search MCP server"
	}
	if c.Search.BaseURL != "" {
		return c.Search.Provider + " at " + c.Search.BaseURL
	}
	return c.Search.Provider
}
