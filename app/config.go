package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/shellenv"
	"github.com/rewind-agent/rewind/soul/tools"
)

// Defaults of the configuration (README: Configuration).
const (
	DefaultBaseURL           = "https://api.openai.com/v1"
	DefaultMaxContextSize    = 128000
	DefaultReservedTokens    = 50000
	DefaultMaxStepsPerRun    = 100
	DefaultMaxRetriesPerStep = 3
	DefaultTheme             = "dark"
	DefaultFileSizeCap       = 5 << 20 // filecp.DefaultMaxFileSize
	DefaultModelCallTimeout  = 10 * time.Minute
	DefaultNotify            = "bell"
	DefaultLoopWarningAfter  = 3
	// DefaultMaxRunningSubagents: sub-agents of one step running at once.
	DefaultMaxRunningSubagents = 4
	// The MCP tools offered to the model: at most this many in all, and
	// per server (models refuse requests of more than 128 tools, and
	// rewind's own come first).
	DefaultMCPMaxTools          = 100
	DefaultMCPMaxToolsPerServer = 64
	DefaultAnswerSizeCap        = llm.DefaultMaxAnswerBytes
	DefaultToolArgsSizeCap      = llm.DefaultMaxToolArgsBytes
)

// Config is the resolved configuration of one rewind process. Precedence,
// lowest to highest: built-in defaults, $REWIND_HOME/config.toml (or
// config.yaml), environment variables, command-line flags.
type Config struct {
	Home    string // $REWIND_HOME: database, config file, themes
	WorkDir string // the directory the agent works in (absolute)

	BaseURL string
	Model   string
	// APIKey may come from the file or the environment. It is handed to the
	// provider only and never written to the database or printed.
	APIKey string

	Stream            bool
	MaxContextSize    int
	ReservedTokens    int
	MaxStepsPerRun    int
	MaxRetriesPerStep int
	Theme             string
	DMailRevertsFiles bool
	FileSizeCap       int64
	// AnswerSizeCap and ToolArgsSizeCap cap one model answer's text and
	// reasoning, and its tool calls' arguments, in bytes: an answer past
	// either fails the step. An import cuts longer texts to them.
	AnswerSizeCap   int
	ToolArgsSizeCap int
	Yolo            bool
	// ModelCallTimeout bounds one model call, retries included, besides the
	// stream's idle timer.
	ModelCallTimeout time.Duration
	// AllowRemoteApproval lets watchers of this process's session answer
	// its approval requests (same user only: the socket is 0600).
	AllowRemoteApproval bool
	// Notify is how finished, failed and waiting runs are announced:
	// "bell", "osc" (OSC 9 and OSC 777 desktop notifications) or "off".
	Notify string
	// ShellEnv is the environment policy of Shell commands (and MCP
	// servers); the API key and its variables are dropped whatever it says.
	ShellEnv shellenv.Policy
	// MCPMaxTools and MCPMaxToolsPerServer cap the MCP tools offered to
	// the model; the ones left out are named.
	MCPMaxTools          int
	MCPMaxToolsPerServer int

	// Thinking is the effort asked of the model (config thinking,
	// --thinking / --no-thinking; off by default, as kimi-cli).
	Thinking llm.Effort
	// ThinkingStyle is how the server is asked to think: the config's
	// thinking_style, else "kimi" for Kimi's servers and KIMI_* settings and
	// "openai" otherwise.
	ThinkingStyle llm.ThinkingStyle
	// Capabilities are what the model declares (capabilities =
	// ["thinking", "image_in"]); nil means undeclared: assumed to have all.
	Capabilities []string

	// LoopWarningAfter is how many near-identical tool calls in a row make
	// the loop warning (default 3; 0 turns it off).
	LoopWarningAfter int
	// FetchNeedsApproval makes FetchURL ask before each fetch.
	FetchNeedsApproval bool
	// MaxRunningSubagents bounds the sub-agents (Agent calls of one step)
	// running at once (default 4).
	MaxRunningSubagents int
	// Search is the SearchWeb provider ([search]); no provider, no tool.
	Search SearchConfig

	// Providers are the [providers.NAME] profiles, by name.
	Providers []Provider

	// Agent and AgentFile name the agent new sessions start with (config
	// agent / agent_file, --agent / --agent-file; see agent.go).
	// AgentFromFlag says a flag named it: it then also replaces the agent
	// a resumed session was started with.
	Agent         string
	AgentFile     string
	AgentFromFlag bool
	// Plan starts the workspace or -p run in plan mode (--plan).
	Plan bool

	// File is the config file that was read, "" when there was none.
	File string
}

