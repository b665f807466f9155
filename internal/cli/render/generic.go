package render

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
)

// Generic renders any result as "field: value" lines, lists of records as
// tables and nested records indented. It is the fallback for results
// without a renderer of their own, so no command ever prints raw JSON.
func Generic(w io.Writer, out any, o Options) error {
	v := reflect.ValueOf(out)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			_, err := io.WriteString(w, "(nothing)\n")
			return err
		}
		v = v.Elem()
	}
	g := generic{w: w, o: o}
	g.value("", v, 0)
	return g.err
}

type generic struct {
	w   io.Writer
	o   Options
	err error
}

func (g *generic) printf(indent int, format string, args ...any) {
	if g.err == nil {
		_, g.err = fmt.Fprintf(g.w, strings.Repeat("  ", indent)+format, args...)
	}
}

// field is one exported, JSON-visible field of a struct.
type field struct {
	name string
	v    reflect.Value
}

func fields(v reflect.Value) []field {
	var fs []field
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		fv := v.Field(i)
		if sf.Anonymous && name == "" {
			for fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					break
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				fs = append(fs, fields(fv)...)
				continue
			}
		}
		if name == "" {
			name = sf.Name
		}
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		fs = append(fs, field{name, fv})
	}
	return fs
}

// scalar formats v on one line, or reports that it is not a scalar.
func scalar(v reflect.Value) (string, bool) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "—", true
		}
		v = v.Elem()
	}
	if m, ok := v.Interface().(json.Marshaler); ok && v.Kind() != reflect.Struct {
		b, err := m.MarshalJSON()
		if err == nil {
			return strings.Trim(string(b), `"`), true
		}
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		if v.Bool() {
			return "yes", true
		}
		return "no", true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Int(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Int(int64(v.Uint())), true
	case reflect.Float32, reflect.Float64:
		return fmt.Sprintf("%.6g", v.Float()), true
	case reflect.Slice, reflect.Array:
		if v.Len() == 0 {
			return "—", true
		}
		parts := make([]string, 0, v.Len())
		for i := range v.Len() {
			s, ok := scalar(v.Index(i))
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ", "), true
	case reflect.Map:
		if v.Len() == 0 {
			return "—", true
		}
	case reflect.Struct:
		if s, ok := v.Interface().(fmt.Stringer); ok {
			return s.String(), true
		}
	}
	return "", false
}

func (g *generic) value(name string, v reflect.Value, indent int) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			if name != "" {
				g.printf(indent, "%s: —\n", name)
			}
			return
		}
		v = v.Elem()
	}
	if s, ok := scalar(v); ok {
		if name == "" {
			g.printf(indent, "%s\n", s)
		} else if strings.Contains(s, "\n") {
			g.printf(indent, "%s:\n%s\n", name, indentLines(s, indent+1))
		} else if pad := strings.Repeat("  ", indent); g.err == nil && len([]rune(pad+name+": "+s)) > g.o.width() {
			// A long value wraps under its name instead of running off the terminal.
			wrap(g.w, pad+name+": ", pad+"  ", s, g.o.width())
		} else {
			g.printf(indent, "%s: %s\n", name, s)
		}
		return
	}
	inner := indent
	if name != "" {
		g.printf(indent, "%s:\n", name)
		inner++
	}
	switch v.Kind() {
	case reflect.Struct:
		for _, f := range fields(v) {
			g.value(f.name, f.v, inner)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			g.value(fmt.Sprint(k), v.MapIndex(k), inner)
		}
	case reflect.Slice, reflect.Array:
		g.list(v, inner)
	}
}

// list prints a list of records as a table of their one-line fields, the
// others below each row; capped at the limit.
func (g *generic) list(v reflect.Value, indent int) {
	n := v.Len()
	shown := min(n, g.o.limit())
	elem := v.Type().Elem()
	for elem.Kind() == reflect.Pointer {
		elem = elem.Elem()
	}
	if elem.Kind() == reflect.Struct {
		var t Table
		simple := true
		for i := range shown {
			e := reflect.Indirect(v.Index(i))
			if !e.IsValid() {
				continue
			}
			var row []string
			var header []string
			for _, f := range fields(e) {
				s, ok := scalar(f.v)
				if !ok {
					simple = false
					continue
				}
				header = append(header, f.name)
				row = append(row, s)
			}
			if len(header) > len(t.Header) {
				t.Header = header
			}
			t.Add(row...)
		}
		if simple {
			var b strings.Builder
			if err := t.Write(&b, g.o.width()-2*indent); err != nil {
				g.err = err
			}
			g.printf(0, "%s", indentLines(strings.TrimRight(b.String(), "\n"), indent)+"\n")
			More(g.w, shown, n)
			return
		}
	}
	for i := range shown {
		g.printf(indent, "- %d\n", i+1)
		g.value("", v.Index(i), indent+1)
	}
	More(g.w, shown, n)
}

func indentLines(s string, indent int) string {
	pad := strings.Repeat("  ", indent)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
