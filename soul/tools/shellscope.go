package tools

import "strings"

// "Approve for session" on a Shell call covers the command's prefixes, not
// every later command: `go test ./...` approves `go test …`, `sed -i …`
// approves `sed …`. A command made of several parts (`a && b | c`) has one
// scope per part and runs without asking only when each part's scope was
// approved. The rule:
//   - the first word, or the first two for tools whose second word is a
//     subcommand (go, git, npm, cargo, …; see subcommandTools);
//   - the exact text, when a prefix would approve too much: wrappers that
//     run another command (sudo, env, xargs, bash -c, …), a subcommand tool
//     followed by a flag (`git -C dir …`), leading VAR=value assignments,
//     and any command with command substitution or a subshell.

// subcommandTools take a subcommand as their second word: approving
// `git status` must not approve `git push`.
var subcommandTools = map[string]bool{
	"go": true, "git": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true,
	"cargo": true, "rustup": true, "docker": true, "podman": true, "kubectl": true, "helm": true,
	"make": true, "just": true, "pip": true, "pip3": true, "uv": true, "poetry": true, "npx": true,
	"dotnet": true, "gradle": true, "mvn": true, "bundle": true, "rake": true, "rails": true,
	"mix": true, "gh": true, "brew": true, "apt": true, "apt-get": true, "terraform": true,
	"systemctl": true, "composer": true, "swift": true, "zig": true, "nix": true,
}

// wrapperTools run the command given to them, so their name says nothing
// about what runs.
var wrapperTools = map[string]bool{
	"sudo": true, "doas": true, "su": true, "env": true, "xargs": true, "exec": true, "eval": true,
	"bash": true, "sh": true, "zsh": true, "dash": true, "fish": true, "ksh": true,
	"nohup": true, "time": true, "timeout": true, "nice": true, "ionice": true, "command": true,
	"builtin": true, "ssh": true, "watch": true, "parallel": true, "source": true, ".": true,
}

// ShellScopes lists what approving command for the session approves, one
// scope per part, without duplicates: "go test …" for a prefix, or the
// exact text of a part (no "…") when no prefix is safe.
func ShellScopes(command string) []string {
	command = strings.TrimSpace(command)
	if command == "" {
		return nil
	}
	if strings.ContainsAny(command, "`") || strings.Contains(command, "$(") ||
		strings.Contains(command, "<(") || strings.Contains(command, ">(") {
		return []string{command}
	}
	parts, ok := splitCommand(command)
	if !ok {
		return []string{command}
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		s := partScope(p)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// partScope is the scope of one simple command.
func partScope(part string) string {
	words := strings.Fields(part)
	first := words[0]
	switch {
	case strings.Contains(first, "=") || strings.HasPrefix(first, "{") || wrapperTools[first]:
		return part
	case subcommandTools[first] && len(words) > 1:
		if strings.HasPrefix(words[1], "-") {
			return part
		}
		return first + " " + words[1] + " …"
	}
	return first + " …"
}

// splitCommand cuts a command line into its simple commands at unquoted
// ;, &, |, && , || and newlines. It reports false for unbalanced quotes
// and subshells.
func splitCommand(s string) ([]string, bool) {
	var parts []string
	var cur strings.Builder
	flush := func() {
		if p := strings.TrimSpace(cur.String()); p != "" {
			parts = append(parts, p)
		}
		cur.Reset()
	}
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '(' || r == ')':
			return nil, false // a subshell: no prefix says what it runs
		case r == ';' || r == '&' || r == '|' || r == '\n':
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	if quote != 0 || escaped {
		return nil, false
	}
	flush()
	return parts, len(parts) > 0
}
