package dbtfixture

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// quoteIdent double-quotes a DuckDB identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteRelation is "database"."schema"."name", as dbt-duckdb renders relations.
func quoteRelation(database, schema, name string) string {
	return quoteIdent(database) + "." + quoteIdent(schema) + "." + quoteIdent(name)
}

func stringLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// valuesSQL renders the raw code of an inline table model.
func valuesSQL(columns []string, rows Rows) (string, error) {
	if len(columns) == 0 {
		return "", fmt.Errorf("an inline table needs at least one column")
	}
	names := make([]string, len(columns))
	types := make([]string, len(columns))
	for i, c := range columns {
		f := strings.Fields(c)
		if len(f) == 0 {
			return "", fmt.Errorf("column %d has no name", i+1)
		}
		names[i] = f[0]
		types[i] = strings.Join(f[1:], " ")
	}
	var b strings.Builder
	b.WriteString("select\n")
	for i, n := range names {
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		switch {
		case len(rows) == 0 && types[i] == "":
			fmt.Fprintf(&b, "    cast(null as varchar) as %s%s\n", n, sep)
		case len(rows) == 0:
			fmt.Fprintf(&b, "    cast(null as %s) as %s%s\n", types[i], n, sep)
		case types[i] == "":
			fmt.Fprintf(&b, "    %s%s\n", n, sep)
		default:
			fmt.Fprintf(&b, "    cast(%s as %s) as %s%s\n", n, types[i], n, sep)
		}
	}
	if len(rows) == 0 {
		b.WriteString("where false")
		return b.String(), nil
	}
	b.WriteString("from (values\n")
	for ri, row := range rows {
		if len(row) != len(columns) {
			return "", fmt.Errorf("row %d has %d values for %d columns", ri+1, len(row), len(columns))
		}
		b.WriteString("    (")
		for i, v := range row {
			if i > 0 {
				b.WriteString(", ")
			}
			lit, err := literal(v)
			if err != nil {
				return "", fmt.Errorf("row %d, column %s: %w", ri+1, names[i], err)
			}
			b.WriteString(lit)
		}
		b.WriteString(")")
		if ri < len(rows)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, ") as t(%s)", strings.Join(names, ", "))
	return b.String(), nil
}

// literal renders a Go value as a DuckDB literal.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case Expr:
		return string(x), nil
	case string:
		return stringLiteral(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("%v cannot be written as a SQL literal", x)
		}
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s, nil
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return "date '" + x.Format("2006-01-02") + "'", nil
		}
		return "timestamp '" + x.Format("2006-01-02 15:04:05.999999") + "'", nil
	}
	return "", fmt.Errorf("unsupported value %T %v (use string, int, float64, bool, time.Time, nil or Expr)", v, v)
}

// refSpec is one {{ ref(...) }} call.
type refSpec struct {
	pkg, name string
}

// rendered is the compiled form of a node on one side.
type rendered struct {
	compiled string
	refs     []refSpec
	sources  [][2]string
	macros   []string // macro names of the root project, in first-use order
}

// resolver turns refs and sources into relation text for one side.
type resolver interface {
	ref(pkg, name string) (string, error)
	source(src, table string) (string, error)
	this() string
	macro(name string) (*macroSpec, string, bool)
}

