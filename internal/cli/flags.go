package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/spf13/pflag"
)

// inputFlags binds one flag per JSON field of an operation's input struct;
// flag names are the kebab-case of the JSON names (primary_key → --primary-key).
// Values are collected into a JSON object so that the CLI goes through the
// same validation and decoding as the MCP server.
type inputFlags struct {
	fields []flagField
}

type flagField struct {
	json string
	flag string
	kind reflect.Kind
	elem reflect.Kind
}

func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, true
}

func bindInputFlags(fs *pflag.FlagSet, t reflect.Type) *inputFlags {
	in := &inputFlags{}
	if t.Kind() != reflect.Struct {
		return in
	}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
				walk(f.Type)
				continue
			}
			name, ok := jsonName(f)
			if !ok {
				continue
			}
			flag := strings.ReplaceAll(name, "_", "-")
			if fs.Lookup(flag) != nil {
				continue // a global flag of the same name wins (e.g. --select)
			}
			usage := f.Tag.Get("jsonschema")
			ff := flagField{json: name, flag: flag, kind: f.Type.Kind()}
			switch f.Type.Kind() {
			case reflect.String:
				fs.String(flag, "", usage)
			case reflect.Bool:
				fs.Bool(flag, false, usage)
			case reflect.Int, reflect.Int64, reflect.Int32:
				fs.Int64(flag, 0, usage)
			case reflect.Float64, reflect.Float32:
				fs.Float64(flag, 0, usage)
			case reflect.Slice:
				if f.Type == reflect.TypeFor[json.RawMessage]() {
					ff.kind = reflect.Map
					fs.String(flag, "", usage+" (JSON)")
					break
				}
				ff.elem = f.Type.Elem().Kind()
				if ff.elem == reflect.String {
					fs.StringSlice(flag, nil, usage+" (comma-separated or repeated)")
				} else {
					fs.String(flag, "", usage+" (JSON array)")
				}
			case reflect.Pointer:
				ff.kind = f.Type.Elem().Kind()
				switch ff.kind {
				case reflect.Bool:
					fs.Bool(flag, false, usage)
				case reflect.Int, reflect.Int64:
					fs.Int64(flag, 0, usage)
				case reflect.Float64:
					fs.Float64(flag, 0, usage)
				case reflect.String:
					fs.String(flag, "", usage)
				default:
					ff.kind = reflect.Map
					fs.String(flag, "", usage+" (JSON)")
				}
			default:
				ff.kind = reflect.Map
				fs.String(flag, "", usage+" (JSON)")
			}
			in.fields = append(in.fields, ff)
		}
	}
	walk(t)
	return in
}

// args builds the JSON arguments from the flags the user set.
func (in *inputFlags) args(fs *pflag.FlagSet) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range in.fields {
		fl := fs.Lookup(f.flag)
		if fl == nil || !fl.Changed {
			continue
		}
		switch f.kind {
		case reflect.String:
			out[f.json], _ = fs.GetString(f.flag)
		case reflect.Bool:
			out[f.json], _ = fs.GetBool(f.flag)
		case reflect.Int, reflect.Int64, reflect.Int32:
			out[f.json], _ = fs.GetInt64(f.flag)
		case reflect.Float64, reflect.Float32:
			out[f.json], _ = fs.GetFloat64(f.flag)
		case reflect.Slice:
			if f.elem == reflect.String {
				out[f.json], _ = fs.GetStringSlice(f.flag)
				continue
			}
			fallthrough
		default:
			s, _ := fs.GetString(f.flag)
			var v any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				return nil, fmt.Errorf("--%s must be JSON: %w", f.flag, err)
			}
			out[f.json] = v
		}
	}
	return out, nil
}

func (in *inputFlags) field(jsonName string) (flagField, bool) {
	for _, f := range in.fields {
		if f.json == jsonName {
			return f, true
		}
	}
	return flagField{}, false
}
