package tools

import (
	"context"
	"encoding/json"
	"strings"
)

// Set is an ordered collection of tools, looked up by name.
type Set struct {
	tools  []Tool
	byName map[string]Tool
}

// Spec is what the model is told about a tool (OpenAI function shape).
type Spec struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// NewSet builds a set; a later tool with the same name replaces an earlier one.
func NewSet(tools ...Tool) *Set {
	s := &Set{byName: map[string]Tool{}}
	for _, t := range tools {
		if _, dup := s.byName[t.Name()]; dup {
			for i, old := range s.tools {
				if old.Name() == t.Name() {
					s.tools[i] = t
				}
			}
		} else {
			s.tools = append(s.tools, t)
		}
		s.byName[t.Name()] = t
	}
	return s
}

// Default is all ten built-in tools.
func Default() *Set {
	return NewSet(
		&Shell{},
		&ReadFile{},
		&WriteFile{},
		&StrReplaceFile{},
		&Glob{},
		&Grep{},
		&ListDir{},
		&Think{},
		&SetTodoList{},
		&SendDMail{},
	)
}

// Get returns the tool called name.
func (s *Set) Get(name string) (Tool, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// Has reports whether the set holds a tool called name.
func (s *Set) Has(name string) bool {
	_, ok := s.byName[name]
	return ok
}

// All returns the tools in a stable order (the order they were added).
func (s *Set) All() []Tool {
	return append([]Tool(nil), s.tools...)
}

// Names returns the tool names in order.
func (s *Set) Names() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name()
	}
	return names
}

// Specs returns name, description and parameter schema of each tool, in order.
func (s *Set) Specs() []Spec {
	specs := make([]Spec, len(s.tools))
	for i, t := range s.tools {
		specs[i] = Spec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()}
	}
	return specs
}

// Without returns a copy of the set minus the named tools (e.g. SendDMail
// when the session cannot backtrack).
func (s *Set) Without(names ...string) *Set {
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	var kept []Tool
	for _, t := range s.tools {
		if !drop[t.Name()] {
			kept = append(kept, t)
		}
	}
	return NewSet(kept...)
}

// Call runs the named tool. An unknown name is a tool error listing the
// available tools; a panic inside a tool (a bug) is recovered into a tool
// error so one bad call never takes the process down.
func (s *Set) Call(ctx context.Context, env *Env, name string, args json.RawMessage) (res Result) {
	t, ok := s.byName[name]
	if !ok {
		return errorResult("unknown tool", "Tool %q does not exist. Available tools: %s.", name, strings.Join(s.Names(), ", "))
	}
	defer func() {
		if r := recover(); r != nil {
			res = errorResult("internal error", "Tool %s failed with an internal error: %v. Try another approach.", name, r)
		}
	}()
	return t.Call(ctx, envOrEmpty(env), args)
}
