package app

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/shellenv"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func ptr[T any](v T) *T { return &v }

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	home, wd := t.TempDir(), t.TempDir()
	c, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
	if err != nil {
		t.Fatal(err)
	}
	if c.Home != home || c.WorkDir != wd || c.File != "" {
		t.Errorf("home/workdir/file = %q %q %q", c.Home, c.WorkDir, c.File)
	}
	if c.BaseURL != DefaultBaseURL || c.Model != "" || c.APIKey != "" || !c.Stream ||
		c.MaxContextSize != 128000 || c.ReservedTokens != 50000 || c.MaxStepsPerRun != 100 ||
		c.MaxRetriesPerStep != 3 || c.Theme != "dark" || c.DMailRevertsFiles || c.FileSizeCap != DefaultFileSizeCap || c.Yolo ||
		c.AnswerSizeCap != 8<<20 || c.ToolArgsSizeCap != 8<<20 {
		t.Errorf("defaults wrong: %+v", c)
	}
	if c.DBPath() != filepath.Join(home, "rewind.db") {
		t.Errorf("DBPath = %s", c.DBPath())
	}
}

func TestConfigPrecedence(t *testing.T) {
	t.Parallel()
	const file = `base_url = "http://file/v1"
model = "file-model"
api_key = "file-key"
stream = false
max_context_size = 9000
reserved_tokens = 1000
max_steps_per_run = 7
max_retries_per_step = 5
theme = "light"
dmail_reverts_files = true
file_size_cap = 2048
mcp_max_tools = 50
answer_size_cap = 1024
tool_args_size_cap = 4096
allow_remote_approval = true
notify = "osc"
`
	cases := []struct {
		name  string
		env   map[string]string
		flags Overrides
		want  Config
	}{
		{
			name: "file only",
			want: Config{BaseURL: "http://file/v1", Model: "file-model", APIKey: "file-key", Stream: false,
				MaxContextSize: 9000, ReservedTokens: 1000, MaxStepsPerRun: 7, MaxRetriesPerStep: 5, Theme: "light",
				DMailRevertsFiles: true, FileSizeCap: 2048, AllowRemoteApproval: true, Notify: "osc"},
		},
		{
			name: "env beats file",
			env:  map[string]string{"OPENAI_API_KEY": "env-key", "OPENAI_BASE_URL": "http://env/v1", "REWIND_MODEL": "env-model"},
			want: Config{BaseURL: "http://env/v1", Model: "env-model", APIKey: "env-key", Stream: false,
				MaxContextSize: 9000, ReservedTokens: 1000, MaxStepsPerRun: 7, MaxRetriesPerStep: 5, Theme: "light",
				DMailRevertsFiles: true, FileSizeCap: 2048, AllowRemoteApproval: true, Notify: "osc"},
		},
		{
			name: "kimi env names are accepted",
			env:  map[string]string{"KIMI_API_KEY": "kimi-key", "KIMI_BASE_URL": "http://kimi/v1", "KIMI_MODEL_NAME": "kimi-model"},
			want: Config{BaseURL: "http://kimi/v1", Model: "kimi-model", APIKey: "kimi-key", Stream: false,
				MaxContextSize: 9000, ReservedTokens: 1000, MaxStepsPerRun: 7, MaxRetriesPerStep: 5, Theme: "light",
				DMailRevertsFiles: true, FileSizeCap: 2048, AllowRemoteApproval: true, Notify: "osc", ThinkingStyle: llm.StyleKimi},
		},
		{
			name: "openai env names win over kimi ones",
			env: map[string]string{"KIMI_API_KEY": "kimi-key", "OPENAI_API_KEY": "openai-key",
				"KIMI_MODEL_NAME": "kimi-model", "REWIND_MODEL": "rewind-model"},
			want: Config{BaseURL: "http://file/v1", Model: "rewind-model", APIKey: "openai-key", Stream: false,
				MaxContextSize: 9000, ReservedTokens: 1000, MaxStepsPerRun: 7, MaxRetriesPerStep: 5, Theme: "light",
				DMailRevertsFiles: true, FileSizeCap: 2048, AllowRemoteApproval: true, Notify: "osc"},
		},
		{
			name: "flags beat env and file",
			env:  map[string]string{"OPENAI_BASE_URL": "http://env/v1", "REWIND_MODEL": "env-model"},
			flags: Overrides{BaseURL: ptr("http://flag/v1"), Model: ptr("flag-model"), Theme: ptr("high-contrast"),
				MaxSteps: ptr(3), MaxContextSize: ptr(5000), ReservedTokens: ptr(100), NoStream: ptr(true), Yolo: ptr(true)},
			want: Config{BaseURL: "http://flag/v1", Model: "flag-model", APIKey: "file-key", Stream: false,
				MaxContextSize: 5000, ReservedTokens: 100, MaxStepsPerRun: 3, MaxRetriesPerStep: 5, Theme: "high-contrast",
				DMailRevertsFiles: true, FileSizeCap: 2048, AllowRemoteApproval: true, Notify: "osc", Yolo: true},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, wd := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(home, "config.toml"), file)
			tc.flags.Home, tc.flags.WorkDir = &home, &wd
			got, err := LoadConfig(envMap(tc.env), tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Home, tc.want.WorkDir, tc.want.File = home, wd, filepath.Join(home, "config.toml")
			tc.want.ShellEnv.SecretValues = []string{tc.want.APIKey}
			tc.want.ModelCallTimeout = DefaultModelCallTimeout
			tc.want.Thinking = llm.EffortOff
			tc.want.LoopWarningAfter = DefaultLoopWarningAfter
			tc.want.MaxRunningSubagents = DefaultMaxRunningSubagents
			if tc.want.ThinkingStyle == "" {
				tc.want.ThinkingStyle = llm.StyleOpenAI
			}
			tc.want.MCPMaxTools, tc.want.MCPMaxToolsPerServer = 50, DefaultMCPMaxToolsPerServer
			tc.want.AnswerSizeCap, tc.want.ToolArgsSizeCap = 1024, 4096
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestConfigHomeFromEnvAndFlag(t *testing.T) {
	t.Parallel()
	envHome, flagHome, wd := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(envHome, "config.toml"), `model = "env-home"`)
	writeFile(t, filepath.Join(flagHome, "config.toml"), `model = "flag-home"`)
	env := envMap(map[string]string{"REWIND_HOME": envHome})

	c, err := LoadConfig(env, Overrides{WorkDir: &wd})
	if err != nil {
		t.Fatal(err)
	}
	if c.Home != envHome || c.Model != "env-home" {
		t.Errorf("REWIND_HOME ignored: home=%s model=%s", c.Home, c.Model)
	}
	c, err = LoadConfig(env, Overrides{WorkDir: &wd, Home: &flagHome})
	if err != nil {
		t.Fatal(err)
	}
	if c.Home != flagHome || c.Model != "flag-home" {
		t.Errorf("--home does not beat REWIND_HOME: home=%s model=%s", c.Home, c.Model)
	}
}

func TestConfigYAML(t *testing.T) {
	t.Parallel()
	home, wd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "model: yaml-model\nstream: false\nmax_steps_per_run: 9\napi_key: k\n")
	c, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "yaml-model" || c.Stream || c.MaxStepsPerRun != 9 || c.APIKey != "k" {
		t.Errorf("yaml not applied: %+v", c)
	}
	if c.String() == "" || strings.Contains(c.String(), "k ") || !strings.Contains(c.String(), "api_key=set") {
		t.Errorf("String leaks or hides the key state: %s", c.String())
	}
}

func TestConfigErrorsNameFileAndLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, content string
		want                []string
	}{
		{"toml syntax", "config.toml", "model = \"a\"\nstream = tru\n", []string{"config.toml:2:"}},
		{"toml unknown key", "config.toml", "model = \"a\"\n\nmodle = \"b\"\n", []string{"config.toml:3:", `unknown key "modle"`}},
		{"toml wrong type", "config.toml", "max_steps_per_run = \"many\"\n", []string{"config.toml:1:"}},
		{"yaml syntax", "config.yaml", "model: a\n  stream: [\n", []string{"config.yaml:"}},
		{"yaml unknown key", "config.yaml", "model: a\nthme: dark\n", []string{"config.yaml:2:", `unknown key "thme"`}},
		{"yaml wrong type", "config.yaml", "model: a\nmax_context_size: lots\n", []string{"config.yaml:2:"}},
		{"bad value", "config.toml", "max_context_size = -1\n", []string{"max_context_size must be positive", "config.toml"}},
		{"answer cap", "config.toml", "answer_size_cap = 0\n", []string{"answer_size_cap must be a positive number of bytes", "config.toml"}},
		{"tool args cap", "config.toml", "tool_args_size_cap = -5\n", []string{"tool_args_size_cap must be a positive number of bytes"}},
		{"reserved above max", "config.toml", "max_context_size = 1000\n", []string{"reserved_tokens (50000) must be below max_context_size (1000)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, wd := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(home, tc.file), tc.content)
			_, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
			if err == nil {
				t.Fatal("no error")
			}
			var ue *UserError
			if !errors.As(err, &ue) {
				t.Fatalf("not a UserError: %T %v", err, err)
			}
			line := ErrorLine(err)
			if strings.Contains(line, "\n") || !strings.HasPrefix(line, "rewind: ") {
				t.Errorf("not one rewind: line: %q", line)
			}
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q does not contain %q", line, w)
				}
			}
			if ExitCode(err) != ExitError {
				t.Errorf("exit code %d", ExitCode(err))
			}
		})
	}
}