var (
	jinjaComment  = regexp.MustCompile(`(?s)\{#.*?#\}`)
	isIncremental = regexp.MustCompile(`(?s)\{%-?\s*if\s+is_incremental\(\)\s*-?%\}.*?\{%-?\s*endif\s*-?%\}`)
	configCall    = regexp.MustCompile(`(?s)\{\{-?\s*config\(.*?\)\s*-?\}\}`)
	exprRe        = regexp.MustCompile(`(?s)\{\{-?\s*(.*?)\s*-?\}\}`)
	callRe        = regexp.MustCompile(`(?s)^([A-Za-z_][A-Za-z0-9_.]*)\s*\((.*)\)$`)
	identRe       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// render compiles the Jinja subset the scenarios use.
func render(code string, r resolver) (*rendered, error) {
	out := &rendered{}
	code = jinjaComment.ReplaceAllString(code, "")
	code = isIncremental.ReplaceAllString(code, "")
	code = configCall.ReplaceAllString(code, "")
	if i := strings.Index(code, "{%"); i >= 0 {
		return nil, fmt.Errorf("unsupported Jinja statement near %q: scenarios support {{ ref() }}, {{ source() }}, {{ this }}, scenario macros and {%% if is_incremental() %%}", snippet(code[i:]))
	}
	var firstErr error
	compiled := exprRe.ReplaceAllStringFunc(code, func(m string) string {
		if firstErr != nil {
			return m
		}
		inner := exprRe.FindStringSubmatch(m)[1]
		s, err := renderExpr(inner, r, out, 0)
		if err != nil {
			firstErr = err
			return m
		}
		return s
	})
	if firstErr != nil {
		return nil, firstErr
	}
	out.compiled = compiled
	return out, nil
}

func renderExpr(expr string, r resolver, out *rendered, depth int) (string, error) {
	if depth > 10 {
		return "", fmt.Errorf("macro recursion too deep in %q", expr)
	}
	expr = strings.TrimSpace(expr)
	if expr == "this" {
		return r.this(), nil
	}
	m := callRe.FindStringSubmatch(expr)
	if m == nil {
		return "", fmt.Errorf("unsupported Jinja expression {{ %s }}", expr)
	}
	fn := m[1]
	args, err := splitArgs(m[2])
	if err != nil {
		return "", fmt.Errorf("{{ %s }}: %w", expr, err)
	}
	switch fn {
	case "ref":
		var pkg, name string
		switch len(args) {
		case 1:
			name = args[0]
		case 2:
			pkg, name = args[0], args[1]
		default:
			return "", fmt.Errorf("{{ %s }}: ref takes one or two arguments", expr)
		}
		rel, err := r.ref(pkg, name)
		if err != nil {
			return "", err
		}
		out.refs = appendRef(out.refs, refSpec{pkg: pkg, name: name})
		return rel, nil
	case "source":
		if len(args) != 2 {
			return "", fmt.Errorf("{{ %s }}: source takes two arguments", expr)
		}
		rel, err := r.source(args[0], args[1])
		if err != nil {
			return "", err
		}
		key := [2]string{args[0], args[1]}
		found := false
		for _, s := range out.sources {
			found = found || s == key
		}
		if !found {
			out.sources = append(out.sources, key)
		}
		return rel, nil
	}
	mac, body, ok := r.macro(fn)
	if !ok {
		return "", fmt.Errorf("{{ %s }}: unknown macro %q; declare it with Project.Macro", expr, fn)
	}
	if len(args) != len(mac.params) {
		return "", fmt.Errorf("{{ %s }}: macro %s takes %d arguments", expr, fn, len(mac.params))
	}
	found := false
	for _, n := range out.macros {
		found = found || n == fn
	}
	if !found {
		out.macros = append(out.macros, fn)
	}
	var firstErr error
	res := exprRe.ReplaceAllStringFunc(body, func(s string) string {
		if firstErr != nil {
			return s
		}
		inner := strings.TrimSpace(exprRe.FindStringSubmatch(s)[1])
		for i, p := range mac.params {
			if inner == p {
				return args[i]
			}
		}
		v, err := renderExpr(inner, r, out, depth+1)
		if err != nil {
			firstErr = err
		}
		return v
	})
	return res, firstErr
}

func appendRef(refs []refSpec, r refSpec) []refSpec {
	for _, o := range refs {
		if o == r {
			return refs
		}
	}
	return append(refs, r)
}

// splitArgs splits a Jinja argument list of string literals and bare words.
func splitArgs(s string) ([]string, error) {
	var out []string
	s = strings.TrimSpace(s)
	for s != "" {
		var arg string
		switch s[0] {
		case '\'', '"':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return nil, fmt.Errorf("unterminated string %s", s)
			}
			arg, s = s[1:1+end], s[2+end:]
		default:
			end := strings.IndexByte(s, ',')
			if end < 0 {
				end = len(s)
			}
			arg, s = strings.TrimSpace(s[:end]), s[end:]
			if !identRe.MatchString(arg) && arg != "" {
				if _, err := strconv.ParseFloat(arg, 64); err != nil {
					return nil, fmt.Errorf("unsupported argument %q (use string literals)", arg)
				}
			}
		}
		out = append(out, arg)
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, ",") {
			s = strings.TrimSpace(s[1:])
		} else if s != "" {
			return nil, fmt.Errorf("expected ',' before %q", s)
		}
	}
	return out, nil
}

func snippet(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// injectCTEs prefixes compiled SQL with ephemeral CTEs the way dbt does
// (dbt.compilation._inject_ctes_into_sql): into an existing WITH, or a new one.
func injectCTEs(sql string, ctes []cte) string {
	if len(ctes) == 0 {
		return sql
	}
	var b strings.Builder
	for i, c := range ctes {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s as (\n%s\n)", c.name, c.sql)
	}
	trimmed := strings.TrimLeft(sql, " \t\r\n")
	lead := sql[:len(sql)-len(trimmed)]
	if len(trimmed) >= 4 && strings.EqualFold(trimmed[:4], "with") && (len(trimmed) == 4 || !isIdentByte(trimmed[4])) {
		return lead + "with " + b.String() + ", " + strings.TrimLeft(trimmed[4:], " \t\r\n")
	}
	return "with " + b.String() + "\n" + sql
}

type cte struct{ id, name, sql string }

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
