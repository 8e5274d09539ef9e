package app

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/tools"
)

func TestSearchConfigOffersSearchWeb(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, provider, key string
		env                 map[string]string
	}{
		{file: "", provider: ""},
		{file: "[search]\nprovider = \"searxng\"\nbase_url = \"http://127.0.0.1:8888\"", provider: "searxng"},
		{file: "[search]\nprovider = \"brave\"\napi_key_env = \"BRAVE_API_KEY\"", env: map[string]string{"BRAVE_API_KEY": "bk"}, provider: "brave", key: "bk"},
		{file: "[search]\nprovider = \"kimi\"", env: map[string]string{"KIMI_API_KEY": "sk-kimi"}, provider: "kimi", key: "sk-kimi"},
		{file: "api_key = \"sk-model\"\n[search]\nprovider = \"Kimi\"", provider: "kimi", key: "sk-model"},
	}
	for _, tc := range cases {
		home, wd := t.TempDir(), t.TempDir()
		if tc.file != "" {
			writeFile(t, filepath.Join(home, "config.toml"), tc.file+"\n")
		}
		c, err := LoadConfig(envMap(tc.env), Overrides{Home: &home, WorkDir: &wd})
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		set := c.ToolSet()
		if got := set.Has("SearchWeb"); got != (tc.provider != "") {
			t.Errorf("%q: SearchWeb offered = %v", tc.file, got)
		}
		if !set.Has("FetchURL") {
			t.Errorf("%q: FetchURL not offered", tc.file)
		}
		if tc.provider == "" {
			if !strings.Contains(c.searchStatus(), "add [search]") {
				t.Errorf("status without a provider = %q", c.searchStatus())
			}
			continue
		}
		tool, _ := set.Get("SearchWeb")
		sw := tool.(*tools.SearchWeb)
		if sw.Provider != tc.provider || sw.APIKey != tc.key {
			t.Errorf("%q: provider %q key %q, want %q %q", tc.file, sw.Provider, sw.APIKey, tc.provider, tc.key)
		}
		if tc.key != "" && !slices.Contains(c.ShellEnv.SecretValues, tc.key) {
			t.Errorf("%q: the search key is not among the secrets Shell never sees", tc.file)
		}
	}
}

func TestSearchConfigErrors(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"[search]\nprovider = \"google\"":  "provider must be one of kimi, searxng, brave",
		"[search]\nprovider = \"searxng\"": "needs base_url",
		"[search]\nprovider = \"brave\"":   "needs a key",
	} {
		home, wd := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(home, "config.toml"), file+"\n")
		_, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", file, err, want)
		}
	}
}

func TestFetchNeedsApprovalConfig(t *testing.T) {
	t.Parallel()
	home, wd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), "fetch_needs_approval = true\n")
	c, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := c.ToolSet().Get("FetchURL")
	if !tool.(*tools.FetchURL).NeedsApproval {
		t.Fatal("fetch_needs_approval = true did not reach FetchURL")
	}
}