// ToolSet is the built-in tools with Shell given the environment of
// ShellEnv.
func (c Config) ToolSet() *tools.Set {
	set := append(tools.Default().All(), &tools.Shell{Environ: c.ShellEnviron()}, &tools.FetchURL{NeedsApproval: c.FetchNeedsApproval})
	// ReadMediaFile is in every set; the soul offers it only while the
	// model takes images (soul.Config.NoImages, SetImageIn after /model).
	set = append(set, &tools.ReadMediaFile{})
	if c.Search.Provider != "" {
		set = append(set, &tools.SearchWeb{Provider: c.Search.Provider, BaseURL: c.Search.BaseURL, APIKey: c.Search.APIKey})
	}
	return tools.NewSet(set...)
}

// ShellEnviron is the environment of the processes started for the model
// (Shell commands, MCP servers): ShellEnv applied to rewind's environment.
func (c Config) ShellEnviron() []string { return shellenv.Environ(c.ShellEnv) }

// Redactor takes rewind's own secrets out of conversations and exports:
// the model keys of every provider and the environment values Shell is not
// given (see shellenv.Policy.Secrets). nil when there are none.
func (c Config) Redactor() *shellenv.Redactor {
	return shellenv.NewRedactor(c.ShellEnv.Secrets(os.Environ()))
}

// DBPath is where the session database lives.
func (c Config) DBPath() string { return filepath.Join(c.Home, "rewind.db") }

// String describes the configuration without the API key.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("home=%s work_dir=%s base_url=%s model=%s api_key=%s stream=%t max_context_size=%d reserved_tokens=%d max_steps_per_run=%d max_retries_per_step=%d theme=%s",
		c.Home, c.WorkDir, c.BaseURL, c.Model, key, c.Stream, c.MaxContextSize, c.ReservedTokens, c.MaxStepsPerRun, c.MaxRetriesPerStep, c.Theme)
}

// Overrides are the values given on the command line; nil means "not given".
type Overrides struct {
	Home           *string
	WorkDir        *string
	Model          *string
	BaseURL        *string
	Theme          *string
	Yolo           *bool
	NoStream       *bool
	MaxSteps       *int
	MaxContextSize *int
	ReservedTokens *int
	// MCPConfigFiles are the --mcp-config-file flags, in order.
	MCPConfigFiles []string
	// AllowRemoteApproval is --allow-remote-approval.
	AllowRemoteApproval *bool
	// Thinking is --thinking (true) or --no-thinking (false).
	Thinking *bool
	// Agent and AgentFile are --agent and --agent-file; Plan is --plan.
	Agent     *string
	AgentFile *string
	Plan      *bool
}

