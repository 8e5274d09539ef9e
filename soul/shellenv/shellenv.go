package shellenv

import (
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
)

// Inherit values: which variables of rewind's environment start the child's.
const (
	InheritAll  = "all"  // everything (minus the excludes)
	InheritCore = "core" // only CoreVars
	InheritNone = "none" // nothing; only Set
)

// CoreVars are the variables kept by InheritCore (codex's "core" set).
var CoreVars = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL", "LC_CTYPE", "TZ"}

// DefaultExclude are the patterns dropped unless IgnoreDefaultExcludes is set.
var DefaultExclude = []string{"*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*"}

// SecretVars are rewind's own key variables: never passed on, whatever the
// policy says.
var SecretVars = []string{"OPENAI_API_KEY", "KIMI_API_KEY"}

// Policy says which variables a child process gets. The zero Policy inherits
// everything except DefaultExclude and the secrets.
type Policy struct {
	// Inherit is InheritAll (the default when empty), InheritCore or InheritNone.
	Inherit string
	// IgnoreDefaultExcludes keeps variables matching DefaultExclude.
	IgnoreDefaultExcludes bool
	// Exclude are more patterns to drop, matched case-insensitively against
	// the name with path.Match syntax (*, ?, [...]).
	Exclude []string
	// IncludeOnly, when not empty, keeps only names matching one of its
	// patterns (applied after Exclude).
	IncludeOnly []string
	// Set adds or overrides variables after filtering. A Set variable that
	// is a secret is still dropped.
	Set map[string]string
	// SecretNames are more variables never to pass on (e.g. a configured
	// api_key_env), on top of SecretVars.
	SecretNames []string
	// SecretValues are values never to pass on: a variable whose value
	// contains one is dropped, whatever its name (the key from config.toml
	// may also sit in some other variable).
	SecretValues []string
}

// Validate reports a bad Inherit value or a malformed pattern.
func (p Policy) Validate() error {
	switch p.Inherit {
	case "", InheritAll, InheritCore, InheritNone:
	default:
		return fmt.Errorf("inherit must be %q, %q or %q, got %q", InheritAll, InheritCore, InheritNone, p.Inherit)
	}
	for _, pat := range append(append([]string(nil), p.Exclude...), p.IncludeOnly...) {
		if _, err := path.Match(strings.ToUpper(pat), ""); err != nil {
			return fmt.Errorf("bad pattern %q: %v", pat, err)
		}
	}
	return nil
}

// Environ is the environment for a child process under p, built from the
// current process's environment, sorted by name.
func Environ(p Policy) []string {
	return Filter(os.Environ(), p)
}

// Filter applies p to environ (KEY=VALUE entries) and returns the result
// sorted by name.
func Filter(environ []string, p Policy) []string {
	vars := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if p.inherits(name) {
			vars[name] = value
		}
	}
	for name, value := range p.Set {
		vars[name] = value
	}
	out := make([]string, 0, len(vars))
	for name, value := range vars {
		if p.secret(name, value) {
			continue
		}
		out = append(out, name+"="+value)
	}
	sort.Strings(out)
	return out
}

func (p Policy) inherits(name string) bool {
	switch p.Inherit {
	case InheritNone:
		return false
	case InheritCore:
		if !slices.Contains(CoreVars, name) {
			return false
		}
	}
	if !p.IgnoreDefaultExcludes && matchAny(DefaultExclude, name) {
		return false
	}
	if matchAny(p.Exclude, name) {
		return false
	}
	if len(p.IncludeOnly) > 0 && !matchAny(p.IncludeOnly, name) {
		return false
	}
	return true
}

// IsSecret reports whether a variable is one rewind never passes on: one of
// its key variables, or one whose value contains a key. MCP's ${VAR}
// expansion asks it too, so no file can route the key around the filter.
func (p Policy) IsSecret(name, value string) bool { return p.secret(name, value) }

func (p Policy) secret(name, value string) bool {
	if slices.Contains(SecretVars, name) || slices.Contains(p.SecretNames, name) {
		return true
	}
	for _, s := range p.SecretValues {
		if s != "" && strings.Contains(value, s) {
			return true
		}
	}
	return false
}

// matchAny matches name against glob patterns, ignoring case.
func matchAny(patterns []string, name string) bool {
	upper := strings.ToUpper(name)
	for _, pat := range patterns {
		if ok, _ := path.Match(strings.ToUpper(pat), upper); ok {
			return true
		}
	}
	return false
}
