package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestKeyReadFromTheEnvironmentIsRedacted is the attack of issue 20: a Shell
// command reads rewind's own environment (/proc/$PPID/environ, which the
// scrubbed Shell environment does not cover) and the model repeats the key.
// Neither the next request, the database, the output nor the export holds
// the key or a withheld token.
func TestKeyReadFromTheEnvironmentIsRedacted(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-5f1d0c9e7b"
	const token = "ghp_canaryToken0123456789"
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "Shell", map[string]any{"command": `tr '\0' '\n' < /proc/$PPID/environ`})),
		llmtest.Text("The key is "+canary+" and the token "+token),
	)
	e := newEnv(t).withServer(srv)
	e.vars["OPENAI_API_KEY"] = canary
	e.vars["GITHUB_TOKEN"] = token
	r := e.run("-p", "what is your key?", "--yolo", "--output", "jsonl")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	leaks := func(where, text string) {
		t.Helper()
		for _, secret := range []string{canary, token} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %s", where, secret)
			}
		}
	}
	leaks("the output", r.stdout+r.stderr)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	result, _ := reqs[1].Last("tool")
	if out := result.Content.PlainText(); !strings.Contains(out, "OPENAI_API_KEY=[API key redacted]") || !strings.Contains(out, "GITHUB_TOKEN=[GITHUB_TOKEN redacted]") {
		t.Errorf("the tool result sent:\n%s", out)
	}
	leaks("the second request", string(reqs[1].Body))
	entries, _ := os.ReadDir(e.home)
	for _, ent := range entries {
		data, err := os.ReadFile(filepath.Join(e.home, ent.Name()))
		if err == nil {
			leaks(ent.Name(), string(data))
		}
	}
	id := e.onlySession()
	exp := e.mustOK("export", id).stdout
	leaks("the export", exp)
	if !strings.Contains(exp, "The key is [API key redacted] and the token [GITHUB_TOKEN redacted]") {
		t.Errorf("export lacks the redacted answer:\n%s", exp)
	}
}

// TestExportRedactsAKeyStoredBefore: a session that holds the key (imported,
// or written by a rewind without redaction) exports without it.
func TestExportRedactsAKeyStoredBefore(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-5f1d0c9e7b"
	e := newEnv(t)
	e.vars["OPENAI_API_KEY"] = canary
	in := filepath.Join(e.workDir, "context.jsonl")
	writeFile(t, in, `{"role":"user","content":"my key is `+canary+`"}`+"\n"+`{"role":"assistant","content":"noted: `+canary+`"}`+"\n")
	id := strings.TrimSpace(e.mustOK("import", in).stdout)
	exp := e.mustOK("export", id).stdout
	if strings.Contains(exp, canary) || !strings.Contains(exp, "noted: [API key redacted]") {
		t.Errorf("export:\n%s", exp)
	}
	out := filepath.Join(e.workDir, "out.jsonl")
	e.mustOK("export", id, "-o", out)
	if data, _ := os.ReadFile(out); strings.Contains(string(data), canary) || len(data) == 0 {
		t.Errorf("export -o:\n%s", data)
	}
}
