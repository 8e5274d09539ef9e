package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/rewind-agent/rewind/internal/childproc"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/soul/shellenv"
)

//go:embed shell.md
var shellDescription string

// Shell limits.
const (
	shellDefaultTimeout = 60
	shellMaxTimeout     = 600
	shellDefaultOutput  = 40 << 10
	// shellDrainGrace is how long to wait for the output pipe to close once
	// the shell has exited (background jobs may keep it open).
	shellDrainGrace = 2 * time.Second
	// shellKillGrace is the time between SIGTERM and SIGKILL.
	shellKillGrace = 1 * time.Second
)

// shellArgs are Shell's arguments.
type shellArgs struct {
	Command string `json:"command" jsonschema:"The shell command to run (bash -c)."`
	// The bound in the description is shellMaxTimeout (TestArgDescriptionsMatchConstants).
	Timeout int `json:"timeout,omitempty" jsonschema:"Seconds before the command is killed (at most 600)."`
}

func (shellArgs) About() About {
	return About{Name: "Shell", Description: shellDescription, Params: map[string]Param{
		"timeout": {Default: shellDefaultTimeout, Minimum: Min(1)},
	}}
}

func (a shellArgs) Label() string { return a.Command }

// Shell runs a command with bash -c in the work dir.
type Shell struct {
	Typed[shellArgs]
	// MaxOutput caps the output returned to the model (head and tail are
	// kept); 0 means 40 KB. Live output through Env.Output is not capped.
	MaxOutput int
	// Environ is the commands' environment. nil means
	// shellenv.Environ(shellenv.Policy{}): rewind's environment without its
	// API keys and without variables named like *KEY*, *SECRET*, *TOKEN* or
	// *PASSWORD*, so that a command such as env cannot copy a secret into
	// the transcript.
	Environ []string
	// killGrace and drainGrace, when set, replace shellKillGrace and
	// shellDrainGrace (tests that wait them out shorten them).
	killGrace, drainGrace time.Duration
}

// graces are the waits after SIGTERM and after the shell's exit.
func (t *Shell) graces() (kill, drain time.Duration) {
	kill, drain = shellKillGrace, shellDrainGrace
	if t.killGrace > 0 {
		kill = t.killGrace
	}
	if t.drainGrace > 0 {
		drain = t.drainGrace
	}
	return kill, drain
}

func (t *Shell) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
	env = envOrEmpty(env)
	a, res, ok := t.Decode(args)
	if !ok {
		return res
	}
	if strings.TrimSpace(a.Command) == "" {
		return invalidArgs(t.Name(), "the command is empty.")
	}
	if a.Timeout > shellMaxTimeout {
		return invalidArgs(t.Name(), "timeout %d is too long; the maximum is %d seconds. Run long jobs in the background with their output redirected to a file.", a.Timeout, shellMaxTimeout)
	}
	wd, err := workDir(env)
	if err != nil {
		return errorResult("bad work dir", "%v", err)
	}
	if info, err := os.Stat(wd); err != nil || !info.IsDir() {
		return errorResult("bad work dir", "The work dir %s is not an accessible directory.", wd)
	}
	if res, ok := approve(ctx, env, Approval{
		Tool:        t.Name(),
		Action:      ActionRunShell,
		Description: "Run: " + words.Clip(firstLine(a.Command), 100),
		Command:     a.Command,
		Scopes:      ShellScopes(a.Command),
	}); !ok {
		return res
	}
	if ctx.Err() != nil {
		return errorResult("interrupted", "The command was interrupted before it started.")
	}

	var after func(context.Context) ([]NotKeptFile, error)
	if env.Files != nil {
		if after, err = env.Files.AroundShell(ctx); err != nil {
			return errorResult("checkpoint failed", "The command was not run: scanning the work dir for the file checkpoint failed: %v.", err)
		}
	}
	r := t.run(ctx, env, wd, a.Command, time.Duration(a.Timeout)*time.Second)
	res = r.result(a.Timeout)
	if after != nil {
		// Record changes even when the call was interrupted or timed out.
		notKept, err := after(context.WithoutCancel(ctx))
		if err != nil {
			res.Output += fmt.Sprintf("\n[Recording file changes for the checkpoint failed: %v]", err)
		}
		res.Output += NotKeptNote(notKept)
	}
	return res
}