func TestConfigTwoFilesIsAnError(t *testing.T) {
	t.Parallel()
	home, wd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), "")
	writeFile(t, filepath.Join(home, "config.yaml"), "")
	_, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
	if err == nil || !strings.Contains(err.Error(), "keep only one") {
		t.Fatalf("err = %v", err)
	}
}

func TestConfigMissingWorkDir(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	wd := filepath.Join(home, "nope")
	_, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("err = %v", err)
	}
}

func TestSanitizeAndOneLine(t *testing.T) {
	t.Parallel()
	if got := oneLine("a\n\x1b[31mb\tc\x07"); got != "a ^[[31mb c\uFFFD" {
		t.Errorf("oneLine = %q", got)
	}
	if got := sanitize("keep\nnewlines\tand tabs"); got != "keep\nnewlines\tand tabs" {
		t.Errorf("sanitize = %q", got)
	}
}

func TestConfigShellEnv(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), "[shell_env]\ninherit = \"core\"\nexclude = [\"AWS_*\"]\nset = { CI = \"1\" }\n")
	got, err := LoadConfig(envMap(map[string]string{"OPENAI_API_KEY": "sk-x"}), Overrides{Home: &home, WorkDir: &wd})
	if err != nil {
		t.Fatal(err)
	}
	want := shellenv.Policy{Inherit: "core", Exclude: []string{"AWS_*"}, Set: map[string]string{"CI": "1"}, SecretValues: []string{"sk-x"}}
	if !reflect.DeepEqual(got.ShellEnv, want) {
		t.Errorf("shell_env: %+v", got.ShellEnv)
	}
	writeFile(t, filepath.Join(home, "config.toml"), "[shell_env]\ninherit = \"most\"\n")
	if _, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd}); err == nil || !strings.Contains(err.Error(), "shell_env: inherit must be") {
		t.Errorf("bad inherit: %v", err)
	}
}

