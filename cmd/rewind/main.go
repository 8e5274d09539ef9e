package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rewind-agent/rewind/app"
	"github.com/rewind-agent/rewind/internal/words"
)

func main() {
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr, getenv: os.Getenv}))
}

// stdio is what a run reads and writes besides its arguments: the
// process's streams, environment and directory (tests pass their own and
// call run in the test process).
type stdio struct {
	in       io.Reader
	out, err io.Writer
	getenv   func(string) string
	// dir is the work dir when --work-dir is not given; "" is the
	// process's current directory.
	dir string
}

func run(args []string, sio stdio) (code int) {
	defer func() {
		// A bug must still end in one line, never a stack trace.
		if r := recover(); r != nil {
			fmt.Fprintf(sio.err, "rewind: internal error: %v (please report it)\n", r)
			code = app.ExitError
		}
	}()
	ctx, stop := app.SignalContext(context.Background())
	defer stop()

	cli := newCLI(sio)
	cli.root.SetArgs(args)
	err := cli.root.ExecuteContext(ctx)
	if err == nil {
		return app.ExitOK
	}
	if !cli.started {
		// Cobra failed before any subcommand ran: flags, arguments, unknown
		// command. All of those are usage errors.
		err = app.Usage(err)
	}
	fmt.Fprintln(sio.err, app.ErrorLine(err))
	return app.ExitCode(err)
}

type cli struct {
	root    *cobra.Command
	rt      *app.Runtime
	sio     stdio
	started bool

	// common flags
	home, workDir, model, baseURL, theme     string
	yolo, noStream, allowRemote              bool
	thinking, noThinking                     bool
	maxSteps, maxContextSize, reservedTokens int
	mcpConfigFiles                           []string
	agent, agentFile                         string
	plan                                     bool
}

// action wraps a subcommand body: it marks that the command line parsed, and
// builds the runtime from the flags actually given.
func (c *cli) action(body func(ctx context.Context, cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c.started = true
		c.rt = &app.Runtime{Stdin: c.sio.in, Stdout: c.sio.out, Stderr: c.sio.err, Getenv: c.sio.getenv, Flags: c.overrides(cmd)}
		return body(cmd.Context(), cmd, args)
	}
}

func (c *cli) overrides(cmd *cobra.Command) app.Overrides {
	f := cmd.Flags()
	return app.Overrides{
		Home:                given(f, "home", &c.home),
		WorkDir:             cmp.Or(given(f, "work-dir", &c.workDir), c.sioDir()),
		Model:               given(f, "model", &c.model),
		BaseURL:             given(f, "base-url", &c.baseURL),
		Theme:               given(f, "theme", &c.theme),
		Yolo:                given(f, "yolo", &c.yolo),
		NoStream:            given(f, "no-stream", &c.noStream),
		MaxSteps:            given(f, "max-steps", &c.maxSteps),
		MaxContextSize:      given(f, "max-context-size", &c.maxContextSize),
		ReservedTokens:      given(f, "reserved-tokens", &c.reservedTokens),
		MCPConfigFiles:      c.mcpConfigFiles,
		AllowRemoteApproval: given(f, "allow-remote-approval", &c.allowRemote),
		Thinking:            c.thinkingOverride(f),
		Agent:               given(f, "agent", &c.agent),
		AgentFile:           given(f, "agent-file", &c.agentFile),
		Plan:                given(f, "plan", &c.plan),
	}
}

// sioDir is the run's directory when one was given, nil otherwise.
func (c *cli) sioDir() *string {
	if c.sio.dir == "" {
		return nil
	}
	return &c.sio.dir
}

// thinkingOverride is --thinking (true), --no-thinking (false) or nil.
func (c *cli) thinkingOverride(f interface{ Changed(string) bool }) *bool {
	switch {
	case f.Changed("no-thinking"):
		off := !c.noThinking
		return &off
	case f.Changed("thinking"):
		return &c.thinking
	}
	return nil
}

// given returns v when the flag name was on the command line, nil otherwise
// (f is the command's *pflag.FlagSet).
func given[T any](f interface{ Changed(string) bool }, name string, v *T) *T {
	if f.Changed(name) {
		return v
	}
	return nil
}

// usageArgs turns an argument-count error into a usage error that shows the
// command's synopsis and points at its help.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			if cmd.HasParent() {
				return app.UsageIn(cmd.CommandPath(), fmt.Errorf("%v; usage: %s", err, cmd.UseLine()))
			}
			return app.Usage(err)
		}
		return nil
	}
}