// shellRun is the outcome of running a command.
type shellRun struct {
	out        *capture
	exitCode   int
	signal     string
	timedOut   bool
	cancelled  bool
	leftBehind bool // background processes kept the output open
	startErr   error
}

// shellGate is what the Shell tool's process runs first, in sh ($0 the
// shell's name, $1 the command, $2 the shell's path): it waits for a line
// on fd 3, which rewind writes once the command's process group is
// tracked (trackGroup, which tells childproc's watchdog), then becomes
// `SHELL -c COMMAND` (the same pid and group, $0 the shell's name, no
// positional parameters, no fd 3). A command started free ran before its
// group was watched, and a kill -9 of rewind in between left what it had
// started in the background running for good (only the shell got the
// parent-death signal). At EOF, no line, it runs nothing. sh, not bash: a
// bash's start costs twice a dash's, and bash would read $BASH_ENV twice.
const shellGate = `IFS= read -r _ <&3 || exit 1; exec 3<&-; exec "$2" -c "$1" "$0"`

// shellStarted, when set (tests), is called with the command's process
// group between its start and its tracking: it holds that step.
var shellStarted func(pgid int)

func (t *Shell) run(ctx context.Context, env *Env, wd, command string, timeout time.Duration) shellRun {
	limit := t.MaxOutput
	if limit <= 0 {
		limit = shellDefaultOutput
	}
	r := shellRun{out: newCapture(limit)}
	killGrace, drainGrace := t.graces()

	shell := "bash"
	path, err := exec.LookPath(shell)
	if err != nil {
		shell = "sh"
		path = shell
	}
	// The command waits at a gate until its group is tracked (and so
	// watched): see shellGate.
	cmd := exec.Command("sh", "-c", shellGate, shell, command, path)
	cmd.Dir = wd
	environ := t.Environ
	if environ == nil {
		environ = shellenv.Environ(shellenv.Policy{})
	}
	cmd.Env = append(slices.Clip(environ), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "TERM=dumb")
	// Its own group, dying with rewind (childproc).
	cmd.SysProcAttr = childproc.Attr()
	pr, pw, err := os.Pipe()
	if err != nil {
		r.startErr = err
		return r
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	gateR, gateW, err := os.Pipe()
	if err != nil {
		pw.Close()
		r.startErr = err
		return r
	}
	defer gateW.Close() // a gate never opened ends the shell at EOF, running nothing
	cmd.ExtraFiles = []*os.File{gateR}
	err = childproc.Start(cmd)
	gateR.Close()
	if err != nil {
		pw.Close()
		r.startErr = err
		return r
	}
	pw.Close()
	pgid := cmd.Process.Pid
	if shellStarted != nil {
		shellStarted(pgid)
	}
	untrack, ok := trackGroup(pgid)
	if ok {
		_, _ = gateW.Write([]byte("\n")) // tracked: the command may run
	} else { // rewind is ending: the command must not outlive it
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		untrack = func() {}
	}
	defer untrack()

	readDone := make(chan struct{})
	go func() { // owner: this call; ends at EOF or when the read deadline passes
		defer close(readDone)
		r.out.stream(pr, env.Output)
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	// waited: waitDone was received. cmd's exit state is read only then,
	// since the goroutine in Wait writes it.
	waited := false
	select {
	case waitErr = <-waitDone:
		waited = true
	case <-timer.C:
		r.timedOut = true
	case <-ctx.Done():
		r.cancelled = true
	}
	if r.timedOut || r.cancelled {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case waitErr = <-waitDone:
			waited = true
		case <-time.After(killGrace):
		}
		// Children may ignore SIGTERM or outlive the shell: kill the group.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if !waited {
			waitErr = <-waitDone
		}
	}
	select {
	case <-readDone:
	case <-time.After(drainGrace):
		r.leftBehind = true
		_ = pr.SetReadDeadline(time.Now())
		<-readDone
	}

	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		r.startErr = waitErr
	}
	if st := cmd.ProcessState; st != nil {
		r.exitCode = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = ws.Signal().String()
		}
	}
	return r
}