// fileConfig is the on-disk shape; pointers tell "absent" from "zero".
type fileConfig struct {
	BaseURL             *string                   `toml:"base_url" yaml:"base_url"`
	Model               *string                   `toml:"model" yaml:"model"`
	APIKey              *string                   `toml:"api_key" yaml:"api_key"`
	Stream              *bool                     `toml:"stream" yaml:"stream"`
	MaxContextSize      *int                      `toml:"max_context_size" yaml:"max_context_size"`
	ReservedTokens      *int                      `toml:"reserved_tokens" yaml:"reserved_tokens"`
	MaxStepsPerRun      *int                      `toml:"max_steps_per_run" yaml:"max_steps_per_run"`
	MaxRetriesPerStep   *int                      `toml:"max_retries_per_step" yaml:"max_retries_per_step"`
	Theme               *string                   `toml:"theme" yaml:"theme"`
	DMailRevertsFiles   *bool                     `toml:"dmail_reverts_files" yaml:"dmail_reverts_files"`
	FileSizeCap         *int64                    `toml:"file_size_cap" yaml:"file_size_cap"`
	AnswerSizeCap       *int                      `toml:"answer_size_cap" yaml:"answer_size_cap"`
	ToolArgsSizeCap     *int                      `toml:"tool_args_size_cap" yaml:"tool_args_size_cap"`
	ShellEnv            *shellEnvConfig           `toml:"shell_env" yaml:"shell_env"`
	ModelCallTimeout    *string                   `toml:"model_call_timeout" yaml:"model_call_timeout"`
	AllowRemoteApproval *bool                     `toml:"allow_remote_approval" yaml:"allow_remote_approval"`
	Notify              *string                   `toml:"notify" yaml:"notify"`
	Thinking            *string                   `toml:"thinking" yaml:"thinking"`
	ThinkingStyle       *string                   `toml:"thinking_style" yaml:"thinking_style"`
	Capabilities        []string                  `toml:"capabilities" yaml:"capabilities"`
	FetchNeedsApproval  *bool                     `toml:"fetch_needs_approval" yaml:"fetch_needs_approval"`
	LoopWarningAfter    *int                      `toml:"loop_warning_after" yaml:"loop_warning_after"`
	MaxRunningSubagents *int                      `toml:"max_running_subagents" yaml:"max_running_subagents"`
	Search              *searchConfig             `toml:"search" yaml:"search"`
	MCPMaxTools         *int                      `toml:"mcp_max_tools" yaml:"mcp_max_tools"`
	MCPMaxToolsPerSrv   *int                      `toml:"mcp_max_tools_per_server" yaml:"mcp_max_tools_per_server"`
	Providers           map[string]providerConfig `toml:"providers" yaml:"providers"`
	Agent               *string                   `toml:"agent" yaml:"agent"`
	AgentFile           *string                   `toml:"agent_file" yaml:"agent_file"`
}

// providerConfig is one [providers.NAME] table: another OpenAI-compatible
// endpoint /model can switch to.
type providerConfig struct {
	BaseURL   string   `toml:"base_url" yaml:"base_url"`
	APIKeyEnv string   `toml:"api_key_env" yaml:"api_key_env"` // the variable holding the key
	APIKey    string   `toml:"api_key" yaml:"api_key"`         // or the key itself
	Models    []string `toml:"models" yaml:"models"`
	Stream    *bool    `toml:"stream" yaml:"stream"`
	// ThinkingStyle and Capabilities as the top-level keys, for this
	// provider's models.
	ThinkingStyle string   `toml:"thinking_style" yaml:"thinking_style"`
	Capabilities  []string `toml:"capabilities" yaml:"capabilities"`
}

// Provider is a resolved provider profile. APIKey is read from APIKeyEnv
// when set there, else from the file; it is never stored or printed.
type Provider struct {
	Name      string
	BaseURL   string
	APIKeyEnv string
	APIKey    string
	Models    []string
	Stream    bool

	ThinkingStyle llm.ThinkingStyle
	Capabilities  []string
}

// shellEnvConfig is the [shell_env] table, codex's shell_environment_policy.
type shellEnvConfig struct {
	Inherit               string            `toml:"inherit" yaml:"inherit"`
	IgnoreDefaultExcludes bool              `toml:"ignore_default_excludes" yaml:"ignore_default_excludes"`
	Exclude               []string          `toml:"exclude" yaml:"exclude"`
	IncludeOnly           []string          `toml:"include_only" yaml:"include_only"`
	Set                   map[string]string `toml:"set" yaml:"set"`
}

