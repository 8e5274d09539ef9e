package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rewind-agent/rewind/internal/words"
)

// Mistyped commands and flags get a "did you mean". Cobra suggests
// subcommands only when a command has no Args validator and never suggests
// flags, so both are done here.

// suggestDistance is the largest edit distance that still counts as a typo.
const suggestDistance = 2

// unknownCommand is the error for a stray word where a subcommand could go.
func unknownCommand(cmd *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, cmd.CommandPath())
	if s := cmd.SuggestionsFor(word); len(s) > 0 {
		msg += "; did you mean " + orList(quoteAll(s)) + "?"
	}
	return fmt.Errorf("%s", msg)
}

// unknownFlag rewrites pflag's "unknown flag: --jsn" with the command's
// flags that are close to it, or the commands that have that flag.
func unknownFlag(cmd *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return err
	}
	var near []string
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if words.Levenshtein([]rune(name), []rune(f.Name)) <= suggestDistance || (len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			near = append(near, "--"+f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	slices.Sort(near)
	near = slices.Compact(near)
	if owners := commandsWithFlag(cmd.Root(), name); len(owners) > 0 {
		return fmt.Errorf("`%s` has no flag --%s (it applies to %s)", cmd.CommandPath(), name, orList(owners))
	}
	if len(near) > 0 {
		return fmt.Errorf("unknown flag --%s for `%s`; did you mean %s?", name, cmd.CommandPath(), orList(near))
	}
	return fmt.Errorf("unknown flag --%s for `%s`", name, cmd.CommandPath())
}

// commandsWithFlag lists the commands (as `rewind x`) that define the flag.
func commandsWithFlag(root *cobra.Command, name string) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup(name) != nil {
			out = append(out, "`"+c.CommandPath()+"`")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}

// orList joins "a", "a or b", "a, b or c".
func orList(ss []string) string {
	if len(ss) <= 1 {
		return strings.Join(ss, "")
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " or " + ss[len(ss)-1]
}
