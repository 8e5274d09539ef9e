package app

import (
	"strconv"
	"time"

	"github.com/rewind-agent/rewind/soul/llm"
)

// This file builds the model client from the configuration.

// BackoffEnv, when set to a number of milliseconds, replaces the retry
// backoff (initial wait; the cap is four times it). Tests use it to stay fast.
const BackoffEnv = "REWIND_RETRY_BACKOFF_MS"

// modelClient loads the configuration and builds the model client from it.
func (rt *Runtime) modelClient() (Config, llm.Client, error) {
	cfg, err := rt.Config()
	if err != nil {
		return cfg, nil, err
	}
	client, err := newProvider(rt, cfg)
	return cfg, client, err
}

// newProvider builds the model client, or says which setting is missing.
func newProvider(rt *Runtime, cfg Config) (llm.Client, error) {
	where := "$REWIND_HOME/config.toml"
	if cfg.File != "" {
		where = cfg.File
	}
	if cfg.APIKey == "" {
		return nil, userErrorf(nil, "no API key: set OPENAI_API_KEY (or KIMI_API_KEY) or api_key in %s", where)
	}
	if cfg.Model == "" {
		return nil, userErrorf(nil, "no model: set REWIND_MODEL (or KIMI_MODEL_NAME), model in %s, or pass --model", where)
	}
	lc := llm.Config{
		BaseURL:     cfg.BaseURL,
		APIKey:      cfg.APIKey,
		Model:       cfg.Model,
		Stream:      cfg.Stream,
		MaxRetries:  cfg.MaxRetriesPerStep,
		CallTimeout: cfg.ModelCallTimeout,

		ThinkingStyle:    cfg.ThinkingStyle,
		MaxAnswerBytes:   cfg.AnswerSizeCap,
		MaxToolArgsBytes: cfg.ToolArgsSizeCap,
	}
	if lc.MaxRetries == 0 {
		lc.MaxRetries = -1 // llm: 0 means its default, negative means none
	}
	if v := rt.getenv(BackoffEnv); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return nil, userErrorf(err, "%s must be a number of milliseconds, got %q", BackoffEnv, v)
		}
		lc.InitialBackoff = time.Duration(ms) * time.Millisecond
		lc.MaxBackoff = 4 * lc.InitialBackoff
		if ms == 0 {
			lc.MaxBackoff = time.Millisecond
			lc.InitialBackoff = time.Microsecond
		}
	}
	p, err := llm.New(lc)
	if err != nil {
		return nil, userErrorf(err, "cannot use the model server %s: %s", cfg.BaseURL, oneLine(err.Error()))
	}
	return p, nil
}