// nArgs accepts from min to max arguments and says so in words (cobra's
// own message is "accepts 2 arg(s), received 1").
func nArgs(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= min && len(args) <= max {
			return nil
		}
		want := fmt.Sprintf("%d %s", max, words.Plural(max, "argument", "arguments"))
		switch {
		case min == 0 && max > 0:
			want = "at most " + want
		case min != max:
			want = fmt.Sprintf("%d to %d arguments", min, max)
		}
		return fmt.Errorf("`%s` takes %s, got %d", cmd.CommandPath(), want, len(args))
	}
}

// flagError phrases a bad flag value without the parser's internals:
// pflag says `invalid argument "x" for "--max-steps" flag: strconv.ParseInt:
// parsing "x": invalid syntax`.
func flagError(err error) error {
	var ne *strconv.NumError
	if !errors.As(err, &ne) {
		return err
	}
	msg := err.Error()
	if i := strings.Index(msg, ": strconv."); i > 0 {
		msg = msg[:i]
	}
	want := "want a whole number"
	switch {
	case ne.Func == "ParseBool":
		want = "want true or false"
	case errors.Is(ne.Err, strconv.ErrRange):
		want = "the number is too large"
	}
	return fmt.Errorf("%s: %s", msg, want)
}

// intArgs checks the count and that the arguments at the given positions are
// non-negative integers.
func intArgs(n int, names map[int]string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := usageArgs(nArgs(n, n))(cmd, args); err != nil {
			return err
		}
		for i, name := range names {
			if v, err := strconv.Atoi(args[i]); err != nil || v < 0 {
				return app.UsageIn(cmd.CommandPath(), fmt.Errorf("%s must be a non-negative number, got %q; usage: %s", name, args[i], cmd.UseLine()))
			}
		}
		return nil
	}
}

// The common flags, in groups, each bound to the cli's fields (a flag given
// to any command lands in the same place).

func (c *cli) workDirFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.workDir, "work-dir", "", "directory the agent works in (default: the current directory)")
}

// modelFlags: which model to talk to, and how.
func (c *cli) modelFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.model, "model", "", "model name (overrides REWIND_MODEL and the config file)")
	f.StringVar(&c.baseURL, "base-url", "", "OpenAI-compatible API base URL (overrides OPENAI_BASE_URL)")
	f.BoolVar(&c.noStream, "no-stream", false, "do not stream model responses")
	c.thinkingFlags(cmd)
	f.IntVar(&c.maxContextSize, "max-context-size", app.DefaultMaxContextSize, "model context window in tokens")
	f.IntVar(&c.reservedTokens, "reserved-tokens", app.DefaultReservedTokens, "tokens kept free for the answer; compaction starts before the rest fills up")
}

// watchFlags: the model a watcher forks or continues a session with
// (/fork, /continue); the writer's own flags (--yolo, --max-steps,
// --no-stream, --allow-remote-approval) are not a watcher's.
func (c *cli) watchFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.model, "model", "", "model to fork or continue the session with (overrides REWIND_MODEL and the config file)")
	f.StringVar(&c.baseURL, "base-url", "", "OpenAI-compatible API base URL (overrides OPENAI_BASE_URL)")
	f.IntVar(&c.maxContextSize, "max-context-size", app.DefaultMaxContextSize, "model context window in tokens")
}

// agentFlags: how the agent runs prompts.
func (c *cli) agentFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&c.yolo, "yolo", false, "approve every tool call without asking")
	f.BoolVar(&c.allowRemote, "allow-remote-approval", false, "let watchers of this run (rewind watch, same user) answer its approval requests")
	f.IntVar(&c.maxSteps, "max-steps", app.DefaultMaxStepsPerRun, "maximum agent steps per prompt")
	c.agentFileFlags(cmd)
	f.BoolVar(&c.plan, "plan", false, "start in plan mode: only read-only tools run until you approve the model's plan")
}

// agentFileFlags: which agent file (prompt and tools) runs.
func (c *cli) agentFileFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.agent, "agent", "", "run the built-in agent NAME (default, okabe, coder, explore, plan; rewind agents lists them)")
	f.StringVar(&c.agentFile, "agent-file", "", "run the agent of a kimi-cli agent file (YAML: prompt, tools, sub-agents)")
	cmd.MarkFlagsMutuallyExclusive("agent", "agent-file")
}

