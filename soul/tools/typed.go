package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Args is a typed tool's argument struct: its one declaration of the call.
// The schema is jsonschema.For of the struct (the `json` tag names an
// argument, omitempty makes it optional, the `jsonschema` tag describes
// it); About adds the tool's name, description and what a Go type cannot
// say (defaults, minimums, enums), and Label names the call in one line.
type Args interface {
	About() About
	// Label is the call's one-line label for people: its key argument (the
	// path, command, pattern, url or query). The arguments it is called on
	// may be partial or fail the tool's checks.
	Label() string
}

// About is what a typed tool says about itself besides its arguments.
type About struct {
	Name        string
	Description string // sent to the model; embedded from the tool's .md file
	// ReadOnly: its calls neither write nor execute, so the soul may run
	// neighbouring ones in parallel (see ReadOnlyTool).
	ReadOnly bool
	// Params adds to the derived schema, by argument name; an array's item
	// field is named "todos[].status".
	Params map[string]Param
}

// Param is what the schema says about one argument beyond its type and
// description. A Default also fills the argument when it is absent or null.
type Param struct {
	Default          any
	Minimum, Maximum *int
	Enum             []string
}

// Min is a Param's Minimum (or Maximum).
func Min(n int) *int { return &n }

// Typed gives a tool whose arguments decode into A all of Tool but Call:
// Name, Description, Schema, ReadOnly and Label come from A, and Decode
// checks a call's arguments against the schema. A tool embeds it (the zero
// value is ready) and writes Call:
//
//	func (t *Think) Call(ctx context.Context, env *Env, args json.RawMessage) Result {
//		a, res, ok := t.Decode(args)
//		if !ok {
//			return res
//		}
//		…
//	}
type Typed[A Args] struct{}

func (Typed[A]) Name() string            { return about[A]().Name }
func (Typed[A]) Description() string     { return about[A]().Description }
func (Typed[A]) Schema() json.RawMessage { return schemaFor[A]().raw }
func (Typed[A]) ReadOnly() bool          { return about[A]().ReadOnly }

// Label is the one-line label of a call with args: A's Label of what
// decodes, "" when args are not a JSON object.
func (Typed[A]) Label(args json.RawMessage) string {
	var a A
	if json.Unmarshal(args, &a) != nil && !isObject(args) {
		return ""
	}
	return a.Label()
}

// Decode checks args against A's schema and decodes them, filling absent
// or null optional arguments with their defaults; unknown arguments are
// ignored (models add them; they do no harm). When ok is false, res is the
// tool error, naming the problem in words the model can act on.
func (t Typed[A]) Decode(args json.RawMessage) (a A, res Result, ok bool) {
	return DecodeAs[A](t.Name(), args)
}

// DecodeAs is Decode for a tool whose name is not A's (an alias, such as
// the Agent tool's Task): errors name the tool as the model called it.
func DecodeAs[A Args](tool string, args json.RawMessage) (a A, res Result, ok bool) {
	res, ok = decodeArgs(tool, args, schemaFor[A]().schema, &a)
	return a, res, ok
}

// SchemaWith is A's schema changed by adjust, for a tool whose schema
// depends on how it is set up (the Agent tool's types); adjust gets a
// schema of its own (derived anew: CloneSchemas shares slices with the
// cached one). What it adds is for the model only: Decode checks the schema
// A declares.
func (Typed[A]) SchemaWith(adjust func(*jsonschema.Schema)) json.RawMessage {
	s := deriveSchema[A]().schema
	adjust(s)
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: schema: %v", about[A]().Name, err))
	}
	return raw
}

func about[A Args]() About {
	var a A
	return a.About()
}

// typedSchema is a typed tool's schema, derived once per argument type.
type typedSchema struct {
	schema *jsonschema.Schema
	raw    json.RawMessage
}

var typedSchemas sync.Map // reflect.Type → *typedSchema

func schemaFor[A Args]() *typedSchema {
	t := reflect.TypeFor[A]()
	if s, ok := typedSchemas.Load(t); ok {
		return s.(*typedSchema)
	}
	s := deriveSchema[A]()
	actual, _ := typedSchemas.LoadOrStore(t, s)
	return actual.(*typedSchema)
}

