package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// param describes one argument. A tool's params are the single source of
// both its JSON schema and the checks its arguments go through.
type param struct {
	Name        string
	Type        string // JSON schema type: string, integer, boolean, array
	Description string
	Required    bool
	Enum        []string
	Default     any
	Minimum     *int
	Items       map[string]any // schema of array items
}

func minimum(n int) *int { return &n }

// schemaOf builds the JSON schema object for params.
func schemaOf(params []param) json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, p := range params {
		s := map[string]any{"type": p.Type, "description": p.Description}
		if len(p.Enum) > 0 {
			s["enum"] = p.Enum
		}
		if p.Default != nil {
			s["default"] = p.Default
		}
		if p.Minimum != nil {
			s["minimum"] = *p.Minimum
		}
		if p.Items != nil {
			s["items"] = p.Items
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b, err := json.Marshal(map[string]any{
		"type":       "object",
		"properties": props,
		"required":   required,
	})
	if err != nil { // only literals above; cannot happen
		return json.RawMessage(`{"type":"object","properties":{},"required":[]}`)
	}
	return b
}

// invalidArgs is the tool error for arguments that are malformed or fail a
// tool's own check; the text names the tool and says what to fix.
func invalidArgs(tool, format string, a ...any) Result {
	return errorResult("invalid arguments", "Invalid arguments for %s: %s", tool, fmt.Sprintf(format, a...))
}

// decodeArgs checks args against params and decodes them into dst, which
// holds the defaults. Null optional arguments keep their default; unknown
// arguments are ignored (models add them; they do no harm). When ok is
// false, res is the tool error, naming the problem in words the model can
// act on.
func decodeArgs(tool string, args json.RawMessage, params []param, dst any) (res Result, ok bool) {
	fail := func(format string, a ...any) (Result, bool) {
		return invalidArgs(tool, format, a...), false
	}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return fail("the arguments must be a JSON object, got %s.", typeErr.Value)
		}
		return fail("the arguments are not valid JSON (%v). Send a JSON object matching the schema.", err)
	}
	for k, v := range obj {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(obj, k)
		}
	}
	for _, p := range params {
		v, ok := obj[p.Name]
		if !ok {
			if p.Required {
				return fail("missing required argument %q (%s).", p.Name, p.Type)
			}
			continue
		}
		if len(p.Enum) > 0 {
			var s string
			if json.Unmarshal(v, &s) == nil && !slices.Contains(p.Enum, s) {
				return fail("argument %q must be one of %s, got %q.", p.Name, strings.Join(quoteAll(p.Enum), ", "), s)
			}
		}
	}
	clean, err := json.Marshal(obj)
	if err != nil {
		return fail("%v", err)
	}
	if err := json.Unmarshal(clean, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			field := typeErr.Field
			if field == "" {
				field = "?"
			}
			return fail("argument %q must be %s, got %s.", field, jsonKind(typeErr.Type), typeErr.Value)
		}
		return fail("%v", err)
	}
	for _, p := range params {
		if p.Minimum == nil {
			continue
		}
		if _, ok := obj[p.Name]; !ok {
			continue
		}
		var n float64
		if json.Unmarshal(obj[p.Name], &n) == nil && n < float64(*p.Minimum) {
			return fail("argument %q must be at least %d, got %v.", p.Name, *p.Minimum, n)
		}
	}
	return Result{}, true
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// jsonKind names a Go type the way JSON schema does.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value of another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a " + t.Kind().String()
}
