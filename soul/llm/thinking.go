package llm

import (
	"fmt"
	"strings"
)

// Effort is how hard the model is asked to think before it answers: off,
// or kimi-cli's low / medium / high.
type Effort string

// The efforts, weakest first.
const (
	EffortOff    Effort = "off"
	EffortLow    Effort = "low"
	EffortMedium Effort = "medium"
	EffortHigh   Effort = "high"
)

// Efforts lists every effort, weakest first (/thinking cycles through them).
var Efforts = []Effort{EffortOff, EffortLow, EffortMedium, EffortHigh}

// On reports whether the effort asks for thinking; "" is off.
func (e Effort) On() bool { return e != "" && e != EffortOff }

// ParseEffort reads an effort as the config and /thinking write it.
func ParseEffort(s string) (Effort, error) {
	for _, e := range Efforts {
		if strings.EqualFold(strings.TrimSpace(s), string(e)) {
			return e, nil
		}
	}
	return "", fmt.Errorf("thinking must be off, low, medium or high, got %q", s)
}

// ThinkingStyle is how a server is asked to think: each provider family
// spells it its own way.
type ThinkingStyle string

// The styles.
const (
	// StyleOpenAI sends reasoning_effort (OpenAI's o-series, gpt-5, and the
	// many servers that copy its API); nothing when thinking is off.
	StyleOpenAI ThinkingStyle = "openai"
	// StyleKimi sends thinking: {"type": "enabled"|"disabled"} in the body,
	// as kimi-cli's Kimi provider does (DeepSeek takes the same), and says
	// "disabled" when thinking is off.
	StyleKimi ThinkingStyle = "kimi"
	// StyleNone never mentions thinking: for servers that reject both.
	StyleNone ThinkingStyle = "none"
)

// ParseThinkingStyle reads a thinking_style value.
func ParseThinkingStyle(s string) (ThinkingStyle, error) {
	switch ThinkingStyle(strings.ToLower(strings.TrimSpace(s))) {
	case StyleOpenAI:
		return StyleOpenAI, nil
	case StyleKimi:
		return StyleKimi, nil
	case StyleNone:
		return StyleNone, nil
	}
	return "", fmt.Errorf("thinking_style must be \"openai\", \"kimi\" or \"none\", got %q", s)
}

// kimiThinking is the body field of StyleKimi.
type kimiThinking struct {
	Type string `json:"type"`
}

// thinkingField is the value of the kimi style's "thinking" field for e.
func thinkingField(e Effort) *kimiThinking {
	if e.On() {
		return &kimiThinking{Type: "enabled"}
	}
	return &kimiThinking{Type: "disabled"}
}

// Capabilities a model profile may declare (kimi-cli's names).
const (
	CapThinking = "thinking"
	CapImageIn  = "image_in"
)

// rejectedCapability recognises a 400/422 that refuses what the request
// carried for a capability: the thinking parameter, or an image. It
// returns the *Error to report instead, which names the capability and how
// to turn it off, or nil.
func rejectedCapability(e *Error, sentThinking, sentImage bool) *Error {
	if e.Status != 400 && e.Status != 422 {
		return nil
	}
	low := strings.ToLower(e.Message)
	switch {
	case sentThinking && !strings.Contains(low, "reasoning_content") && (strings.Contains(low, "thinking") || strings.Contains(low, "reasoning_effort") || strings.Contains(low, "reasoning effort")):
		return &Error{Status: e.Status, Rejected: CapThinking, Err: e,
			Message: fmt.Sprintf("the server rejected the thinking parameter (%s): turn thinking off with /thinking off or --no-thinking, or set thinking_style = \"none\" in the config", clipMessage(e.Message))}
	case sentImage && (strings.Contains(low, "image") || strings.Contains(low, "vision") || strings.Contains(low, "multimodal")):
		return &Error{Status: e.Status, Rejected: CapImageIn, Err: e,
			Message: fmt.Sprintf("the server rejected an image (%s): this model may not read images; declare its capabilities without \"image_in\" in the config", clipMessage(e.Message))}
	}
	return nil
}

func clipMessage(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
