package app

import (
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/soul/llm"
)

// ModelChoice is one model /model can switch to: a model of a provider
// profile, or the configured default connection (Provider "").
type ModelChoice struct {
	Provider string
	Model    string
}

// String is how /model names it: "provider/model", or "model" for the
// default connection.
func (m ModelChoice) String() string {
	if m.Provider == "" {
		return m.Model
	}
	return m.Provider + "/" + m.Model
}

// Models lists the configured default model, then each provider's models.
func (c Config) Models() []ModelChoice {
	var out []ModelChoice
	if c.Model != "" {
		out = append(out, ModelChoice{Model: c.Model})
	}
	for _, p := range c.Providers {
		for _, m := range p.Models {
			out = append(out, ModelChoice{Provider: p.Name, Model: m})
		}
	}
	return out
}

// resolveModel finds what /model NAME means: "provider/model", a model
// listed by exactly one provider, or else a model name for the default
// connection (as --model would take it). It returns the configuration the
// client is built from.
func (c Config) resolveModel(name string) (Config, ModelChoice, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return c, ModelChoice{}, fmt.Errorf("give a model name")
	}
	if prov, model, ok := strings.Cut(name, "/"); ok {
		for _, p := range c.Providers {
			if p.Name == prov {
				return c.withProvider(p, model), ModelChoice{Provider: p.Name, Model: model}, nil
			}
		}
	}
	var hits []Provider
	for _, p := range c.Providers {
		for _, m := range p.Models {
			if m == name {
				hits = append(hits, p)
			}
		}
	}
	switch len(hits) {
	case 1:
		return c.withProvider(hits[0], name), ModelChoice{Provider: hits[0].Name, Model: name}, nil
	case 0:
		if c.APIKey == "" {
			return c, ModelChoice{}, fmt.Errorf("no provider profile lists %q and there is no default API key (add [providers.NAME] to %s)", name, c.configPath())
		}
		out := c
		out.Model = name
		return out, ModelChoice{Model: name}, nil
	}
	names := make([]string, len(hits))
	for i, p := range hits {
		names[i] = p.Name + "/" + name
	}
	return c, ModelChoice{}, fmt.Errorf("%q is offered by several providers: say which, e.g. /model %s", name, strings.Join(names, " or /model "))
}

func (c Config) withProvider(p Provider, model string) Config {
	c.BaseURL, c.APIKey, c.Model, c.Stream = p.BaseURL, p.APIKey, model, p.Stream
	c.ThinkingStyle, c.Capabilities = p.ThinkingStyle, p.Capabilities
	return c
}

func (c Config) configPath() string {
	if c.File != "" {
		return c.File
	}
	return c.Home + "/config.toml"
}

// SwitchModel builds the client for /model NAME.
func (rt *Runtime) SwitchModel(cfg Config, name string) (llm.Client, ModelChoice, error) {
	next, choice, err := cfg.resolveModel(name)
	if err != nil {
		return nil, choice, err
	}
	if next.APIKey == "" {
		p := choice.Provider
		return nil, choice, fmt.Errorf("provider %s has no API key: set the variable named by its api_key_env, or api_key", p)
	}
	client, err := newProvider(rt, next)
	if err != nil {
		return nil, choice, err
	}
	return client, choice, nil
}
