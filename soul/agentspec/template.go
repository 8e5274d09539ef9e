package agentspec

import (
	"fmt"
	"regexp"
	"strings"
)

// A system prompt is a template in kimi-cli's dialect of Jinja (variables
// written ${NAME}, undefined ones an error). rewind understands the part
// kimi-cli's own prompts use: ${NAME}, and {% if %} / {% elif %} /
// {% else %} / {% endif %} on a variable, its negation (not NAME) or a
// comparison with a quoted text (NAME == "text", NAME != "text"), with
// Jinja's trim_blocks and lstrip_blocks on (as kimi-cli renders) and the
// -/+ whitespace marks. Anything else is an error naming the line, at load
// time, so a prompt never fails to render once the agent has started.

// node is one piece of a parsed template.
type node interface {
	render(vars map[string]string, b *strings.Builder)
}

type textNode string

func (t textNode) render(_ map[string]string, b *strings.Builder) { b.WriteString(string(t)) }

type varNode string

func (v varNode) render(vars map[string]string, b *strings.Builder) { b.WriteString(vars[string(v)]) }

type cond struct {
	name   string
	op     string // "", "not", "==", "!="
	value  string
	body   []node
	isElse bool
}

type ifNode []cond

func (n ifNode) render(vars map[string]string, b *strings.Builder) {
	for _, c := range n {
		if c.holds(vars) {
			for _, x := range c.body {
				x.render(vars, b)
			}
			return
		}
	}
}

func (c cond) holds(vars map[string]string) bool {
	v := vars[c.name]
	switch {
	case c.isElse:
		return true
	case c.op == "not":
		return v == ""
	case c.op == "==":
		return v == c.value
	case c.op == "!=":
		return v != c.value
	}
	return v != ""
}

// template is a parsed system prompt.
type template struct {
	nodes []node
	// uses holds each variable the template reads, with the line of its
	// first use (1-based).
	uses map[string]int
}

func (t *template) render(vars map[string]string) string {
	var b strings.Builder
	for _, n := range t.nodes {
		n.render(vars, &b)
	}
	return b.String()
}

// templateError is a parse failure at a line of the template.
type templateError struct {
	line int
	msg  string
}

func (e *templateError) Error() string { return e.msg }

var (
	// tagRe finds ${...} and {% ... %} (with Jinja's -/+ marks).
	tagRe  = regexp.MustCompile(`\$\{([^}]*)\}|\{%([-+]?)(.*?)([-+]?)%\}`)
	nameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	condRe = regexp.MustCompile(`^(not\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:(==|!=)\s*("[^"]*"|'[^']*'))?$`)
)

// parseTemplate parses src; errors are *templateError.
func parseTemplate(src string) (*template, error) {
	t := &template{uses: map[string]int{}}
	// stack of open if-blocks; the top's last cond receives the nodes.
	type frame struct {
		n    ifNode
		line int
	}
	var stack []*frame
	var out []node
	appendNode := func(n node) {
		if len(stack) == 0 {
			out = append(out, n)
			return
		}
		top := stack[len(stack)-1]
		last := &top.n[len(top.n)-1]
		last.body = append(last.body, n)
	}
	lineAt := func(off int) int { return 1 + strings.Count(src[:off], "\n") }
	use := func(name string, off int) {
		if _, seen := t.uses[name]; !seen {
			t.uses[name] = lineAt(off)
		}
	}
	pos := 0
	trimNextNewline, stripNextSpace := false, false
	var pending string // text not yet emitted: a tag may strip its end
	flush := func() {
		if pending != "" {
			appendNode(textNode(pending))
			pending = ""
		}
	}
	for _, m := range tagRe.FindAllStringSubmatchIndex(src, -1) {
		text := src[pos:m[0]]
		if stripNextSpace {
			text = strings.TrimLeft(text, " \t\r\n")
		} else if trimNextNewline {
			text = strings.TrimPrefix(text, "\n")
		}
		stripNextSpace, trimNextNewline = false, false
		pending += text
		pos = m[1]
		if m[2] >= 0 { // ${...}
			name := strings.TrimSpace(src[m[2]:m[3]])
			if !nameRe.MatchString(name) {
				return nil, &templateError{lineAt(m[0]), fmt.Sprintf("${%s} is not a variable rewind can fill: only ${NAME} is supported (no filters or expressions)", name)}
			}
			use(name, m[0])
			flush()
			appendNode(varNode(name))
			continue
		}
		left, body, right := src[m[4]:m[5]], strings.TrimSpace(src[m[6]:m[7]]), src[m[8]:m[9]]
		switch left {
		case "-":
			pending = strings.TrimRight(pending, " \t\r\n")
		case "+":
		default: // lstrip_blocks: a tag alone at the start of a line drops the indent
			j := m[0]
			for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t') {
				j--
			}
			if (j == 0 || src[j-1] == '\n') && strings.HasSuffix(pending, src[j:m[0]]) {
				pending = pending[:len(pending)-(m[0]-j)]
			}
		}
		switch right {
		case "-":
			stripNextSpace = true
		case "+":
		default:
			trimNextNewline = true
		}
		flush()
		line := lineAt(m[0])
		word, rest, _ := strings.Cut(body, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "if", "elif":
			cm := condRe.FindStringSubmatch(rest)
			if cm == nil {
				return nil, &templateError{line, fmt.Sprintf("{%% %s %%} is not a condition rewind understands: write {%% if NAME %%}, {%% if not NAME %%} or {%% if NAME == \"text\" %%}", body)}
			}
			c := cond{name: cm[2]}
			switch {
			case cm[1] != "":
				c.op = "not"
			case cm[3] != "":
				c.op, c.value = cm[3], cm[4][1:len(cm[4])-1]
			}
			use(c.name, m[0])
			if word == "if" {
				stack = append(stack, &frame{n: ifNode{c}, line: line})
				continue
			}
			if len(stack) == 0 || stack[len(stack)-1].n[len(stack[len(stack)-1].n)-1].isElse {
				return nil, &templateError{line, "{% elif %} without an open {% if %}"}
			}
			top := stack[len(stack)-1]
			top.n = append(top.n, c)
		case "else":
			if len(stack) == 0 || stack[len(stack)-1].n[len(stack[len(stack)-1].n)-1].isElse {
				return nil, &templateError{line, "{% else %} without an open {% if %}"}
			}
			top := stack[len(stack)-1]
			top.n = append(top.n, cond{isElse: true})
		case "endif":
			if len(stack) == 0 {
				return nil, &templateError{line, "{% endif %} without an open {% if %}"}
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			appendNode(top.n)
		default:
			return nil, &templateError{line, fmt.Sprintf("{%% %s %%} is a template tag rewind does not support: only if, elif, else and endif are", body)}
		}
	}
	text := src[pos:]
	if stripNextSpace {
		text = strings.TrimLeft(text, " \t\r\n")
	} else if trimNextNewline {
		text = strings.TrimPrefix(text, "\n")
	}
	pending += text
	flush()
	if len(stack) > 0 {
		return nil, &templateError{stack[len(stack)-1].line, "{% if %} is never closed: add {% endif %}"}
	}
	t.nodes = out
	return t, nil
}
