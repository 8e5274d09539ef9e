package main

// The promises of README "Security and guarantees", end to end through the
// binary: secrets stay out of Shell, the database and exports.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// filesContaining lists the files under dir whose bytes contain s.
func filesContaining(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), s) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

func TestShellEnvKeepsTheKeyOut(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-env-8c41f2d07a"
	const token = "ghp-canary-token-93b1"
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_env", "Shell", map[string]any{"command": "env; echo SHELL-RAN"})),
		llmtest.Text("done"),
	)
	e := newEnv(t).withServer(srv)
	e.vars["OPENAI_API_KEY"] = canary
	e.vars["GH_TOKEN"] = token
	e.vars["MY_PLAIN_VAR"] = "plain-value"
	r := e.run("-p", "print the environment", "--yolo")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[1].Body)
	if !strings.Contains(body, "SHELL-RAN") || !strings.Contains(body, "MY_PLAIN_VAR=plain-value") {
		t.Fatalf("the Shell output did not reach the model: %s", body)
	}
	for _, secret := range []string{canary, token} {
		if strings.Contains(body, secret) {
			t.Errorf("%s is in the next model request", secret)
		}
		if hits := filesContaining(t, e.home, secret); len(hits) > 0 {
			t.Errorf("%s is in %v (database, WAL or another file)", secret, hits)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%s was printed", secret)
		}
		if exp := e.mustOK("export", e.onlySession()).stdout; strings.Contains(exp, secret) {
			t.Errorf("%s is in the export", secret)
		}
	}
}

func TestRefusedKeyIsMaskedWhenPrinted(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-401-77ad0e"
	srv := llmtest.NewServer(t)
	e := newEnv(t).withServer(srv)
	e.vars["OPENAI_API_KEY"] = canary
	for _, out := range []string{"text", "jsonl"} {
		srv.Enqueue(llmtest.HTTPError(401, "Incorrect API key provided: "+canary+"."))
		r := e.run("-p", "hello", "--output", out)
		if r.code == 0 || !strings.Contains(r.stderr+r.stdout, "Incorrect API key provided") {
			t.Fatalf("%s", r)
		}
		if strings.Contains(r.stdout+r.stderr, canary) {
			t.Errorf("--output %s printed the key: %s", out, r)
		}
	}
	if hits := filesContaining(t, e.home, canary); len(hits) > 0 {
		t.Errorf("the key is in %v", hits)
	}
}