// ResolveHome picks $REWIND_HOME: the --home flag, then the environment,
// then ~/.rewind.
func ResolveHome(flag *string, getenv func(string) string) (string, error) {
	home := ""
	switch {
	case flag != nil && *flag != "":
		home = *flag
	case getenv("REWIND_HOME") != "":
		home = getenv("REWIND_HOME")
	default:
		dir, err := os.UserHomeDir()
		if err != nil {
			return "", userErrorf(nil, "cannot find your home directory: set REWIND_HOME or pass --home")
		}
		home = filepath.Join(dir, ".rewind")
	}
	if strings.HasPrefix(home, "~"+string(filepath.Separator)) {
		if dir, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(dir, home[2:])
		}
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", userErrorf(err, "bad home directory %q: %v", home, err)
	}
	return abs, nil
}

// LoadConfig resolves the configuration from defaults, the config file under
// the home directory, the environment (getenv) and the flags.
func LoadConfig(getenv func(string) string, o Overrides) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home, err := ResolveHome(o.Home, getenv)
	if err != nil {
		return Config{}, err
	}
	c := Config{
		Home:              home,
		BaseURL:           DefaultBaseURL,
		Stream:            true,
		MaxContextSize:    DefaultMaxContextSize,
		ReservedTokens:    DefaultReservedTokens,
		MaxStepsPerRun:    DefaultMaxStepsPerRun,
		MaxRetriesPerStep: DefaultMaxRetriesPerStep,
		Theme:             DefaultTheme,
		FileSizeCap:       DefaultFileSizeCap,
		AnswerSizeCap:     DefaultAnswerSizeCap,
		ToolArgsSizeCap:   DefaultToolArgsSizeCap,
		ModelCallTimeout:  DefaultModelCallTimeout,
		LoopWarningAfter:  DefaultLoopWarningAfter,
		Notify:            DefaultNotify,
	}
	c.MaxRunningSubagents = DefaultMaxRunningSubagents
	c.MCPMaxTools, c.MCPMaxToolsPerServer = DefaultMCPMaxTools, DefaultMCPMaxToolsPerServer

	fc, file, err := readConfigFile(home)
	if err != nil {
		return Config{}, err
	}
	c.File = file
	setStr(&c.BaseURL, fc.BaseURL)
	setStr(&c.Model, fc.Model)
	setStr(&c.APIKey, fc.APIKey)
	setStr(&c.Theme, fc.Theme)
	setStr(&c.Notify, fc.Notify)
	setStr(&c.Agent, fc.Agent)
	if fc.AgentFile != nil && *fc.AgentFile != "" {
		// Relative to the config file, as mcp.json paths are to theirs.
		c.AgentFile = expandAgentPath(*fc.AgentFile, filepath.Dir(file))
	}
	if fc.AllowRemoteApproval != nil {
		c.AllowRemoteApproval = *fc.AllowRemoteApproval
	}
	if fc.Stream != nil {
		c.Stream = *fc.Stream
	}
	if fc.DMailRevertsFiles != nil {
		c.DMailRevertsFiles = *fc.DMailRevertsFiles
	}
	setInt(&c.MaxContextSize, fc.MaxContextSize)
	setInt(&c.ReservedTokens, fc.ReservedTokens)
	setInt(&c.MaxStepsPerRun, fc.MaxStepsPerRun)
	setInt(&c.MaxRetriesPerStep, fc.MaxRetriesPerStep)
	setInt(&c.MCPMaxTools, fc.MCPMaxTools)
	setInt(&c.MCPMaxToolsPerServer, fc.MCPMaxToolsPerSrv)
	if fc.FileSizeCap != nil {
		c.FileSizeCap = *fc.FileSizeCap
	}
	setInt(&c.AnswerSizeCap, fc.AnswerSizeCap)
	setInt(&c.ToolArgsSizeCap, fc.ToolArgsSizeCap)
	if v := fc.ModelCallTimeout; v != nil {
		d, err := time.ParseDuration(*v)
		if err != nil || d <= 0 {
			return Config{}, userErrorf(err, "%s: model_call_timeout must be a positive duration such as \"10m\" or \"90s\", got %q", file, *v)
		}
		c.ModelCallTimeout = d
	}
	if c.Providers, err = resolveProviders(fc.Providers, getenv, file); err != nil {
		return Config{}, err
	}
	if fc.FetchNeedsApproval != nil {
		c.FetchNeedsApproval = *fc.FetchNeedsApproval
	}
	setInt(&c.LoopWarningAfter, fc.LoopWarningAfter)
	setInt(&c.MaxRunningSubagents, fc.MaxRunningSubagents)
	if v := fc.Thinking; v != nil {
		if c.Thinking, err = llm.ParseEffort(*v); err != nil {
			return Config{}, userErrorf(err, "%s: %v", file, err)
		}
	}
	if v := fc.ThinkingStyle; v != nil {
		if c.ThinkingStyle, err = llm.ParseThinkingStyle(*v); err != nil {
			return Config{}, userErrorf(err, "%s: %v", file, err)
		}
	}
	if c.Capabilities, err = checkCapabilities(fc.Capabilities, file, "capabilities"); err != nil {
		return Config{}, err
	}
	if se := fc.ShellEnv; se != nil {
		c.ShellEnv = shellenv.Policy{Inherit: se.Inherit, IgnoreDefaultExcludes: se.IgnoreDefaultExcludes, Exclude: se.Exclude, IncludeOnly: se.IncludeOnly, Set: se.Set}
	}

	// Environment: the OpenAI names first, the kimi-cli names as fallback.
	kimiEnv := false
	if v := firstEnv(getenv, "OPENAI_API_KEY", "KIMI_API_KEY"); v != "" {
		c.APIKey = v
		kimiEnv = getenv("OPENAI_API_KEY") == ""
	}
	if v := firstEnv(getenv, "OPENAI_BASE_URL", "KIMI_BASE_URL"); v != "" {
		c.BaseURL = v
		kimiEnv = getenv("OPENAI_BASE_URL") == ""
	}
	if v := firstEnv(getenv, "REWIND_MODEL", "KIMI_MODEL_NAME"); v != "" {
		c.Model = v
	}

	// Flags.
	setStr(&c.BaseURL, o.BaseURL)
	setStr(&c.Model, o.Model)
	setStr(&c.Theme, o.Theme)
	if o.Agent != nil || o.AgentFile != nil {
		c.Agent, c.AgentFile, c.AgentFromFlag = "", "", true
		setStr(&c.Agent, o.Agent)
		setStr(&c.AgentFile, o.AgentFile)
	}
	if o.Plan != nil {
		c.Plan = *o.Plan
	}
	setInt(&c.MaxStepsPerRun, o.MaxSteps)
	setInt(&c.MaxContextSize, o.MaxContextSize)
	setInt(&c.ReservedTokens, o.ReservedTokens)
	if o.NoStream != nil && *o.NoStream {
		c.Stream = false
	}
	if o.Yolo != nil {
		c.Yolo = *o.Yolo
	}
	if o.AllowRemoteApproval != nil && *o.AllowRemoteApproval {
		c.AllowRemoteApproval = true
	}
	switch {
	case o.Thinking == nil:
	case !*o.Thinking:
		c.Thinking = llm.EffortOff
	case !c.Thinking.On():
		c.Thinking = llm.EffortHigh // kimi-cli's --thinking
	}
	if c.Thinking == "" {
		c.Thinking = llm.EffortOff
	}
	if c.ThinkingStyle == "" {
		c.ThinkingStyle = defaultThinkingStyle(c.BaseURL, kimiEnv)
	}

	wd := ""
	if o.WorkDir != nil && *o.WorkDir != "" {
		wd = *o.WorkDir
	} else if wd, err = os.Getwd(); err != nil {
		return Config{}, userErrorf(err, "cannot read the current directory: %v (pass --work-dir)", err)
	}
	if c.WorkDir, err = filepath.Abs(wd); err != nil {
		return Config{}, userErrorf(err, "bad work directory %q: %v", wd, err)
	}
	if st, err := os.Stat(c.WorkDir); err != nil || !st.IsDir() {
		return Config{}, userErrorf(err, "work directory %s does not exist or is not a directory", c.WorkDir)
	}

	if err := c.validate(); err != nil {
		return Config{}, err
	}
	if c.Search, err = resolveSearch(fc.Search, getenv, c, file); err != nil {
		return Config{}, err
	}
	c.ShellEnv.SecretValues = []string{c.APIKey}
	if c.Search.APIKey != "" && c.Search.APIKey != c.APIKey {
		c.ShellEnv.SecretValues = append(c.ShellEnv.SecretValues, c.Search.APIKey)
	}
	for _, p := range c.Providers {
		if p.APIKey != "" {
			c.ShellEnv.SecretValues = append(c.ShellEnv.SecretValues, p.APIKey)
		}
	}
	return c, nil
}

