package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ripple-data/ripple/internal/ops"
)

// inputFlags binds one flag per JSON field of an operation's input struct.
// Values are collected into a JSON object so that the CLI goes through the
// same validation and decoding as the MCP server.
//
// Flag names are the kebab-case of the JSON names (skip_value_diff →
// --skip-value-diff) except where the JSON names, which are the MCP
// contract and never change, spell one concept several ways: ops.CLIFlag maps
// those to the one CLI vocabulary, and the other spellings stay accepted as
// hidden aliases.
type inputFlags struct {
	fields []flagField
	// alias maps a hidden spelling to the flag it stands for.
	alias map[string]string
}

type flagField struct {
	json     string
	flag     string
	kind     reflect.Kind
	elem     reflect.Kind
	required bool
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

// bindInputFlags defines the flags of input type t on fs; required lists
// the JSON names the input schema requires (their help says so).
func bindInputFlags(fs *pflag.FlagSet, t reflect.Type, required []string) *inputFlags {
	in := &inputFlags{alias: map[string]string{}}
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
			flag := ops.CLIFlag(name)
			if fs.Lookup(flag) != nil || in.has(flag) {
				// Two fields of one concept (row_count_diff's node_names
				// and node_ids) or a global flag: the JSON spelling.
				flag = strings.ReplaceAll(name, "_", "-")
			}
			if fs.Lookup(flag) != nil || in.has(flag) {
				continue // a global flag of the same name wins (e.g. --select)
			}
			usage := f.Tag.Get("jsonschema")
			ff := flagField{json: name, flag: flag, kind: f.Type.Kind(), required: slices.Contains(required, name)}
			if ff.required {
				usage = "(required) " + usage
			}
			if kebab := strings.ReplaceAll(name, "_", "-"); kebab != flag {
				in.alias[kebab] = flag
			}
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
			if strings.HasPrefix(usage, "Deprecated:") {
				// Still accepted, no longer shown.
				_ = fs.MarkHidden(flag)
			}
			in.fields = append(in.fields, ff)
		}
	}
	walk(t)
	// Aliases only where they name no flag of their own.
	for _, f := range in.fields {
		for _, a := range ops.CLIFlagAliases(f.flag) {
			if _, taken := in.alias[a]; !taken && !in.has(a) && fs.Lookup(a) == nil {
				in.alias[a] = f.flag
			}
		}
	}
	for a := range in.alias {
		if in.has(a) || fs.Lookup(a) != nil {
			delete(in.alias, a)
		}
	}
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if to, ok := in.alias[name]; ok {
			return pflag.NormalizedName(to)
		}
		return pflag.NormalizedName(name)
	})
	return in
}

func (in *inputFlags) has(flag string) bool {
	return slices.ContainsFunc(in.fields, func(f flagField) bool { return f.flag == flag })
}

// flagOf is the CLI flag of a JSON parameter ("--primary-key" for
// primary_keys), or the parameter itself when no flag binds it.
func (in *inputFlags) flagOf(jsonName string) string {
	if f, ok := in.field(jsonName); ok {
		return "--" + f.flag
	}
	if to, ok := in.alias[strings.ReplaceAll(jsonName, "_", "-")]; ok {
		return "--" + to
	}
	return jsonName
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
