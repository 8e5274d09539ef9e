// Package message owns the chat message model: OpenAI-style messages exactly
// as kimi-cli keeps them in context.jsonl, with lossless JSON round trips.
// It is a leaf with no database import, so the provider, the tools and the
// views use it without linking the SQLite driver.
package message
