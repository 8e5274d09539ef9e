package tools

import (
	"context"
	"encoding/json"
	"strings"
)

// Set is an ordered collection of tools, looked up by name. Besides its
// fixed tools it may draw on a source of tools that come and go while a
// session runs (MCP servers start in the background, restart, crash): every
// method sees the source's tools of that moment after the fixed ones.
type Set struct {
	tools  []Tool
	byName map[string]Tool
	source func() []Tool // nil: none; must be safe for concurrent calls
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

// Default is the built-in tools every session is offered (SearchWeb is
// offered only with a search provider configured).
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
		&FetchURL{},
		&EnterPlanMode{},
		&ExitPlanMode{},
	)
}

// WithSource returns a copy of the set that also offers the tools source
// returns at the time of each lookup. A source tool named like a fixed tool
// is ignored, so a source can never shadow a built-in.
func (s *Set) WithSource(source func() []Tool) *Set {
	c := NewSet(s.tools...)
	c.source = source
	return c
}

// dynamic is the source's tools of the moment, minus those shadowed by a
// fixed tool or an earlier source tool of the same name.
func (s *Set) dynamic() []Tool {
	if s.source == nil {
		return nil
	}
	var out []Tool
	seen := map[string]bool{}
	for _, t := range s.source() {
		if _, fixed := s.byName[t.Name()]; fixed || seen[t.Name()] {
			continue
		}
		seen[t.Name()] = true
		out = append(out, t)
	}
	return out
}

// Get returns the tool called name.
func (s *Set) Get(name string) (Tool, bool) {
	if t, ok := s.byName[name]; ok {
		return t, true
	}
	for _, t := range s.dynamic() {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// Has reports whether the set holds a tool called name.
func (s *Set) Has(name string) bool {
	_, ok := s.Get(name)
	return ok
}

// All returns the tools in a stable order (the order they were added, then
// the source's).
func (s *Set) All() []Tool {
	return append(append([]Tool(nil), s.tools...), s.dynamic()...)
}

// Names returns the tool names in order.
func (s *Set) Names() []string {
	all := s.All()
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name()
	}
	return names
}

// Specs returns name, description and parameter schema of each tool, in order.
func (s *Set) Specs() []Spec {
	all := s.All()
	specs := make([]Spec, len(all))
	for i, t := range all {
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
	c := NewSet(kept...)
	if s.source != nil {
		c.source = func() []Tool {
			var keep []Tool
			for _, t := range s.source() {
				if !drop[t.Name()] {
					keep = append(keep, t)
				}
			}
			return keep
		}
	}
	return c
}

// Call runs the named tool. An unknown name is a tool error listing the
// available tools; a panic inside a tool (a bug) is recovered into a tool
// error so one bad call never takes the process down.
func (s *Set) Call(ctx context.Context, env *Env, name string, args json.RawMessage) (res Result) {
	t, ok := s.Get(name)
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

// Only returns a copy of the set holding the tools keep accepts, fixed and
// from the source alike (an agent file's exact tool set).
func (s *Set) Only(keep func(name string) bool) *Set {
	var kept []Tool
	for _, t := range s.tools {
		if keep(t.Name()) {
			kept = append(kept, t)
		}
	}
	c := NewSet(kept...)
	if s.source != nil {
		c.source = func() []Tool {
			var out []Tool
			for _, t := range s.source() {
				if keep(t.Name()) {
					out = append(out, t)
				}
			}
			return out
		}
	}
	return c
}
