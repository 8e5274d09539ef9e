package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-agent/rewind/soul/tools"
)

// Tool is one tool of an MCP server, as the soul sees it.
type Tool struct {
	srv         *server
	name        string // mcp__server__tool
	remote      string // the server's name for it
	description string
	schema      json.RawMessage
	readOnly    bool
}

var _ tools.ReadOnlyTool = (*Tool)(nil)

func newTool(s *server, name string, t *sdk.Tool) *Tool {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = t.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("Tool %s of the MCP server %s.", t.Name, s.cfg.Name)
	}
	return &Tool{
		srv:         s,
		name:        name,
		remote:      t.Name,
		description: desc,
		schema:      inputSchema(t.InputSchema),
		readOnly:    t.Annotations != nil && t.Annotations.ReadOnlyHint,
	}
}

// inputSchema is the tool's schema as JSON, or an empty object schema when
// the server sent none usable (the model's API requires type object).
func inputSchema(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return b
}

func (t *Tool) Name() string            { return t.name }
func (t *Tool) Description() string     { return t.description }
func (t *Tool) Schema() json.RawMessage { return t.schema }

// ReadOnly is the server's readOnlyHint: such calls may run in parallel
// with other read-only calls and are not wrapped in a file scan.
func (t *Tool) ReadOnly() bool { return t.readOnly }

// needsApproval applies the server's policy to this tool.
func (t *Tool) needsApproval() bool {
	switch t.srv.cfg.Approve {
	case ApproveAlways:
		return true
	case ApproveNever:
		return false
	}
	return !t.readOnly
}

// ApprovalAction is the approval class of calls of the tool named name:
// "approve for the session" covers that one tool.
func ApprovalAction(name string) string { return "call MCP tool " + name }

// Call runs the tool on its server. Every failure is a tool error.
func (t *Tool) Call(ctx context.Context, env *tools.Env, args json.RawMessage) tools.Result {
	if env == nil {
		env = &tools.Env{}
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	server := t.srv.cfg.Name
	// A server known to be down fails the call before anyone is asked.
	if reason := t.srv.failure(); reason != "" {
		return unavailable(fmt.Errorf("MCP server %s is not running: %s", server, reason))
	}
	if t.needsApproval() && env.Approve != nil {
		d := env.Approve(ctx, tools.Approval{
			Tool:        t.name,
			Action:      ApprovalAction(t.name),
			Description: fmt.Sprintf("Call %s on the MCP server %s", t.remote, server),
		})
		if !d.Approved {
			out := tools.RejectedOutput + "."
			if fb := strings.TrimSpace(d.Feedback); fb != "" {
				out = tools.RejectedOutput + ". The user's feedback: " + fb
			}
			return tools.Result{Output: out, IsError: true, Rejected: true, Brief: "rejected"}
		}
	}
	if ctx.Err() != nil {
		return errorResult("interrupted", "The call of %s was interrupted before it started.", t.name)
	}
	timeout := t.srv.cfg.timeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs, c, err := t.srv.session(callCtx)
	if err != nil {
		return unavailable(err)
	}

	var after func(context.Context) ([]tools.NotKeptFile, error)
	if !t.readOnly && env.Files != nil {
		if after, err = env.Files.AroundShell(ctx); err != nil {
			return errorResult("checkpoint failed", "The tool was not called: scanning the work dir for the file checkpoint failed: %v.", err)
		}
	}
	params := &sdk.CallToolParams{Name: t.remote, Arguments: args}
	if env.Output != nil {
		token, unwatch := t.srv.watchProgress(env.Output)
		defer unwatch()
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(callCtx, params)
	var out tools.Result
	if err != nil {
		out = t.callError(ctx, callCtx, c, err, timeout)
	} else {
		out = convertResult(res)
	}
	if after != nil {
		// Record changes even when the call failed or timed out.
		notKept, err := after(context.WithoutCancel(ctx))
		if err != nil {
			out.Output += fmt.Sprintf("\n[Recording file changes for the checkpoint failed: %v]", err)
		}
		out.Output += tools.NotKeptNote(notKept)
	}
	return out
}

// callError phrases a failed call: interrupted, timed out, the server
// crashed, or the server answered with a protocol error.
func (t *Tool) callError(ctx, callCtx context.Context, c *conn, err error, timeout time.Duration) tools.Result {
	server := t.srv.cfg.Name
	var rpcErr *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return errorResult("interrupted", "The call of %s was interrupted by the user.", t.name)
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return errorResult(fmt.Sprintf("timed out after %s", timeout), "The MCP server %s did not answer the call of %s within %s; the call was cancelled. The server may be stuck; try something else.", server, t.remote, timeout)
	case errors.As(err, &rpcErr):
		return errorResult("server error", "The MCP server %s refused the call of %s: %s", server, t.remote, rpcErr.Message)
	}
	// The connection broke: wait a moment for the server to be seen gone.
	select {
	case <-c.done:
	case <-time.After(crashSettle):
	}
	if reason := t.srv.failure(); reason != "" {
		return errorResult("server crashed", "The MCP server %s stopped during the call of %s (%s). Its tools cannot be used until the user restarts it (/mcp in the workspace); carry on without them.", server, t.remote, reason)
	}
	return errorResult("call failed", "The call of %s on the MCP server %s failed: %s", t.remote, server, oneLine(err.Error()))
}

// unavailable is the tool error of a call whose server is not running.
func unavailable(err error) tools.Result {
	return errorResult("server unavailable", "%v. Its tools cannot be used until the user restarts it (/mcp in the workspace); carry on without them.", err)
}

func errorResult(brief, format string, a ...any) tools.Result {
	return tools.Result{Output: fmt.Sprintf(format, a...), IsError: true, Brief: brief}
}