// thinkingFlags: --thinking / --no-thinking, as kimi-cli.
func (c *cli) thinkingFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&c.thinking, "thinking", false, "ask the model to think (the config's thinking effort, else high)")
	f.BoolVar(&c.noThinking, "no-thinking", false, "do not ask the model to think")
	cmd.MarkFlagsMutuallyExclusive("thinking", "no-thinking")
}

func (c *cli) themeFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.theme, "theme", "", "colour theme of the workspace (dark, light, high-contrast or a user theme)")
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func newCLI(sio stdio) *cli {
	c := &cli{sio: sio}
	var (
		prompt, output, session string
		cont                    bool
	)
	root := &cobra.Command{
		Use:   "rewind",
		Short: "A terminal coding agent whose history is never lost",
		Long: "rewind is a terminal coding agent. Every message, checkpoint and token count goes to a\n" +
			"SQLite database; reverting, compacting and backtracking keep the replaced context as an\n" +
			"archived generation you can browse and restore.",
		Example: "  rewind                      open the workspace in the current directory\n" +
			"  rewind -p \"fix the tests\"   run one prompt headlessly\n" +
			"  rewind sessions             list sessions\n" +
			"  rewind revert ID 3          go back to checkpoint 3",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return app.Usage(unknownCommand(cmd, args[0]))
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: c.action(func(ctx context.Context, cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			if f.Changed("output") && !f.Changed("prompt") {
				return app.Usage(fmt.Errorf("--output needs -p PROMPT"))
			}
			if cont && session != "" {
				return app.Usage(fmt.Errorf("--continue and --session cannot be used together"))
			}
			if f.Changed("prompt") {
				return app.Print(ctx, c.rt, app.PrintOptions{Prompt: prompt, Output: output, SessionID: session, Continue: cont})
			}
			opts := app.TUIOptions{Mode: app.TUINew, Runtime: c.rt}
			switch {
			case cont:
				opts.Mode = app.TUIContinue
			case session != "":
				opts.Mode, opts.SessionID = app.TUIResume, session
			}
			return app.RunTUI(ctx, opts)
		}),
	}
	root.SetIn(sio.in)
	root.SetOut(sio.out)
	root.SetErr(sio.err)
	root.Version = versionString()
	root.SetVersionTemplate("rewind {{.Version}}\n")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SuggestionsMinimumDistance = suggestDistance
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return app.UsageIn(cmd.CommandPath(), unknownFlag(cmd, flagError(err)))
	})

	// Only --home applies to every command; the other common flags go on
	// the commands that use them, so each help lists what it reads.
	root.PersistentFlags().StringVar(&c.home, "home", "", "rewind's data directory (default $REWIND_HOME or ~/.rewind)")
	c.workDirFlag(root)
	c.modelFlags(root)
	c.agentFlags(root)
	c.themeFlag(root)
	root.Flags().StringArrayVar(&c.mcpConfigFiles, "mcp-config-file", nil, "read MCP servers from FILE too (repeatable; after $REWIND_HOME/mcp.json and .rewind/mcp.json)")

	f := root.Flags()
	f.StringVarP(&prompt, "prompt", "p", "", "run PROMPT headlessly, print the answer and exit (\"-\" reads it from stdin)")
	f.StringVar(&output, "output", "text", "print mode output: text (the final answer) or jsonl (every event)")
	f.BoolVarP(&cont, "continue", "c", false, "resume the newest session of the work dir")
	f.StringVar(&session, "session", "", "resume (or, with -p, continue) the session with this id")

	var asJSON bool
	sessions := &cobra.Command{
		Use:   "sessions",
		Short: "List sessions, newest first",
		Args:  usageArgs(cobra.NoArgs),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, _ []string) error {
			return app.Sessions(ctx, c.rt, asJSON)
		}),
	}
	sessions.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	var runsJSON bool
	runs := &cobra.Command{
		Use:   "runs",
		Short: "List the sessions live rewind processes are writing on this machine, with what each run is doing",
		Args:  usageArgs(cobra.NoArgs),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, _ []string) error {
			return app.Runs(ctx, c.rt, runsJSON)
		}),
	}
	runs.Flags().BoolVar(&runsJSON, "json", false, "print JSON")

	var showJSON bool
	var showGen int
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Print a generation's view of a session (the current one by default)",
		Args:  usageArgs(nArgs(1, 1)),
		RunE: c.action(func(ctx context.Context, cmd *cobra.Command, args []string) error {
			return app.Show(ctx, c.rt, args[0], given(cmd.Flags(), "generation", &showGen), showJSON)
		}),
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print JSON")
	show.Flags().IntVar(&showGen, "generation", 0, "show this generation instead of the current one")

	var gensJSON bool
	gens := &cobra.Command{
		Use:   "generations ID",
		Short: "List a session's generations with cause, parent and state",
		Args:  usageArgs(nArgs(1, 1)),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, args []string) error {
			return app.Generations(ctx, c.rt, args[0], gensJSON)
		}),
	}
	gens.Flags().BoolVar(&gensJSON, "json", false, "print JSON")

	var revFiles app.FileOptions
	revert := &cobra.Command{
		Use:   "revert ID CHECKPOINT",
		Short: "Revert a session to just before a checkpoint (the old context is archived)",
		Args:  intArgs(2, map[int]string{1: "CHECKPOINT"}),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, args []string) error {
			return app.Revert(ctx, c.rt, args[0], atoi(args[1]), revFiles)
		}),
	}
	fileFlags(revert.Flags(), &revFiles, fileFlagHelp{
		files:     "also move the work dir's files back",
		filesOnly: "move only the files back, keep the conversation",
		force:     "overwrite files changed by someone else since the agent touched them",
		dryRun:    "print what would be archived and which files would change; change nothing",
		diff:      "with --dry-run and a files flag: print the unified diff of every file",
	})

	var fa app.ForkArgs
	var forkGen, forkCP int
	fork := &cobra.Command{
		Use:   "fork ID",
		Short: "Fork a session into a new one (the current generation's whole view by default); prints the new session's id",
		Long: `Fork a session into a new session you can write to, as the workspace's
fork does: the source is unchanged and no record is copied. --generation
forks an archived generation, --checkpoint the conversation before that
checkpoint. stdout gets the new session's id (--json: the new session as
rewind sessions --json prints it); stderr says the work dir it belongs to.
A session another rewind process is writing can be forked.`,
		Args: usageArgs(nArgs(1, 1)),
		RunE: c.action(func(ctx context.Context, cmd *cobra.Command, args []string) error {
			fa.SessionID = args[0]
			fa.Generation = given(cmd.Flags(), "generation", &forkGen)
			fa.Checkpoint = given(cmd.Flags(), "checkpoint", &forkCP)
			return app.Fork(ctx, c.rt, fa)
		}),
	}
	fork.Flags().IntVar(&forkGen, "generation", 0, "fork this generation instead of the current one")
	fork.Flags().IntVar(&forkCP, "checkpoint", 0, "fork the conversation before this checkpoint instead of the whole view")
	fork.Flags().BoolVar(&fa.JSON, "json", false, "print the new session as JSON (the shape of rewind sessions --json)")

	var resFiles app.FileOptions
	restore := &cobra.Command{
		Use:   "restore ID GEN",
		Short: "Make an archived generation current again (as a new generation)",
		Args:  intArgs(2, map[int]string{1: "GEN"}),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, args []string) error {
			return app.Restore(ctx, c.rt, args[0], atoi(args[1]), resFiles)
		}),
	}
	fileFlags(restore.Flags(), &resFiles, fileFlagHelp{
		files:     "also move the work dir's files to that generation's state",
		filesOnly: "move only the files to that generation's state, keep the conversation",
		force:     "overwrite files changed by someone else since the agent touched them",
		dryRun:    "print what would be restored and which files would change; change nothing",
		diff:      "with --dry-run --files: print the unified diff of every file",
	})

	var undoFiles app.FileOptions
	undo := &cobra.Command{
		Use:   "undo ID",
		Short: "Undo the last revert, restore or D-Mail: conversation and files go back (undo again to redo)",
		Args:  usageArgs(nArgs(1, 1)),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, args []string) error {
			return app.Undo(ctx, c.rt, args[0], undoFiles)
		}),
	}
	fileFlags(undo.Flags(), &undoFiles, fileFlagHelp{
		filesOnly: "bring back only the files, keep the conversation",
		force:     "overwrite files changed by someone else since the rewind",
		dryRun:    "print what would come back; change nothing",
		diff:      "with --dry-run: print the unified diff of every file",
	})

	compact := &cobra.Command{
		Use:   "compact ID",
		Short: "Compact a session's context with the configured model (the original is archived)",
		Args:  usageArgs(nArgs(1, 1)),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, args []string) error {
			return app.Compact(ctx, c.rt, args[0])
		}),
	}

	var expGen int
	var expOut string
	var expForce bool
	var expDir string
	export := &cobra.Command{
		Use:   "export ID",
		Short: "Write a generation as kimi-cli context.jsonl (stdout, or -o FILE), or every generation as a kimi-cli session dir (--session-dir DIR)",
		Args:  usageArgs(nArgs(1, 1)),
		RunE: c.action(func(ctx context.Context, cmd *cobra.Command, args []string) error {
			if expDir != "" {
				return app.ExportSessionDir(ctx, c.rt, args[0], expDir)
			}
			return app.Export(ctx, c.rt, args[0], given(cmd.Flags(), "generation", &expGen), expOut, expForce)
		}),
	}
	export.Flags().StringVar(&expDir, "session-dir", "", "write every generation into DIR as a kimi-cli session: archived ones as context_1.jsonl… oldest first, the current one as context.jsonl (files there are never replaced)")
	export.Flags().IntVar(&expGen, "generation", 0, "export this generation instead of the current one")
	export.Flags().StringVarP(&expOut, "output", "o", "", "write to FILE instead of stdout (an existing file is kept unless --force)")
	export.Flags().BoolVar(&expForce, "force", false, "replace an existing -o FILE")
	export.MarkFlagsMutuallyExclusive("session-dir", "output")
	export.MarkFlagsMutuallyExclusive("session-dir", "generation")

	var skipInvalid, follow bool
	imp := &cobra.Command{
		Use:   "import [PATH]",
		Short: "Import kimi-cli, codex or Claude Code history: a session file, a session dir, or a whole home (~/.kimi, ~/.codex, ~/.claude); with no PATH, every home found; prints the ids of the sessions imported or updated",
		Args:  usageArgs(nArgs(0, 1)),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, args []string) error {
			path := ""
			if len(args) > 0 {
				path = args[0]
			}
			if follow {
				if path == "" {
					return app.Usage(fmt.Errorf("--follow needs the session file to follow"))
				}
				return app.ImportFollow(ctx, c.rt, path)
			}
			return app.Import(ctx, c.rt, path, skipInvalid)
		}),
	}
	imp.Flags().BoolVar(&follow, "follow", false, "keep importing a codex rollout or Claude Code session file as it grows, until it is idle and its writer gone (`rewind watch ID` shows it live)")
	imp.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "skip malformed lines (each reported) instead of stopping at the first")

	var sa app.SearchArgs
	search := &cobra.Command{
		Use:   "search QUERY",
		Short: "Full-text search of every session's messages, newest first (word* for a prefix, \"a phrase\", OR)",
		Long: `Full-text search of every session's messages, newest first.

Every word must match; word* is a prefix, "a phrase" matches the words in
order, OR between two terms matches either. As in the workspace's search,
the last word is a prefix too ("rewind search buil" finds "build"), unless
it is quoted; a last word of one letter is left out. Snippets mark the
matches with « ».`,
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("`%s` needs a QUERY", cmd.CommandPath())
			}
			return nil
		}),
		RunE: c.action(func(ctx context.Context, cmd *cobra.Command, args []string) error {
			sa.Query = strings.Join(args, " ")
			return app.Search(ctx, c.rt, sa)
		}),
	}
	search.Flags().BoolVar(&sa.JSON, "json", false, "print JSON: [{session_id, title, work_dir, gen, seq, role, snippet, created_at, also_in}]")
	search.Flags().IntVar(&sa.Limit, "limit", 50, "at most N hits (1 or more)")
	search.Flags().StringVar(&sa.SessionID, "session", "", "only this session (with what it shares with its fork source)")
	search.Flags().StringVar(&sa.WorkDir, "work-dir", "", "only sessions of this work dir")

	var watchFollow string
	watch := &cobra.Command{
		Use:   "watch [ID]",
		Short: "Follow a running session live, read-only (newest live session by default); --follow FILE follows a codex or Claude Code run",
		Args:  usageArgs(nArgs(0, 1)),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, args []string) error {
			if watchFollow != "" {
				if len(args) > 0 {
					return app.Usage(fmt.Errorf("pass a session ID or --follow FILE, not both"))
				}
				return app.WatchFollow(ctx, c.rt, watchFollow)
			}
			opts := app.TUIOptions{Mode: app.TUIWatch, Runtime: c.rt}
			if len(args) == 1 {
				opts.SessionID = args[0]
			}
			return app.RunTUI(ctx, opts)
		}),
	}
	watch.Flags().StringVar(&watchFollow, "follow", "", "follow a codex rollout or Claude Code session `FILE` as it grows (imported into a session) and watch it")

	demo := &cobra.Command{
		Use:   "demo",
		Short: "The workspace with a built-in scripted model, labelled as a demo; needs no key",
		Args:  usageArgs(cobra.NoArgs),
		RunE: c.action(func(ctx context.Context, _ *cobra.Command, _ []string) error {
			return app.RunTUI(ctx, app.TUIOptions{Mode: app.TUIDemo, Runtime: c.rt})
		}),
	}

	mcpCmd := &cobra.Command{
		Use:   "mcp",
		Short: "Trust or untrust the work dir's .rewind/mcp.json (its MCP servers start only once trusted)",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return app.UsageIn(cmd.CommandPath(), fmt.Errorf("`%s` needs a subcommand: trust or untrust", cmd.CommandPath()))
		},
	}
	mcpTrust := &cobra.Command{
		Use:   "trust",
		Short: "Show the servers of the work dir's .rewind/mcp.json and let them start (until the file changes)",
		Args:  usageArgs(cobra.NoArgs),
		RunE: c.action(func(context.Context, *cobra.Command, []string) error {
			return app.MCPTrust(c.rt)
		}),
	}
	mcpUntrust := &cobra.Command{
		Use:   "untrust",
		Short: "Stop trusting the work dir's .rewind/mcp.json: its servers no longer start",
		Args:  usageArgs(cobra.NoArgs),
		RunE: c.action(func(context.Context, *cobra.Command, []string) error {
			return app.MCPUntrust(c.rt)
		}),
	}
	c.workDirFlag(mcpTrust)
	c.workDirFlag(mcpUntrust)
	mcpCmd.AddCommand(mcpTrust, mcpUntrust)

	c.modelFlags(compact)
	c.workDirFlag(imp)
	imp.Flags().Lookup("work-dir").Usage = "work dir of the sessions whose own is unknown (no kimi.json names it; default: the current directory)"
	c.watchFlags(watch)
	c.themeFlag(watch)
	c.themeFlag(demo)
	c.thinkingFlags(demo)
	demo.Flags().BoolVar(&c.yolo, "yolo", false, "approve every tool call without asking")
	demo.Flags().BoolVar(&c.allowRemote, "allow-remote-approval", false, "let watchers of the demo's run (rewind watch, same user) answer its approval requests")

	agents := &cobra.Command{
		Use:   "agents",
		Short: "List the agents (built-in and the work dir's or config's agent file) with their tools",
		Args:  usageArgs(cobra.NoArgs),
		RunE: c.action(func(context.Context, *cobra.Command, []string) error {
			return app.Agents(c.rt)
		}),
	}
	c.workDirFlag(agents)
	c.agentFileFlags(agents)

	root.AddCommand(sessions, runs, show, gens, revert, restore, undo, fork, compact, export, imp, search, watch, demo, mcpCmd, agents)
	for _, sub := range append(root.Commands(), mcpCmd.Commands()...) {
		sub.SilenceUsage, sub.SilenceErrors = true, true
	}
	c.root = root
	return c
}

// fileFlagHelp is the help of the file flags revert, restore and undo share;
// a flag with no help is not offered (undo always brings the files back).
type fileFlagHelp struct{ files, filesOnly, force, dryRun, diff string }

func fileFlags(fs *pflag.FlagSet, o *app.FileOptions, h fileFlagHelp) {
	if h.files != "" {
		fs.BoolVar(&o.Files, "files", false, h.files)
	}
	fs.BoolVar(&o.FilesOnly, "files-only", false, h.filesOnly)
	fs.BoolVar(&o.Force, "force", false, h.force)
	fs.BoolVar(&o.DryRun, "dry-run", false, h.dryRun)
	fs.BoolVar(&o.Diffs, "diff", false, h.diff)
}