// resolveProviders checks the [providers.*] tables and reads their keys.
func resolveProviders(in map[string]providerConfig, getenv func(string) string, file string) ([]Provider, error) {
	if len(in) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Provider, 0, len(names))
	for _, n := range names {
		pc := in[n]
		if pc.BaseURL == "" {
			return nil, userErrorf(nil, "%s: [providers.%s] needs base_url", file, n)
		}
		if len(pc.Models) == 0 {
			return nil, userErrorf(nil, "%s: [providers.%s] needs models = [\"…\"]", file, n)
		}
		p := Provider{Name: n, BaseURL: pc.BaseURL, APIKeyEnv: pc.APIKeyEnv, APIKey: pc.APIKey, Models: pc.Models, Stream: true}
		p.ThinkingStyle = defaultThinkingStyle(pc.BaseURL, false)
		if pc.ThinkingStyle != "" {
			style, err := llm.ParseThinkingStyle(pc.ThinkingStyle)
			if err != nil {
				return nil, userErrorf(err, "%s: [providers.%s] %v", file, n, err)
			}
			p.ThinkingStyle = style
		}
		caps, err := checkCapabilities(pc.Capabilities, file, "[providers."+n+"] capabilities")
		if err != nil {
			return nil, err
		}
		p.Capabilities = caps
		if pc.APIKeyEnv != "" {
			if v := getenv(pc.APIKeyEnv); v != "" {
				p.APIKey = v
			}
		}
		if pc.Stream != nil {
			p.Stream = *pc.Stream
		}
		out = append(out, p)
	}
	return out, nil
}