// deriveSchema builds A's schema. A declaration jsonschema cannot read, or a
// Param naming no argument, is a bug in the tool: it panics on first use,
// so any test of the tool catches it (TestSchemasMatchGolden uses them all).
func deriveSchema[A Args]() *typedSchema {
	ab := about[A]()
	s, err := jsonschema.For[A](nil)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: %v", ab.Name, err))
	}
	loosen(s)
	for name, p := range ab.Params {
		prop := property(s, name)
		if prop == nil {
			panic(fmt.Sprintf("tools: %s: Params names no argument %q", ab.Name, name))
		}
		if p.Default != nil {
			prop.Default, err = json.Marshal(p.Default)
			if err != nil {
				panic(fmt.Sprintf("tools: %s: default of %q: %v", ab.Name, name, err))
			}
		}
		if p.Minimum != nil {
			prop.Minimum = jsonschema.Ptr(float64(*p.Minimum))
		}
		if p.Maximum != nil {
			prop.Maximum = jsonschema.Ptr(float64(*p.Maximum))
		}
		for _, e := range p.Enum {
			prop.Enum = append(prop.Enum, e)
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: schema: %v", ab.Name, err))
	}
	if len(s.Properties) == 0 {
		// Some servers refuse an object schema without "properties", which
		// jsonschema-go omits when empty.
		raw = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return &typedSchema{schema: s, raw: raw}
}

// loosen undoes two choices of jsonschema.For that the tools do not make:
// objects refuse unknown properties (models add some; the tools ignore
// them), and slices and pointers may be null (a null argument is an absent
// one, and a null list item is refused by the tool's own check).
func loosen(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Types, s.Type = nil, s.Types[1]
	}
	for _, p := range s.Properties {
		loosen(p)
	}
	loosen(s.Items)
}

// property finds an argument's schema by name ("todos[].status" for a
// field of an array's items); nil when there is none.
func property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	for part := range strings.SplitSeq(name, ".") {
		field, items := strings.CutSuffix(part, "[]")
		if s = s.Properties[field]; s == nil {
			return nil
		}
		if items {
			if s = s.Items; s == nil {
				return nil
			}
		}
	}
	return s
}

func isObject(args json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(args, &obj) == nil && obj != nil
}

// invalidArgs is the tool error for arguments that are malformed or fail a
// tool's own check; the text names the tool and says what to fix.
func invalidArgs(tool, format string, a ...any) Result {
	return errorResult("invalid arguments", "Invalid arguments for %s: %s", tool, fmt.Sprintf(format, a...))
}

// decodeArgs checks args against the top level of schema (required
// arguments, enums, minimums), fills defaults and decodes into dst; a
// problem is a tool error naming it.
func decodeArgs(tool string, args json.RawMessage, schema *jsonschema.Schema, dst any) (res Result, ok bool) {
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
	for _, name := range schema.PropertyOrder {
		p := schema.Properties[name]
		v, ok := obj[name]
		if !ok {
			if slices.Contains(schema.Required, name) {
				return fail("missing required argument %q (%s).", name, p.Type)
			}
			if p.Default != nil {
				obj[name] = p.Default
			}
			continue
		}
		if len(p.Enum) > 0 {
			var s string
			if json.Unmarshal(v, &s) == nil && !slices.Contains(p.Enum, any(s)) {
				return fail("argument %q must be one of %s, got %q.", name, quoteEnum(p.Enum), s)
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
	for _, name := range schema.PropertyOrder {
		p := schema.Properties[name]
		v, given := obj[name]
		var n float64
		if !given || json.Unmarshal(v, &n) != nil {
			continue
		}
		if p.Minimum != nil && n < *p.Minimum {
			return fail("argument %q must be at least %v, got %v.", name, *p.Minimum, n)
		}
		if p.Maximum != nil && n > *p.Maximum {
			return fail("argument %q must be at most %v, got %v.", name, *p.Maximum, n)
		}
	}
	return Result{}, true
}

// quoteEnum lists an enum's values as `"a", "b"`.
func quoteEnum(values []any) string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(out, ", ")
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
