package llm

import (
	"encoding/json"
	"strings"

	"github.com/rewind-agent/rewind/store/message"

	openai "github.com/sashabaranov/go-openai"
)

// toOpenAIMessages converts stored messages to go-openai request messages.
//
//   - String content is sent as is; a parts list is sent as its text parts
//     joined by newlines, or as a multi-part content when it holds images.
//   - Think parts are never sent as content. When withReasoning is true they
//     are sent as the assistant's reasoning_content, the convention of
//     Moonshot/Kimi and DeepSeek (Kimi's thinking models require it back on
//     tool-call turns); a server that rejects the field makes the Provider
//     drop it (see Provider.attempt).
//   - Tool calls keep their raw argument strings; tool_call_id and name pass
//     through.
func toOpenAIMessages(msgs []message.Message, withReasoning bool) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs))
	for _, m := range msgs {
		om := openai.ChatCompletionMessage{Role: m.Role, Name: m.Name, ToolCallID: m.ToolCallID}
		if m.Content.Parts == nil {
			om.Content = m.Content.Text
		} else if hasImage(m.Content.Parts) {
			om.MultiContent = multiContent(m.Content.Parts)
		} else {
			om.Content = m.Content.PlainText()
		}
		if withReasoning && m.Role == "assistant" {
			om.ReasoningContent = m.Content.Reasoning()
			if om.ReasoningContent == "" {
				if raw, ok := m.Extra["reasoning_content"]; ok {
					_ = json.Unmarshal(raw, &om.ReasoningContent)
				}
			}
		}
		for _, c := range m.ToolCalls {
			typ := openai.ToolType(c.Type)
			if typ == "" {
				typ = openai.ToolTypeFunction
			}
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       c.ID,
				Type:     typ,
				Function: openai.FunctionCall{Name: c.Name, Arguments: c.Args},
			})
		}
		out = append(out, om)
	}
	return out
}

func hasReasoning(msgs []message.Message) bool {
	for _, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		if m.Content.Reasoning() != "" {
			return true
		}
		if _, ok := m.Extra["reasoning_content"]; ok {
			return true
		}
	}
	return false
}

func hasImage(parts []message.Part) bool {
	for _, p := range parts {
		if p.Type == "image_url" {
			return true
		}
	}
	return false
}

func multiContent(parts []message.Part) []openai.ChatMessagePart {
	var out []openai.ChatMessagePart
	for _, p := range parts {
		switch p.Type {
		case "text":
			out = append(out, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: p.Text})
		case "image_url":
			var v struct {
				ImageURL json.RawMessage `json:"image_url"`
			}
			_ = json.Unmarshal(p.Raw, &v)
			img := &openai.ChatMessageImageURL{}
			var s string
			if json.Unmarshal(v.ImageURL, &s) == nil {
				img.URL = s
			} else {
				_ = json.Unmarshal(v.ImageURL, img)
			}
			if img.URL != "" {
				out = append(out, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: img})
			}
		}
	}
	return out
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

func toOpenAITools(specs []ToolSpec) []openai.Tool {
	if len(specs) == 0 {
		return nil
	}
	out := make([]openai.Tool, 0, len(specs))
	for _, s := range specs {
		params := s.Parameters
		if len(params) == 0 {
			params = emptyObjectSchema
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: s.Name, Description: s.Description, Parameters: params,
		}})
	}
	return out
}

// assistantMessage builds the stored form of an answer: string content, or
// a parts list [think, text] when the model reasoned, so the reasoning is
// kept; tool calls with their raw argument strings.
func assistantMessage(content, reasoning string, calls []message.ToolCall) message.Message {
	m := message.Message{Role: "assistant", ToolCalls: calls}
	if reasoning == "" {
		m.Content = message.TextContent(content)
		return m
	}
	parts := []message.Part{{Type: "think", Think: reasoning}}
	if content != "" {
		parts = append(parts, message.Part{Type: "text", Text: content})
	}
	m.Content = message.Content{Parts: parts}
	return m
}

// Token estimate constants: see EstimateTokens.
const (
	bytesPerToken      = 4
	perMessageOverhead = 4
	replyPriming       = 3
)

// EstimateTokens guesses the token count of msgs when a server reports no
// usage. The heuristic is the usual one for BPE tokenizers on English and
// code: one token per 4 bytes of text (counting UTF-8 bytes, so CJK text at
// 3 bytes per character comes out near 0.75 tokens per character), summed
// over content text, reasoning, tool-call names and argument strings and
// tool-call ids, plus each image as a model bills it (imageTokens), plus 4 tokens of framing per message and 3 for the reply
// priming. It is deliberately simple; it only has to be in the right
// ballpark for the auto-compaction threshold.
func EstimateTokens(msgs []message.Message) int {
	if len(msgs) == 0 {
		return 0
	}
	n := replyPriming
	for _, m := range msgs {
		n += perMessageOverhead + messageTokens(m)
	}
	return n
}

func messageTokens(m message.Message) int {
	b := len(m.Role) + len(m.Name) + len(m.ToolCallID)
	if m.Content.Parts == nil {
		b += len(m.Content.Text)
	} else {
		for _, p := range m.Content.Parts {
			b += len(p.Text) + len(p.Think)
		}
	}
	for _, c := range m.ToolCalls {
		b += len(c.ID) + len(c.Name) + len(c.Args)
	}
	n := (b + bytesPerToken - 1) / bytesPerToken
	for _, img := range m.Content.Images() {
		n += imageTokens(img.Width, img.Height)
	}
	return n
}

// imageTokens is what a model bills for a w×h image, by OpenAI's
// high-detail rule: scaled to fit 2048×2048, then its shortest side to 768,
// 170 tokens per 512-pixel tile plus 85. An image of unknown size counts as
// a 1024×1024 one.
func imageTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		w, h = 1024, 1024
	}
	scale := func(f float64) {
		if f < 1 {
			w, h = max(1, int(float64(w)*f)), max(1, int(float64(h)*f))
		}
	}
	scale(2048 / float64(max(w, h)))
	scale(768 / float64(min(w, h)))
	tiles := ((w + 511) / 512) * ((h + 511) / 512)
	return 85 + 170*tiles
}

func specTokens(specs []ToolSpec) int {
	b := 0
	for _, s := range specs {
		b += len(s.Name) + len(s.Description) + len(s.Parameters)
	}
	return (b + bytesPerToken - 1) / bytesPerToken
}

// estimateUsage fills a Usage for a call the server did not count.
func estimateUsage(req Request, answer message.Message) Usage {
	prompt := EstimateTokens(req.Messages) + specTokens(req.Tools)
	completion := perMessageOverhead + messageTokens(answer)
	return Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion, Estimated: true}
}

func trimFinish(r openai.FinishReason) string { return strings.TrimSpace(string(r)) }