func (c Config) validate() error {
	where := "the configuration"
	if c.File != "" {
		where = c.File
	}
	switch {
	case c.Notify != "bell" && c.Notify != "osc" && c.Notify != "off":
		return userErrorf(nil, "notify must be \"bell\", \"osc\" or \"off\", got %q (check %s)", c.Notify, where)
	case c.MaxContextSize <= 0:
		return userErrorf(nil, "max_context_size must be positive, got %d (check %s or --max-context-size)", c.MaxContextSize, where)
	case c.ReservedTokens < 0:
		return userErrorf(nil, "reserved_tokens must not be negative, got %d (check %s or --reserved-tokens)", c.ReservedTokens, where)
	case c.ReservedTokens >= c.MaxContextSize:
		return userErrorf(nil, "reserved_tokens (%d) must be below max_context_size (%d): lower --reserved-tokens or raise --max-context-size", c.ReservedTokens, c.MaxContextSize)
	case c.MaxStepsPerRun <= 0:
		return userErrorf(nil, "max_steps_per_run must be positive, got %d (check %s or --max-steps)", c.MaxStepsPerRun, where)
	case c.MaxRetriesPerStep < 0:
		return userErrorf(nil, "max_retries_per_step must not be negative, got %d (check %s)", c.MaxRetriesPerStep, where)
	case c.MaxRunningSubagents < 1:
		return userErrorf(nil, "max_running_subagents must be 1 or more, got %d (check %s)", c.MaxRunningSubagents, where)
	case c.LoopWarningAfter < 0 || c.LoopWarningAfter == 1:
		return userErrorf(nil, "loop_warning_after must be 0 (off) or 2 and up, got %d (check %s)", c.LoopWarningAfter, where)
	case c.MCPMaxTools < 0 || c.MCPMaxToolsPerServer < 0:
		return userErrorf(nil, "mcp_max_tools and mcp_max_tools_per_server must not be negative, got %d and %d (check %s)", c.MCPMaxTools, c.MCPMaxToolsPerServer, where)
	case c.FileSizeCap < 0:
		return userErrorf(nil, "file_size_cap must not be negative, got %d (check %s)", c.FileSizeCap, where)
	case c.AnswerSizeCap <= 0:
		return userErrorf(nil, "answer_size_cap must be a positive number of bytes, got %d (check %s)", c.AnswerSizeCap, where)
	case c.ToolArgsSizeCap <= 0:
		return userErrorf(nil, "tool_args_size_cap must be a positive number of bytes, got %d (check %s)", c.ToolArgsSizeCap, where)
	}
	if err := c.ShellEnv.Validate(); err != nil {
		return userErrorf(err, "shell_env: %v (check %s)", err, where)
	}
	return nil
}

