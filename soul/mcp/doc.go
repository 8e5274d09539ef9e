// Package mcp connects rewind to MCP servers through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) and offers their tools to the
// soul as ordinary tools.Tool values. It owns the servers' life cycle:
// starting them in the background (stdio commands in their own process
// group, or streamable HTTP endpoints), listing their tools, calling them
// with a per-call timeout, noticing crashes, restarting on request and
// killing every process group on Close.
//
// Tools are named mcp__<server>__<tool> (see ToolName), so they never
// collide with the built-in tools or with each other. A call of a tool that
// is not annotated readOnlyHint asks for approval like Shell does, unless
// the server's Approve setting says otherwise, and is wrapped in the file
// tracker's AroundShell scan so that edits the server makes in the work dir
// enter the file checkpoints. A server that crashes, hangs or never starts
// never fails the session: its tools answer with a tool error that says
// what happened.
//
// The package knows nothing of the store, the TUI or the configuration
// files: package app parses mcp.json into ServerConfig values and wires the
// Manager's tools into the soul's tools.Set with Set.WithSource.
package mcp
