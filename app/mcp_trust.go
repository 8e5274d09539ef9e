package app

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-agent/rewind/internal/regfile"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/mcp"
	"github.com/rewind-agent/rewind/views"
)

// A project's .rewind/mcp.json starts programs as the user, so a cloned
// repository could run anything the moment rewind opens in it. Its servers
// start only once the user trusted the file's exact content (the
// workspace's dialog, or `rewind mcp trust`); trust is recorded per path
// with the content's hash in $REWIND_HOME/trusted-mcp.json, so any change
// asks again. The user's own $REWIND_HOME/mcp.json and the files named by
// --mcp-config-file need no trust.

// mcpTrustFileName is the record of trusted project files in $REWIND_HOME.
const mcpTrustFileName = "trusted-mcp.json"

// mcpTrustRecord is the file's shape: trusted content hashes by path.
type mcpTrustRecord struct {
	Files map[string]string `json:"files"`
}

// mcpContentHash is what trust records of a file's content.
func mcpContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func readMCPTrust(home string) (mcpTrustRecord, error) {
	path := filepath.Join(home, mcpTrustFileName)
	rec := mcpTrustRecord{Files: map[string]string{}}
	data, err := regfile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("%s: cannot read the trusted MCP files: %v", path, unwrapPath(err))
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return mcpTrustRecord{Files: map[string]string{}}, fmt.Errorf("%s: not valid JSON (%s); no project MCP file is trusted until it is fixed or removed", path, jsonError(data, err))
	}
	if rec.Files == nil {
		rec.Files = map[string]string{}
	}
	return rec, nil
}

// writeMCPTrust replaces the record in one rename, mode 0600.
func writeMCPTrust(home string, rec mcpTrustRecord) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", home, err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(home, mcpTrustFileName+".*")
	if err != nil {
		return fmt.Errorf("record the trusted MCP files: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("record the trusted MCP files: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("record the trusted MCP files: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(home, mcpTrustFileName)); err != nil {
		return fmt.Errorf("record the trusted MCP files: %w", err)
	}
	return nil
}

// mcpTrusted says whether data, read from path, is the content the user
// trusted, and whether another content of path was trusted before.
func mcpTrusted(home, path string, data []byte) (trusted, changed bool, err error) {
	rec, err := readMCPTrust(home)
	if err != nil {
		return false, false, err
	}
	hash, ok := rec.Files[path]
	return ok && hash == mcpContentHash(data), ok && hash != mcpContentHash(data), nil
}

// TrustProjectMCP records that the project file whose content hashes to
// hash may start its servers. The hash is the one of the content shown to
// the user: if the file changed since, the new content still asks.
func TrustProjectMCP(home, path, hash string) error {
	rec, err := readMCPTrust(home)
	if err != nil {
		return err
	}
	rec.Files[path] = hash
	return writeMCPTrust(home, rec)
}

// MCPTrust is `rewind mcp trust`: it shows the work dir's .rewind/mcp.json
// servers and trusts the file's current content.
func MCPTrust(rt *Runtime) error {
	cfg, err := rt.Config()
	if err != nil {
		return err
	}
	path := projectMCPPath(cfg.WorkDir)
	data, err := regfile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return userErrorf(err, "no .rewind/mcp.json in %s: nothing to trust (pass --work-dir for another project)", cfg.WorkDir)
	}
	if err != nil {
		return userErrorf(err, "cannot read %s: %v", path, unwrapPath(err))
	}
	if sameFile(path, filepath.Join(cfg.Home, MCPFileName)) {
		fmt.Fprintf(rt.Stdout, "%s is your own MCP file ($REWIND_HOME/mcp.json): it needs no trust\n", path)
		return nil
	}
	if err := TrustProjectMCP(cfg.Home, path, mcpContentHash(data)); err != nil {
		return err
	}
	servers, problems := parseMCPConfig(path, data, nil, nil)
	fmt.Fprintf(rt.Stdout, "Trusted %s: rewind starts its %d MCP %s in %s until the file changes:\n", path, len(servers), words.Plural(len(servers), "server", "servers"), cfg.WorkDir)
	writeMCPServerList(rt.Stdout, servers)
	for _, p := range problems {
		fmt.Fprintln(rt.Stderr, "rewind: "+p)
	}
	return nil
}

// MCPUntrust is `rewind mcp untrust`: the work dir's .rewind/mcp.json
// starts nothing until it is trusted again.
func MCPUntrust(rt *Runtime) error {
	cfg, err := rt.Config()
	if err != nil {
		return err
	}
	path := projectMCPPath(cfg.WorkDir)
	rec, err := readMCPTrust(cfg.Home)
	if err != nil {
		return userErrorf(err, "%v", err)
	}
	if _, ok := rec.Files[path]; !ok {
		fmt.Fprintf(rt.Stdout, "%s was not trusted: its MCP servers do not start\n", path)
		return nil
	}
	delete(rec.Files, path)
	if err := writeMCPTrust(cfg.Home, rec); err != nil {
		return err
	}
	fmt.Fprintf(rt.Stdout, "Untrusted %s: its MCP servers no longer start\n", path)
	return nil
}

// writeMCPServerList shows servers as written: the command line (or URL),
// and the names of the variables and headers they set.
func writeMCPServerList(w io.Writer, servers []mcp.ServerConfig) {
	for _, s := range servers {
		// Hidden characters named, newlines too: a line that looks
		// harmless must be harmless.
		reveal := func(s string) string { return views.RevealHidden(strings.ReplaceAll(s, "\n", "⟨U+000A⟩")) }
		fmt.Fprintf(w, "  %s: %s\n", reveal(s.Name), reveal(s.CommandLine()))
		if keys := s.EnvNames(); len(keys) > 0 {
			fmt.Fprintf(w, "    env: %s\n", reveal(strings.Join(keys, ", ")))
		}
		if keys := s.HeaderNames(); len(keys) > 0 {
			fmt.Fprintf(w, "    headers: %s\n", reveal(strings.Join(keys, ", ")))
		}
	}
}

// untrustedMCPLine says, in one line, that a project's servers did not
// start and how to trust them (print mode). cwd is where the command runs:
// from elsewhere, the trust command names the work dir; homeFlag is --home
// when given.
func untrustedMCPLine(u *ProjectMCP, workDir, cwd, homeFlag string) string {
	why := "is not trusted"
	if u.Changed {
		why = "changed since you trusted it"
	}
	cmd := "rewind mcp trust"
	if !sameFile(workDir, cwd) {
		cmd += " --work-dir " + mcp.ShellQuote(workDir)
	}
	if h := homeFlag; h != "" {
		cmd += " --home " + mcp.ShellQuote(h)
	}
	return fmt.Sprintf("%s %s: its MCP %s (%s) did not start; review it, then run: %s",
		u.Path, why, words.Plural(len(u.Servers), "server", "servers"), strings.Join(u.Names(), ", "), cmd)
}

// cwd is the current directory, "" when it cannot be read.
func (rt *Runtime) cwd() string {
	wd, _ := os.Getwd()
	return wd
}

// homeFlag is --home as given, "" without it.
func (rt *Runtime) homeFlag() string {
	if rt.Flags.Home != nil {
		return *rt.Flags.Home
	}
	return ""
}
