package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm"
)

func TestThinkingConfig(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		file      string
		env       map[string]string
		flag      *bool
		effort    llm.Effort
		style     llm.ThinkingStyle
		noteWords string // "" = no note
	}{
		{name: "default is off, openai style", effort: llm.EffortOff, style: llm.StyleOpenAI},
		{name: "config effort", file: `thinking = "medium"`, effort: llm.EffortMedium, style: llm.StyleOpenAI},
		{name: "--thinking without config is high", flag: ptr(true), effort: llm.EffortHigh, style: llm.StyleOpenAI},
		{name: "--thinking keeps the config effort", file: `thinking = "low"`, flag: ptr(true), effort: llm.EffortLow, style: llm.StyleOpenAI},
		{name: "--no-thinking wins over config", file: `thinking = "high"`, flag: ptr(false), effort: llm.EffortOff, style: llm.StyleOpenAI},
		{name: "KIMI_* settings are the kimi style", env: map[string]string{"KIMI_API_KEY": "sk-k", "KIMI_BASE_URL": "http://127.0.0.1:9/v1"}, effort: llm.EffortOff, style: llm.StyleKimi},
		{name: "a moonshot base URL is the kimi style", file: `base_url = "https://api.moonshot.ai/v1"`, effort: llm.EffortOff, style: llm.StyleKimi},
		{name: "explicit style wins", file: "base_url = \"https://api.moonshot.cn/v1\"\nthinking_style = \"none\"", effort: llm.EffortOff, style: llm.StyleNone},
		{name: "declared without thinking stays off", file: "model = \"m\"\nthinking = \"high\"\ncapabilities = [\"image_in\"]", effort: llm.EffortOff, style: llm.StyleOpenAI, noteWords: "declared without \"thinking\""},
		{name: "declared with thinking", file: "thinking = \"high\"\ncapabilities = [\"thinking\"]", effort: llm.EffortHigh, style: llm.StyleOpenAI},
		{name: "style none keeps it off", file: "thinking = \"high\"\nthinking_style = \"none\"", effort: llm.EffortOff, style: llm.StyleNone, noteWords: "thinking_style is \"none\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home, wd := t.TempDir(), t.TempDir()
			if tc.file != "" {
				writeFile(t, filepath.Join(home, "config.toml"), tc.file+"\n")
			}
			c, err := LoadConfig(envMap(tc.env), Overrides{Home: &home, WorkDir: &wd, Thinking: tc.flag})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.StartThinking(); got != tc.effort {
				t.Errorf("effort = %q, want %q", got, tc.effort)
			}
			if c.ThinkingStyle != tc.style {
				t.Errorf("style = %q, want %q", c.ThinkingStyle, tc.style)
			}
			note := c.ThinkingNote()
			if (tc.noteWords == "") != (note == "") || !strings.Contains(note, tc.noteWords) {
				t.Errorf("note = %q, want one containing %q", note, tc.noteWords)
			}
			if soulConfig(c).Thinking != tc.effort {
				t.Errorf("soul config thinking = %q", soulConfig(c).Thinking)
			}
		})
	}
}

func TestThinkingConfigErrors(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		`thinking = "max"`:             "thinking must be off, low, medium or high",
		`thinking_style = "anthropic"`: "thinking_style must be",
		`capabilities = ["telepathy"]`: `unknown capability "telepathy"`,
		"[providers.p]\nbase_url = \"http://x/v1\"\nmodels = [\"m\"]\nthinking_style = \"x\"": "[providers.p]",
	} {
		home, wd := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(home, "config.toml"), file+"\n")
		_, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line containing %q", file, err, want)
		}
	}
}

// A provider profile carries its own style and capabilities into /model.
func TestProviderThinkingStyleFollowsModelSwitch(t *testing.T) {
	t.Parallel()
	home, wd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), `api_key = "sk-a"
model = "gpt"
[providers.kimi]
base_url = "https://api.moonshot.ai/v1"
api_key = "sk-b"
models = ["kimi-k2"]
[providers.local]
base_url = "http://127.0.0.1:9/v1"
api_key = "sk-c"
models = ["llava"]
capabilities = ["image_in"]
`)
	c, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := c.resolveModel("kimi-k2")
	if err != nil || k.ThinkingStyle != llm.StyleKimi || !k.HasCapability(llm.CapThinking) {
		t.Fatalf("kimi: style %q caps %v err %v", k.ThinkingStyle, k.Capabilities, err)
	}
	l, _, err := c.resolveModel("llava")
	if err != nil || l.ThinkingStyle != llm.StyleOpenAI || l.HasCapability(llm.CapThinking) || !l.HasCapability(llm.CapImageIn) {
		t.Fatalf("local: style %q caps %v err %v", l.ThinkingStyle, l.Capabilities, err)
	}
}

func TestLoopWarningAfterConfig(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]int{"": 3, "loop_warning_after = 5": 5, "loop_warning_after = 0": -1} {
		home, wd := t.TempDir(), t.TempDir()
		writeFile(t, filepath.Join(home, "config.toml"), file+"\n")
		c, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd})
		if err != nil {
			t.Fatal(err)
		}
		if got := soulConfig(c).LoopWarnAfter; got != want {
			t.Errorf("%q: soul LoopWarnAfter = %d, want %d", file, got, want)
		}
	}
	home, wd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), "loop_warning_after = 1\n")
	if _, err := LoadConfig(envMap(nil), Overrides{Home: &home, WorkDir: &wd}); err == nil || !strings.Contains(err.Error(), "loop_warning_after") {
		t.Fatalf("loop_warning_after = 1: %v", err)
	}
}