func (r shellRun) result(timeout int) Result {
	if r.startErr != nil && r.out.total == 0 {
		return errorResult("failed to start", "The command could not be run: %v.", r.startErr)
	}
	var b strings.Builder
	text := r.out.String()
	if text == "" {
		b.WriteString("(no output)")
	} else {
		b.WriteString(strings.TrimRight(text, "\n"))
	}
	b.WriteString("\n\n")
	size := HumanBytes(r.out.total)
	var brief string
	isErr := true
	switch {
	case r.timedOut && r.leftBehind:
		fmt.Fprintf(&b, "[Command timed out after %ds. Its process group was killed, but a process it started outside that group (setsid, nohup in a new session, a daemon) is still running and holding its output; it was not killed.]", timeout)
		brief = fmt.Sprintf("timed out after %ds · %s", timeout, size)
	case r.timedOut:
		fmt.Fprintf(&b, "[Command timed out after %ds and was killed, with every process in its process group (processes started with setsid or as daemons leave the group and are not killed). Use a longer timeout or run it in the background with output redirected to a file.]", timeout)
		brief = fmt.Sprintf("timed out after %ds · %s", timeout, size)
	case r.cancelled:
		b.WriteString("[Command interrupted by the user and killed.]")
		brief = "interrupted · " + size
	case r.signal != "":
		fmt.Fprintf(&b, "[Command killed by signal %s.]", r.signal)
		brief = "killed (" + r.signal + ") · " + size
	default:
		fmt.Fprintf(&b, "[Exit code: %d]", r.exitCode)
		brief = fmt.Sprintf("exit %d · %s", r.exitCode, size)
		isErr = r.exitCode != 0
	}
	if r.leftBehind && !r.timedOut {
		b.WriteString("\n[Background processes are still running and holding the output open; their further output is not captured.]")
	}
	return Result{Output: b.String(), IsError: isErr, Brief: brief}
}

// capture keeps the head and the tail of a stream up to a byte limit and
// forwards it live in UTF-8-safe chunks.
type capture struct {
	headMax, tailMax int
	head, tail       []byte
	total            int64
}

func newCapture(limit int) *capture {
	return &capture{headMax: limit / 2, tailMax: limit - limit/2}
}

func (c *capture) write(p []byte) {
	c.total += int64(len(p))
	if room := c.headMax - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 {
		return
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.tailMax+4096 {
		c.tail = append(c.tail[:0:0], c.tail[len(c.tail)-c.tailMax:]...)
	}
}

// stream copies r into c and to out (when non-nil) until EOF or an error,
// never splitting a UTF-8 sequence between two calls of out.
func (c *capture) stream(r io.Reader, out func(string)) {
	buf := make([]byte, 8192)
	var pending []byte
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.write(buf[:n])
			if out != nil {
				data := append(pending, buf[:n]...)
				cut := completeUTF8(data)
				if cut > 0 {
					out(string(data[:cut]))
				}
				pending = append(pending[:0:0], data[cut:]...)
			}
		}
		if err != nil {
			if out != nil && len(pending) > 0 {
				out(strings.ToValidUTF8(string(pending), "\uFFFD"))
			}
			return
		}
	}
}

// CapOutput caps text the way Shell caps its output: at most limit bytes
// (0 means Shell's 40 KB) keeping the head and the tail, with a marker
// saying how much was elided between them. Tools with large results (MCP
// tools) use it so the model sees every tool's output the same way.
func CapOutput(text string, limit int) string {
	if limit <= 0 {
		limit = shellDefaultOutput
	}
	c := newCapture(limit)
	c.write([]byte(text))
	return c.String()
}

// completeUTF8 is the length of data without a trailing incomplete rune.
func completeUTF8(data []byte) int {
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if utf8.FullRune(data[i:]) {
				return len(data)
			}
			return i
		}
	}
	return len(data)
}

// String is the captured output, with a marker where bytes were elided.
func (c *capture) String() string {
	tail := c.tail
	if len(tail) > c.tailMax {
		tail = tail[len(tail)-c.tailMax:]
	}
	elided := c.total - int64(len(c.head)) - int64(len(tail))
	if elided <= 0 {
		return strings.ToValidUTF8(string(c.head)+string(tail), "\uFFFD")
	}
	head := string(c.head[:completeUTF8(c.head)])
	t := string(tail)
	for k := 0; k < utf8.UTFMax && t != "" && !utf8.RuneStart(t[0]); k++ {
		t = t[1:]
	}
	return strings.ToValidUTF8(head, "\uFFFD") +
		fmt.Sprintf("\n\n… %d bytes elided …\n\n", elided) +
		strings.ToValidUTF8(t, "\uFFFD")
}