func TestProviderProfilesAndModelSwitch(t *testing.T) {
	t.Parallel()
	home, wd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), `model = "gpt-4.1"
[providers.kimi]
base_url = "https://api.moonshot.ai/v1"
api_key_env = "MOONSHOT_KEY"
models = ["kimi-k2", "shared"]
[providers.local]
base_url = "http://localhost:11434/v1"
api_key = "local-key"
models = ["qwen3", "shared"]
stream = false
`)
	c, err := LoadConfig(envMap(map[string]string{"OPENAI_API_KEY": "sk-default", "MOONSHOT_KEY": "sk-moon"}), Overrides{Home: &home, WorkDir: &wd})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range c.Models() {
		got = append(got, m.String())
	}
	if strings.Join(got, ",") != "gpt-4.1,kimi/kimi-k2,kimi/shared,local/qwen3,local/shared" {
		t.Errorf("models = %v", got)
	}
	cases := []struct {
		name, base, key, model string
		stream                 bool
		err                    string
	}{
		{name: "kimi-k2", base: "https://api.moonshot.ai/v1", key: "sk-moon", model: "kimi-k2", stream: true},
		{name: "local/qwen3", base: "http://localhost:11434/v1", key: "local-key", model: "qwen3"},
		{name: "gpt-4o", base: DefaultBaseURL, key: "sk-default", model: "gpt-4o", stream: true},
		{name: "shared", err: "several providers"},
	}
	for _, tc := range cases {
		next, _, err := c.resolveModel(tc.name)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || next.BaseURL != tc.base || next.APIKey != tc.key || next.Model != tc.model || next.Stream != tc.stream {
			t.Errorf("%s: %+v, %v", tc.name, next, err)
		}
	}
	// The profile keys are secrets of the shell environment too.
	if !slicesContains(c.ShellEnv.SecretValues, "sk-moon") || !slicesContains(c.ShellEnv.SecretValues, "local-key") {
		t.Errorf("secret values = %v", c.ShellEnv.SecretValues)
	}
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestSetupTextSaysWhatToSet(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c := Config{Home: home, BaseURL: DefaultBaseURL}
	text := setupText(c)
	for _, w := range []string{"OPENAI_API_KEY", "REWIND_MODEL", "OPENAI_BASE_URL", filepath.Join(home, "config.toml"), "not created yet", "rewind demo"} {
		if !strings.Contains(text, w) {
			t.Errorf("setup text lacks %q:\n%s", w, text)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if len([]rune(l)) > 46 && !strings.Contains(l, home) {
			t.Errorf("line too wide for an 80-column modal: %q", l)
		}
	}
	c.APIKey, c.Model = "k", "m"
	if setupText(c) != "" {
		t.Error("a configured model needs no setup screen")
	}
}

// The setup screen is plain text in the workspace: no markdown backticks
// ("Try `rewind demo`" showed them).
func TestSetupTextHasNoBackticks(t *testing.T) {
	if s := setupText(Config{}); s == "" || strings.Contains(s, "`") {
		t.Errorf("setup text %q", s)
	}
}

// TestConfigKnownKeysAreTheStructs: an unknown key's error lists every key
// the config reads, in TOML and YAML alike; the hand-kept list had lost
// agent, agent_file, notify and the size caps. A value of the wrong type
// names its key and what it wants.
func TestConfigKnownKeysAreTheStructs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, body, wrong string }{
		{"config.toml", "modle = \"b\"\n", "max_steps_per_run = \"many\"\n"},
		{"config.yaml", "modle: b\n", "max_steps_per_run: many\n"},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, tc.file)
		if err := os.WriteFile(p, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := readConfigFile(dir)
		if err == nil {
			t.Fatalf("%s: no error for an unknown key", tc.file)
		}
		for _, k := range []string{"agent", "agent_file", "notify", "answer_size_cap", "tool_args_size_cap", "mcp_max_tools", "allow_remote_approval"} {
			if !strings.Contains(err.Error(), k) {
				t.Errorf("%s: the known keys lack %s: %v", tc.file, k, err)
			}
		}
		if err := os.WriteFile(p, []byte(tc.wrong), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := readConfigFile(dir); err == nil || !strings.Contains(err.Error(), tc.file+":1: max_steps_per_run wants a whole number") {
			t.Errorf("%s: wrong type: %v", tc.file, err)
		}
	}
}
