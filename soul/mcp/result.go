package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-agent/rewind/soul/tools"
)

// convertResult turns a tool result into what the model sees: text as is,
// structured content as JSON (unless a text part already carries it),
// images and audio as a placeholder naming their type and size, resource
// links and embedded resources by their URI. The output is capped like
// Shell's. An error result is a tool error.
func convertResult(r *sdk.CallToolResult) tools.Result {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, contentText(c))
	}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil && !carries(parts, b) {
			parts = append(parts, "Structured content: "+string(b))
		}
	}
	text := strings.Join(parts, "\n")
	brief := "ok · " + tools.HumanBytes(int64(len(text)))
	if r.IsError {
		brief = "error · " + tools.HumanBytes(int64(len(text)))
		if strings.TrimSpace(text) == "" {
			text = "The tool reported an error without a message."
		}
	}
	return tools.Result{Output: tools.CapOutput(text, 0), IsError: r.IsError, Brief: brief}
}

func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %s; not shown]", orUnknown(c.MIMEType), tools.HumanBytes(int64(len(c.Data))))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %s; not shown]", orUnknown(c.MIMEType), tools.HumanBytes(int64(len(c.Data))))
	case *sdk.ResourceLink:
		s := "[resource link: " + c.URI
		if c.Name != "" {
			s += " (" + c.Name + ")"
		}
		if c.MIMEType != "" {
			s += ", " + c.MIMEType
		}
		if d := oneLine(c.Description); d != "" {
			s += ": " + d
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource]"
		}
		if r.Text != "" {
			return "[resource " + r.URI + "]\n" + r.Text
		}
		return fmt.Sprintf("[resource %s: %s, %s of binary data; not shown]", r.URI, orUnknown(r.MIMEType), tools.HumanBytes(int64(len(r.Blob))))
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "[content that could not be shown]"
	}
	return string(b)
}

// carries reports whether one of the text parts is the JSON b (servers are
// asked to send structured content also as text).
func carries(parts []string, b []byte) bool {
	var want any
	if json.Unmarshal(b, &want) != nil {
		return false
	}
	canon, _ := json.Marshal(want)
	for _, p := range parts {
		var got any
		if json.Unmarshal([]byte(p), &got) == nil {
			if g, _ := json.Marshal(got); string(g) == string(canon) {
				return true
			}
		}
	}
	return false
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}
