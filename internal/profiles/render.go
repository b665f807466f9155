package profiles

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	exprRe = regexp.MustCompile(`\{\{-?\s*(.*?)\s*-?\}\}`)
	// env_var('NAME') or env_var("NAME", 'default' | number), then filters.
	envVarRe = regexp.MustCompile(`^env_var\(\s*(?:'([^']*)'|"([^"]*)")\s*(?:,\s*(?:'([^']*)'|"([^"]*)"|([-+0-9.eE]+|true|false|True|False|none|None))\s*)?\)\s*((?:\|\s*[a-z_]+\s*)*)$`)
)

// Render expands the {{ env_var(...) }} expressions dbt allows in
// profiles.yml. Filters | int, | as_number, | as_bool, | as_text, | string,
// | trim, | lower, | upper are accepted: the typed ones only matter once the
// value is used, and Target converts port/threads itself. Any other Jinja
// is an error rather than being passed to the warehouse verbatim.
func Render(s string, lookupEnv func(string) (string, bool)) (string, error) {
	var firstErr error
	out := exprRe.ReplaceAllStringFunc(s, func(block string) string {
		if firstErr != nil {
			return ""
		}
		expr := exprRe.FindStringSubmatch(block)[1]
		v, err := evalExpr(expr, lookupEnv)
		if err != nil {
			firstErr = err
			return ""
		}
		return v
	})
	if firstErr != nil {
		return "", firstErr
	}
	if strings.Contains(out, "{%") {
		return "", fmt.Errorf("jinja statements ({%% ... %%}) are not supported in profiles.yml by Ripple; only {{ env_var(...) }}")
	}
	return out, nil
}

func evalExpr(expr string, lookupEnv func(string) (string, bool)) (string, error) {
	m := envVarRe.FindStringSubmatch(expr)
	if m == nil {
		return "", fmt.Errorf("unsupported Jinja expression {{ %s }}: Ripple renders only env_var('NAME') and env_var('NAME', 'default') with simple filters", truncate(expr))
	}
	name := m[1] + m[2]
	val, ok := lookupEnv(name)
	if !ok {
		switch {
		case m[3] != "" || m[4] != "" || hasEmptyDefault(expr):
			val = m[3] + m[4]
		case m[5] != "":
			val = m[5]
		default:
			return "", fmt.Errorf("environment variable %s is not set and env_var() has no default; export it before running Ripple", name)
		}
	}
	for _, f := range strings.Split(m[6], "|") {
		switch f = strings.TrimSpace(f); f {
		case "", "int", "as_number", "float", "as_bool", "as_text", "string", "as_native":
		case "trim":
			val = strings.TrimSpace(val)
		case "lower":
			val = strings.ToLower(val)
		case "upper":
			val = strings.ToUpper(val)
		default:
			return "", fmt.Errorf("unsupported Jinja filter | %s on env_var(%q)", f, name)
		}
	}
	return val, nil
}

var emptyDefaultRe = regexp.MustCompile(`,\s*(''|"")\s*\)`)

func hasEmptyDefault(expr string) bool { return emptyDefaultRe.MatchString(expr) }

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// renderTyped renders s and, when the whole value was one expression with
// a numeric filter (| int, | as_number), returns a number as dbt would.
func renderTyped(s string, lookupEnv func(string) (string, bool)) (any, error) {
	r, err := Render(s, lookupEnv)
	if err != nil {
		return nil, err
	}
	trimmed := strings.TrimSpace(s)
	if loc := exprRe.FindStringIndex(trimmed); loc != nil && loc[0] == 0 && loc[1] == len(trimmed) {
		expr := exprRe.FindStringSubmatch(trimmed)[1]
		if strings.Contains(expr, "| int") || strings.Contains(expr, "|int") || strings.Contains(expr, "as_number") {
			if n, err := strconv.Atoi(strings.TrimSpace(r)); err == nil {
				return n, nil
			}
		}
		if strings.Contains(expr, "as_bool") {
			if b, err := strconv.ParseBool(strings.TrimSpace(r)); err == nil {
				return b, nil
			}
		}
	}
	return r, nil
}
