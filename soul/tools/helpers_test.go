package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder records approvals and file-tracker calls in one ordered log.
type recorder struct {
	mu        sync.Mutex
	log       []string
	approvals []Approval
	decide    func(Approval) Decision // nil approves
	// snapshot is called at BeforeWrite time (e.g. to read a file's content
	// before it is modified).
	snapshot func(paths []string)
	failNext error
	// notKept is what BeforeWrite says it could not keep.
	notKept []NotKeptFile
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (r *recorder) Approve(ctx context.Context, a Approval) Decision {
	r.mu.Lock()
	r.approvals = append(r.approvals, a)
	r.mu.Unlock()
	r.add("approve:" + a.Action)
	if r.decide != nil {
		return r.decide(a)
	}
	return Decision{Approved: true}
}

func (r *recorder) BeforeWrite(ctx context.Context, paths []string) ([]NotKeptFile, error) {
	r.add("before-write:" + strings.Join(paths, ","))
	if r.snapshot != nil {
		r.snapshot(paths)
	}
	return r.notKept, r.failNext
}

func (r *recorder) AroundShell(ctx context.Context) (func(context.Context) ([]NotKeptFile, error), error) {
	r.add("shell-before")
	if r.failNext != nil {
		return nil, r.failNext
	}
	return func(ctx context.Context) ([]NotKeptFile, error) {
		if ctx.Err() != nil {
			r.add("shell-after:cancelled-ctx")
			return nil, nil
		}
		r.add("shell-after")
		return nil, nil
	}, nil
}

func (r *recorder) Log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

// newEnv returns an Env on a fresh work dir with a recorder as approver
// and file tracker.
func newEnv(t *testing.T) (*Env, *recorder) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	return &Env{WorkDir: dir, Approve: r.Approve, Files: r}, r
}

// call runs tool with args built from a Go value (or a raw string).
func call(t *testing.T, tool Tool, env *Env, args any) Result {
	t.Helper()
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	return tool.Call(context.Background(), env, raw)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustOK(t *testing.T, res Result) {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected tool error: %s", res.Output)
	}
}

func mustErr(t *testing.T, res Result, substrs ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("expected a tool error, got: %s", res.Output)
	}
	for _, s := range substrs {
		if !strings.Contains(res.Output, s) {
			t.Fatalf("error %q does not contain %q", res.Output, s)
		}
	}
}

func numbered(lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	return strings.TrimRight(b.String(), "\n")
}
