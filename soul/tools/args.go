package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// param describes one argument, as read from a field of a tool's argument
// struct (see argsOf); the params drive both the JSON schema and the checks
// the arguments go through.
type param struct {
	Name        string
	Type        string // JSON schema type: string, integer, number, boolean, array, object
	Description string
	Required    bool
	Enum        []string
	Default     any
	Minimum     *int
	Items       map[string]any // schema of array items
}

// argSpec is a tool's arguments: the params and the schema built from them.
type argSpec struct {
	params []param
	schema json.RawMessage
}

// argsOf reads a tool's argument struct, its one declaration of arguments:
// the `json` tag names each argument (omitempty: optional), `desc` describes
// it, `enum` lists its allowed values (comma-separated), `default` is the
// value of an absent optional argument, `minimum` bounds an integer. Arrays
// of structs describe their items the same way. A malformed tag panics at
// package init, so a test of any tool catches it.
func argsOf(v any) argSpec {
	params := paramsOf(reflect.TypeOf(v))
	return argSpec{params: params, schema: schemaOf(params)}
}

func paramsOf(t reflect.Type) []param {
	var params []param
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			panic(fmt.Sprintf("tools: argument field %s.%s needs a json name", t, f.Name))
		}
		p := param{
			Name:        name,
			Type:        schemaType(f.Type),
			Description: f.Tag.Get("desc"),
			Required:    !slices.Contains(strings.Split(opts, ","), "omitempty"),
		}
		if e := f.Tag.Get("enum"); e != "" {
			p.Enum = strings.Split(e, ",")
		}
		if m := f.Tag.Get("minimum"); m != "" {
			n, err := strconv.Atoi(m)
			if err != nil {
				panic(fmt.Sprintf("tools: %s.%s: minimum %q: %v", t, f.Name, m, err))
			}
			p.Minimum = &n
		}
		if d, ok := f.Tag.Lookup("default"); ok {
			p.Default = parseDefault(t, f, d)
		}
		if f.Type.Kind() == reflect.Slice {
			p.Items = itemSchema(f.Type.Elem())
		}
		params = append(params, p)
	}
	return params
}

// schemaType names a Go type the way JSON schema does.
func schemaType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Slice:
		return "array"
	case reflect.Struct:
		return "object"
	}
	panic(fmt.Sprintf("tools: no schema type for %s", t))
}

func parseDefault(t reflect.Type, f reflect.StructField, d string) any {
	var v any
	var err error
	switch f.Type.Kind() {
	case reflect.String:
		v = d
	case reflect.Int, reflect.Int64:
		v, err = strconv.Atoi(d)
	case reflect.Bool:
		v, err = strconv.ParseBool(d)
	case reflect.Float64:
		v, err = strconv.ParseFloat(d, 64)
	default:
		err = errors.New("only scalars have defaults")
	}
	if err != nil {
		panic(fmt.Sprintf("tools: %s.%s: default %q: %v", t, f.Name, d, err))
	}
	return v
}

// itemSchema is the schema of an array's items.
func itemSchema(t reflect.Type) map[string]any {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return map[string]any{"type": schemaType(t)}
	}
	params := paramsOf(t)
	return map[string]any{"type": "object", "properties": propertiesOf(params), "required": requiredOf(params)}
}

func propertiesOf(params []param) map[string]any {
	props := map[string]any{}
	for _, p := range params {
		s := map[string]any{"type": p.Type}
		if p.Description != "" {
			s["description"] = p.Description
		}
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
	}
	return props
}

func requiredOf(params []param) []string {
	required := []string{}
	for _, p := range params {
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return required
}

// schemaOf builds the JSON schema object for params.
func schemaOf(params []param) json.RawMessage {
	b, err := json.Marshal(map[string]any{
		"type":       "object",
		"properties": propertiesOf(params),
		"required":   requiredOf(params),
	})
	if err != nil { // only strings, numbers and booleans; cannot happen
		panic(fmt.Sprintf("tools: schema: %v", err))
	}
	return b
}

// invalidArgs is the tool error for arguments that are malformed or fail a
// tool's own check; the text names the tool and says what to fix.
func invalidArgs(tool, format string, a ...any) Result {
	return errorResult("invalid arguments", "Invalid arguments for %s: %s", tool, fmt.Sprintf(format, a...))
}

// decodeArgs checks args against spec and decodes them into dst, filling
// absent optional arguments with their defaults. Null optional arguments
// get their default too; unknown
// arguments are ignored (models add them; they do no harm). When ok is
// false, res is the tool error, naming the problem in words the model can
// act on.
func decodeArgs(tool string, args json.RawMessage, spec argSpec, dst any) (res Result, ok bool) {
	params := spec.params
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
			if p.Default != nil {
				obj[p.Name], _ = json.Marshal(p.Default) // a scalar: cannot fail
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