// readConfigFile reads config.toml or config.yaml (config.yml) under home.
// Having more than one is an error, so that no file is silently ignored.
func readConfigFile(home string) (fileConfig, string, error) {
	var found []string
	for _, name := range []string{"config.toml", "config.yaml", "config.yml"} {
		p := filepath.Join(home, name)
		if _, err := os.Stat(p); err == nil {
			found = append(found, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fileConfig{}, "", userErrorf(err, "cannot read %s: %v", p, err)
		}
	}
	switch len(found) {
	case 0:
		return fileConfig{}, "", nil
	case 1:
	default:
		return fileConfig{}, "", userErrorf(nil, "both %s and %s exist: keep only one config file", found[0], found[1])
	}
	path := found[0]
	data, err := regfile.ReadFile(path)
	var notRegular *regfile.NotRegularError
	if errors.As(err, &notRegular) {
		return fileConfig{}, "", userErrorf(err, "%v: make it a regular file or remove it", err)
	}
	if err != nil {
		return fileConfig{}, "", userErrorf(err, "cannot read %s: %v", path, err)
	}
	var fc fileConfig
	if strings.HasSuffix(path, ".toml") {
		err = decodeTOML(path, data, &fc)
	} else {
		err = decodeYAML(path, data, &fc)
	}
	return fc, path, err
}

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

func setStr(dst *string, v *string) {
	if v != nil && *v != "" {
		*dst = *v
	}
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

// soulConfig maps the configuration onto the loop's.
func soulConfig(cfg Config) soul.Config {
	return soul.Config{
		MaxContextSize:    cfg.MaxContextSize,
		ReservedTokens:    cfg.ReservedTokens,
		MaxStepsPerRun:    cfg.MaxStepsPerRun,
		Yolo:              cfg.Yolo,
		DMailRevertsFiles: cfg.DMailRevertsFiles,
		Thinking:          cfg.StartThinking(),
		Redact:            cfg.Redactor(),
		LoopWarnAfter:     loopWarnAfter(cfg.LoopWarningAfter),
		NoImages:          !cfg.HasCapability(llm.CapImageIn),
		Plan:              cfg.Plan,
	}
}

// loopWarnAfter maps the config's 0 (off) onto the soul's negative.
func loopWarnAfter(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
