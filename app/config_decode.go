package app

import (
	"bytes"
	"errors"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// A config file is checked against fileConfig itself: the keys it may set
// are the struct's tags (no list to keep in step), and what is wrong is
// found from the decoders' own values (toml.ParseError and MetaData, the
// yaml.Node tree with its lines), never by reading their error text.

// configKeys lists the top-level keys of a config file, for "unknown key".
func configKeys(tag string) string {
	t := reflect.TypeFor[fileConfig]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if k := tagName(t.Field(i), tag); k != "" {
			keys = append(keys, k)
		}
	}
	return strings.Join(keys, ", ")
}

func tagName(f reflect.StructField, tag string) string {
	name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
	if name == "-" {
		return ""
	}
	return name
}

// fieldOf is the field of struct value v whose tag names key.
func fieldOf(v reflect.Value, tag, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if tagName(t.Field(i), tag) == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// wrongType is the error of a value of key that field type t cannot take:
// what it wants, or for a table the decoder's own words on what inside it.
func wrongType(err error, path string, line int, key string, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if k := t.Kind(); k == reflect.Map || k == reflect.Struct {
		return userErrorf(err, "%s:%d: a value in %s has the wrong type: %s", path, line, key, oneLine(err.Error()))
	}
	return userErrorf(err, "%s:%d: %s wants %s", path, line, key, wantOf(t))
}

// wantOf says what a field takes, for a value of the wrong type.
func wantOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a table of keys"
	}
	return t.String()
}

func decodeTOML(path string, data []byte, fc *fileConfig) error {
	md, err := toml.Decode(string(data), fc)
	if err == nil {
		if undec := md.Undecoded(); len(undec) > 0 {
			k := undec[0]
			known := ""
			if len(k) == 1 {
				known = " (known: " + configKeys("toml") + ")"
			}
			return userErrorf(nil, "%s:%d: unknown key %q%s", path, lineOfKey(data, k[len(k)-1]), k.String(), known)
		}
		return nil
	}
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return userErrorf(err, "%s:%d: %s", path, pe.Position.Line, oneLine(pe.Message))
	}
	// A value of the wrong type: the key is the one that does not decode
	// on its own.
	var raw map[string]toml.Primitive
	if rmd, rerr := toml.Decode(string(data), &raw); rerr == nil {
		v := reflect.New(reflect.TypeFor[fileConfig]()).Elem()
		for _, k := range rmd.Keys() {
			if len(k) != 1 {
				continue
			}
			f, ok := fieldOf(v, "toml", k[0])
			if ok && rmd.PrimitiveDecode(raw[k[0]], f.Addr().Interface()) != nil {
				return wrongType(err, path, lineOfKey(data, k[0]), k[0], f.Type())
			}
		}
	}
	return userErrorf(err, "%s: %s", path, oneLine(err.Error()))
}

func decodeYAML(path string, data []byte, fc *fileConfig) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// go.yaml.in/yaml/v3 has no typed syntax error: its message names
		// the line, and is shown as it is.
		return userErrorf(err, "%s: %s", path, oneLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return userErrorf(nil, "%s:%d: want keys and values (model: NAME, …)", path, root.Line)
	}
	v := reflect.ValueOf(fc).Elem()
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, val := root.Content[i], root.Content[i+1]
		f, ok := fieldOf(v, "yaml", k.Value)
		if !ok {
			return userErrorf(nil, "%s:%d: unknown key %q (known: %s)", path, k.Line, k.Value, configKeys("yaml"))
		}
		if bad, line := unknownYAMLKey(val, f.Type(), k.Value); bad != "" {
			return userErrorf(nil, "%s:%d: unknown key %q", path, line, bad)
		}
		if err := val.Decode(f.Addr().Interface()); err != nil {
			return wrongType(err, path, val.Line, k.Value, f.Type())
		}
	}
	return nil
}

// unknownYAMLKey finds a key inside n that type t has no field for (its
// dotted name and line); "" when there is none.
func unknownYAMLKey(n *yaml.Node, t reflect.Type, name string) (string, int) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind != yaml.MappingNode {
		return "", 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		sub := name + "." + k.Value
		switch t.Kind() {
		case reflect.Map:
			if bad, line := unknownYAMLKey(val, t.Elem(), sub); bad != "" {
				return bad, line
			}
		case reflect.Struct:
			f, ok := fieldOf(reflect.New(t).Elem(), "yaml", k.Value)
			if !ok {
				return sub, k.Line
			}
			if bad, line := unknownYAMLKey(val, f.Type(), sub); bad != "" {
				return bad, line
			}
		}
	}
	return "", 0
}

// lineOfKey finds the first line that assigns key, for error messages.
func lineOfKey(data []byte, key string) int {
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, key) {
			rest := strings.TrimSpace(t[len(key):])
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "]") {
				return i + 1
			}
		}
		if strings.HasPrefix(t, "["+key+"]") || strings.HasPrefix(t, "[["+key+"]]") {
			return i + 1
		}
	}
	return 1
}
