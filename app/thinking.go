package app

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/rewind-agent/rewind/soul/llm"
)

// This file resolves what the model is asked to think and what it can take
// (kimi-cli's capabilities), from the configuration.

// knownCapabilities are kimi-cli's capability names; rewind acts on
// thinking and image_in and accepts the others so kimi-cli configs load.
var knownCapabilities = []string{llm.CapThinking, llm.CapImageIn, "video_in", "always_thinking"}

// checkCapabilities validates a capabilities list; nil stays nil
// (undeclared), an empty list declares none.
func checkCapabilities(caps []string, file, key string) ([]string, error) {
	for _, c := range caps {
		if !slices.Contains(knownCapabilities, c) {
			return nil, userErrorf(nil, "%s: %s: unknown capability %q (known: %s)", file, key, c, strings.Join(knownCapabilities, ", "))
		}
	}
	return caps, nil
}

// defaultThinkingStyle is "kimi" for Moonshot's servers and when the KIMI_*
// variables configured the connection, as kimi-cli's Kimi provider sends
// it, and "openai" otherwise.
func defaultThinkingStyle(baseURL string, kimiEnv bool) llm.ThinkingStyle {
	if kimiEnv {
		return llm.StyleKimi
	}
	if u, err := url.Parse(baseURL); err == nil {
		host := strings.ToLower(u.Hostname())
		for _, h := range []string{"moonshot.cn", "moonshot.ai", "kimi.com", "kimi.ai"} {
			if host == h || strings.HasSuffix(host, "."+h) {
				return llm.StyleKimi
			}
		}
	}
	return llm.StyleOpenAI
}

// HasCapability reports whether the model can do cap: a model that
// declares nothing (any unknown OpenAI-compatible model) is assumed to.
func (c Config) HasCapability(cap string) bool {
	return c.Capabilities == nil || slices.Contains(c.Capabilities, cap) ||
		(cap == llm.CapThinking && slices.Contains(c.Capabilities, "always_thinking"))
}

// StartThinking is the effort the first request asks for: the configured
// one, or off for a model declared without thinking.
func (c Config) StartThinking() llm.Effort {
	e, _ := c.checkThinking(c.Thinking)
	return e
}

// ThinkingNote is the one line that says why the configured effort is not
// used, "" when it is.
func (c Config) ThinkingNote() string {
	_, note := c.checkThinking(c.Thinking)
	return note
}

// checkThinking is e as the model can take it, and why not when it cannot.
func (c Config) checkThinking(e llm.Effort) (llm.Effort, string) {
	if !e.On() {
		return llm.EffortOff, ""
	}
	if !c.HasCapability(llm.CapThinking) {
		return llm.EffortOff, fmt.Sprintf("thinking stays off: model %s is declared without \"thinking\" (capabilities in %s)", c.Model, c.configPath())
	}
	if c.ThinkingStyle == llm.StyleNone {
		return llm.EffortOff, fmt.Sprintf("thinking stays off: thinking_style is \"none\" in %s (set \"openai\" or \"kimi\" to ask for it)", c.configPath())
	}
	return e, ""
}
