// Package mcptest is an MCP server for tests, built with the official Go
// SDK: tools that echo, add, fail, crash, hang, report progress, return an
// image and a resource link, write a file, show their environment and
// print a lot. Tests serve it in memory, over HTTP (httptest) or over stdio
// by re-executing their own test binary (ServeIfAsked in TestMain).
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment variables of a re-executed test binary.
const (
	// ServeEnv, when set to 1, makes ServeIfAsked serve on stdio.
	ServeEnv = "REWIND_MCPTEST_SERVE"
	// PIDFileEnv names a file the stdio server writes its pid to, and the
	// pid of a child it keeps running (to check that the whole process
	// group dies).
	PIDFileEnv = "REWIND_MCPTEST_PIDFILE"
	// FailStartEnv, when set, makes the stdio server print it to stderr
	// and exit before answering anything.
	FailStartEnv = "REWIND_MCPTEST_FAIL_START"
	// SetsidEnv, when set to 1 with PIDFileEnv, starts the child in a
	// session of its own (setsid), out of the server's process group.
	SetsidEnv = "REWIND_MCPTEST_SETSID"
)

// ServeIfAsked serves the test server on stdin/stdout and exits when
// ServeEnv is set; otherwise it returns at once. Call it first in TestMain.
func ServeIfAsked() {
	if os.Getenv(ServeEnv) != "1" {
		return
	}
	if msg := os.Getenv(FailStartEnv); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(2)
	}
	if f := os.Getenv(PIDFileEnv); f != "" {
		child := exec.Command("sleep", "300")
		if os.Getenv(SetsidEnv) == "1" {
			child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest: cannot start the child:", err)
			os.Exit(2)
		}
		pids := fmt.Sprintf("%d %d\n", os.Getpid(), child.Process.Pid)
		if err := os.WriteFile(f, []byte(pids), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
			os.Exit(2)
		}
	}
	err := NewServer().Run(context.Background(), &mcp.StdioTransport{})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
	}
	os.Exit(0)
}

// Command is the command line that runs the test server over stdio from
// the test binary (os.Args[0]) and the environment that asks it to.
func Command() (string, []string, map[string]string) {
	return os.Args[0], []string{"-test.run=^$"}, map[string]string{ServeEnv: "1"}
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type touchIn struct {
	Path    string `json:"path" jsonschema:"a file name in the work dir"`
	Content string `json:"content"`
}

type getenvIn struct {
	Names []string `json:"names"`
}

type slowIn struct {
	Steps int `json:"steps"`
}

type empty struct{}

// NewServer is the test server with all its tools.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0"}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("it failed on purpose")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server in the middle of the call."},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Reports progress every 50 ms, then answers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps; i++ {
				if token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i),
					})
				}
				select {
				case <-time.After(50 * time.Millisecond):
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				}
			}
			return text(fmt.Sprintf("done after %d steps", in.Steps)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "picture", Description: "Returns an image and a resource link.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "here it is"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
				&mcp.ResourceLink{URI: "file:///tmp/picture.png", Name: "picture.png", MIMEType: "image/png"},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "Writes a file in the server's working directory."},
		func(_ context.Context, _ *mcp.CallToolRequest, in touchIn) (*mcp.CallToolResult, any, error) {
			if in.Path == "" || strings.Contains(in.Path, "..") {
				return nil, nil, errors.New("bad path")
			}
			if err := os.WriteFile(filepath.Clean(in.Path), []byte(in.Content), 0o644); err != nil {
				return nil, nil, err
			}
			return text("wrote " + in.Path), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "getenv", Description: "Shows environment variables of the server.", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in getenvIn) (*mcp.CallToolResult, any, error) {
			var lines []string
			for _, n := range in.Names {
				v, ok := os.LookupEnv(n)
				if !ok {
					v = "(unset)"
				}
				lines = append(lines, n+"="+v)
			}
			return text(strings.Join(lines, "\n")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Prints 100 KB.", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
			return text("BEGIN" + strings.Repeat("x", 100<<10) + "END"), nil, nil
		})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// ReadPIDs waits up to timeout for the pid file a stdio server writes
// (PIDFileEnv) and returns its pids: the server's and its child's.
func ReadPIDs(file string, timeout time.Duration) ([]int, error) {
	deadline := time.Now().Add(timeout)
	for {
		if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
			var pids []int
			for _, f := range strings.Fields(string(b)) {
				n, err := strconv.Atoi(f)
				if err != nil {
					return nil, fmt.Errorf("pid file %s: %v", file, err)
				}
				pids = append(pids, n)
			}
			return pids, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the MCP test server did not write %s within %s", file, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Running reports whether pid runs: it exists and is not a zombie waiting
// for its parent.
func Running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) == 0 || fields[0] != "Z"
}

// WaitGone waits up to timeout until none of pids runs, and returns the
// first one still running otherwise (0 when all are gone).
func WaitGone(pids []int, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for _, pid := range pids {
		for Running(pid) {
			if time.Now().After(deadline) {
				return pid
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return 0
}

// MuteTransport is a client transport to a server that reads every request
// and answers none, until ctx ends: a start against it never completes.
func MuteTransport(ctx context.Context) mcp.Transport {
	client, server := mcp.NewInMemoryTransports()
	go func() {
		conn, err := server.Connect(ctx)
		if err != nil {
			return
		}
		defer conn.Close()
		for {
			if _, err := conn.Read(ctx); err != nil {
				return
			}
		}
	}()
	return client
}
