package tools

import (
	"slices"
	"strings"
)

// "Approve for session" on a Shell call covers the command's prefixes, not
// every later command: `go test ./...` approves `go test …`, `sed -n …`
// approves `sed …`. A command made of several parts (`a && b | c`) has one
// scope per part and runs without asking only when each part's scope was
// approved (Claude Code's rule per subcommand). The rule:
//   - the first word, or the first two for tools whose second word is a
//     subcommand (go, git, npm, cargo, …; see subcommandTools);
//   - the exact text, when a prefix would approve too much: wrappers that
//     run another command (sudo, env, xargs, bash -c, …), a subcommand tool
//     followed by a flag (`git -C dir …`), leading VAR=value assignments,
//     and any command with command substitution or a subshell;
//   - the exact text for a destructive part (see destructive): `a` on
//     `rm -f gone.txt && echo ok` approves that rm and `echo …`, never
//     `rm …`.

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
	if !ok || slices.ContainsFunc(parts, compound) {
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

// shellKeywords open or continue a compound command: a part starting with
// one is not a command of its own ("do rm -rf $f" runs rm).
var shellKeywords = map[string]bool{
	"for": true, "while": true, "until": true, "select": true, "do": true, "done": true,
	"if": true, "then": true, "elif": true, "else": true, "fi": true, "case": true, "esac": true,
	"function": true, "{": true, "}": true, "!": true, "[[": true, "]]": true, "coproc": true,
}

// compound reports whether a part belongs to a compound command.
func compound(part string) bool {
	words := strings.Fields(part)
	return len(words) > 0 && (shellKeywords[words[0]] || strings.HasPrefix(words[0], "{") || strings.HasPrefix(words[0], "}"))
}

// partScope is the scope of one simple command.
func partScope(part string) string {
	words := strings.Fields(part)
	first := words[0]
	switch {
	case strings.Contains(first, "=") || strings.HasPrefix(first, "{") || wrapperTools[first]:
		return part
	case destructive(words) || writesToFile(part):
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
	subshell := false
	balanced := shellRunes(s, func(rs []rune, i int, bare bool) bool {
		r := rs[i]
		switch {
		case !bare:
		case r == '(' || r == ')':
			subshell = true // no prefix says what it runs
			return false
		case r == '&' && ((i > 0 && rs[i-1] == '>') || (i+1 < len(rs) && rs[i+1] == '>')):
			// a redirection (2>&1, &> f), not a separator
		case r == ';' || r == '&' || r == '|' || r == '\n':
			flush()
			return true
		}
		cur.WriteRune(r)
		return true
	})
	if subshell || !balanced {
		return nil, false
	}
	flush()
	return parts, len(parts) > 0
}

// shellRunes walks s as the shell reads its quotes and escapes: visit sees
// each rune and whether it is bare (outside quotes, not escaped, not a
// quote itself: where ; | & > ( mean something), and stops the walk by
// returning false. It reports whether the quotes and escapes balance.
func shellRunes(s string, visit func(rs []rune, i int, bare bool) bool) bool {
	var quote rune
	escaped := false
	rs := []rune(s)
	for i, r := range rs {
		bare := false
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
		default:
			bare = true
		}
		if !visit(rs, i, bare) {
			break
		}
	}
	return quote == 0 && !escaped
}

// destructiveTools delete, overwrite, move or take away files, processes
// or permissions: no prefix of theirs is ever approved for the session,
// only the exact command the user saw.
var destructiveTools = map[string]bool{
	"rm": true, "rmdir": true, "unlink": true, "shred": true, "truncate": true, "mv": true,
	"dd": true, "tee": true, "ln": true, "install": true, "mkfs": true, "fdisk": true,
	"sfdisk": true, "parted": true, "wipefs": true, "mkswap": true, "mount": true, "umount": true,
	"chmod": true, "chown": true, "chgrp": true, "chattr": true, "setfacl": true,
	"kill": true, "killall": true, "pkill": true, "shutdown": true, "reboot": true,
	"halt": true, "poweroff": true, "crontab": true, "useradd": true, "userdel": true,
	"usermod": true, "passwd": true, "iptables": true, "nft": true,
}

// destructiveSubcommands are the subcommands of subcommandTools that throw
// work away or change what others see (a push, a publish, a delete).
var destructiveSubcommands = map[string]map[string]bool{
	"git": {"reset": true, "clean": true, "push": true, "checkout": true, "restore": true,
		"switch": true, "rm": true, "mv": true, "rebase": true, "branch": true, "tag": true,
		"stash": true, "filter-branch": true, "filter-repo": true, "reflog": true, "gc": true,
		"prune": true, "update-ref": true, "worktree": true, "submodule": true, "config": true},
	"docker":    {"rm": true, "rmi": true, "kill": true, "system": true, "volume": true, "image": true, "container": true, "network": true, "prune": true, "push": true},
	"podman":    {"rm": true, "rmi": true, "kill": true, "system": true, "volume": true, "image": true, "container": true, "network": true, "prune": true, "push": true},
	"kubectl":   {"delete": true, "drain": true, "replace": true, "scale": true, "apply": true, "patch": true, "edit": true},
	"helm":      {"uninstall": true, "delete": true, "upgrade": true, "install": true, "rollback": true},
	"terraform": {"apply": true, "destroy": true, "import": true, "state": true, "taint": true},
	"npm":       {"publish": true, "unpublish": true, "uninstall": true, "deprecate": true},
	"pnpm":      {"publish": true, "remove": true},
	"yarn":      {"publish": true, "remove": true},
	"bun":       {"publish": true, "remove": true},
	"cargo":     {"publish": true, "yank": true, "uninstall": true},
	"gh":        {"repo": true, "release": true, "secret": true, "api": true},
	"systemctl": {"stop": true, "disable": true, "mask": true, "kill": true, "poweroff": true, "reboot": true, "halt": true},
	"apt":       {"remove": true, "purge": true, "autoremove": true},
	"apt-get":   {"remove": true, "purge": true, "autoremove": true},
	"brew":      {"uninstall": true, "remove": true, "cleanup": true},
	"pip":       {"uninstall": true},
	"pip3":      {"uninstall": true},
	"uv":        {"pip": true},
	"nix":       {"store": true},
}

// destructive reports whether the simple command of words is destructive:
// a destructive tool or subcommand, or a harmless tool given the flag that
// makes it write in place or delete (sed -i, find -delete, rsync --delete).
func destructive(words []string) bool {
	first := words[0]
	if destructiveTools[first] || strings.HasPrefix(first, "mkfs.") {
		return true
	}
	if subs := destructiveSubcommands[first]; subs != nil && len(words) > 1 && subs[words[1]] {
		return true
	}
	for _, w := range words[1:] {
		switch first {
		case "sed", "perl", "ruby":
			if w == "--in-place" || strings.HasPrefix(w, "--in-place=") ||
				(strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsRune(w, 'i')) {
				return true
			}
		case "find":
			switch w {
			case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
				return true
			}
		case "rsync":
			if strings.HasPrefix(w, "--delete") || w == "--remove-source-files" {
				return true
			}
		case "curl", "wget":
			// A download written to a file overwrites it; piped to a
			// shell it runs (the shell part asks on its own).
			if w == "-o" || w == "-O" || strings.HasPrefix(w, "--output") || strings.HasPrefix(w, "--remote-name") {
				return true
			}
		}
	}
	return false
}

// writesToFile reports whether a simple command redirects its output into
// a file (`> f`, `>> f`, `&> f`, `>| f`), which replaces or grows the file
// whatever the command is. Duplicating a descriptor (`2>&1`, `>&2`) and
// /dev/null write nothing.
func writesToFile(part string) bool {
	writes := false
	shellRunes(part, func(rs []rune, i int, bare bool) bool {
		if !bare || rs[i] != '>' {
			return true
		}
		rest := strings.TrimLeft(string(rs[i+1:]), ">|")
		if strings.HasPrefix(rest, "&") && !strings.HasPrefix(rest, "&>") {
			return true // >&2: a descriptor
		}
		if target := strings.Fields(strings.TrimLeft(rest, "&")); len(target) > 0 && target[0] == "/dev/null" {
			return true
		}
		writes = true
		return false
	})
	return writes
}
