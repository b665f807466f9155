package diff

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/ripple-data/ripple/internal/dbt"
)

var (
	// {{ ref('m') }}, {{ ref("pkg", "m") }}, {{ ref('m', v=2) }}, any spacing.
	refRe = regexp.MustCompile(`\{\{-?\s*ref\s*\(\s*(?:'([^']*)'|"([^"]*)")\s*(?:,\s*(?:'([^']*)'|"([^"]*)")\s*)?(?:,\s*(?:v|version)\s*=\s*[^)]*)?\)\s*-?\}\}`)
	// {{ source('s', 't') }}, any quotes and spacing.
	sourceRe = regexp.MustCompile(`\{\{-?\s*source\s*\(\s*(?:'([^']*)'|"([^"]*)")\s*,\s*(?:'([^']*)'|"([^"]*)")\s*\)\s*-?\}\}`)
	jinjaRe  = regexp.MustCompile(`\{\{|\{%|\{#`)
)

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// renderSQL replaces ref() and source() calls with the relations of one
// environment's manifest. Other Jinja is rejected: Ripple does not run dbt.
func (e Env) renderSQL(sql string, s Side) (string, error) {
	m := e.manifest(s)
	if m == nil {
		return "", fmt.Errorf("the %s manifest is not loaded", s)
	}
	var firstErr error
	out := refRe.ReplaceAllStringFunc(sql, func(call string) string {
		g := refRe.FindStringSubmatch(call)
		a, b := firstNonEmpty(g[1], g[2]), firstNonEmpty(g[3], g[4])
		pkg, name := "", a
		if g[3] != "" || g[4] != "" {
			pkg, name = a, b
		}
		n, err := e.refNode(m, pkg, name, s)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return call
		}
		return relationSQL(e.Dialect, n)
	})
	out = sourceRe.ReplaceAllStringFunc(out, func(call string) string {
		g := sourceRe.FindStringSubmatch(call)
		src, tbl := firstNonEmpty(g[1], g[2]), firstNonEmpty(g[3], g[4])
		n, err := sourceNode(m, src, tbl, s)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return call
		}
		return relationSQL(e.Dialect, n)
	})
	if firstErr != nil {
		return "", firstErr
	}
	if loc := jinjaRe.FindStringIndex(out); loc != nil {
		end := min(len(out), loc[0]+60)
		return "", fmt.Errorf("unsupported template expression near %q: only {{ ref('model') }} and {{ source('source', 'table') }} are rendered; write other SQL out literally", out[loc[0]:end])
	}
	return out, nil
}

func (e Env) refNode(m *dbt.Manifest, pkg, name string, s Side) (*dbt.Node, error) {
	var found *dbt.Node
	var names []string
	for _, n := range m.AllNodes() {
		switch n.ResourceType {
		case dbt.Model, dbt.Seed, dbt.Snapshot:
		default:
			continue
		}
		names = append(names, n.Name)
		if n.Name != name || (pkg != "" && n.PackageName != pkg) {
			continue
		}
		// Prefer the root project's node, then the lowest id, for determinism.
		if found == nil || (n.PackageName == m.Metadata.ProjectName) != (found.PackageName == m.Metadata.ProjectName) && n.PackageName == m.Metadata.ProjectName ||
			(n.PackageName == m.Metadata.ProjectName) == (found.PackageName == m.Metadata.ProjectName) && n.UniqueID < found.UniqueID {
			found = n
		}
	}
	if found == nil {
		sort.Strings(names)
		what := name
		if pkg != "" {
			what = pkg + "." + name
		}
		return nil, fmt.Errorf("ref('%s') does not match a model, seed or snapshot in the %s manifest%s", what, s, dbt.SuggestSuffix(name, names))
	}
	if found.Materialized() == "ephemeral" {
		return nil, fmt.Errorf("ref('%s') is an ephemeral model, which has no relation in the %s environment; query its parents or materialize it", name, s)
	}
	return found, nil
}

func sourceNode(m *dbt.Manifest, src, tbl string, s Side) (*dbt.Node, error) {
	var names []string
	for _, n := range m.Sources {
		if !n.Enabled() {
			continue
		}
		if n.SourceName == src && n.Name == tbl {
			return n, nil
		}
		names = append(names, n.SourceName+"."+n.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("source('%s', '%s') is not in the %s manifest%s", src, tbl, s, dbt.SuggestSuffix(src+"."+tbl, names))
}

// writeVerbs are statement keywords a read-only query may not contain
// outside quotes and comments.
var writeVerbs = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "CREATE": true, "DROP": true,
	"ALTER": true, "TRUNCATE": true, "GRANT": true, "REVOKE": true, "COPY": true, "ATTACH": true,
	"DETACH": true, "INSTALL": true, "UPSERT": true,
}

var readStarts = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true, "FROM": true, "(": true}

// checkReadOnly accepts one SELECT-like statement and returns it without a
// trailing semicolon.
func checkReadOnly(sql string) (string, error) {
	var words []string
	body := sql
	i, n := 0, len(sql)
	for i < n {
		c := sql[i]
		switch {
		case c == '-' && i+1 < n && sql[i+1] == '-':
			for i < n && sql[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < n && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return "", errors.New("the SQL has an unterminated /* comment")
			}
			i += end + 4
			continue
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < n {
				if sql[j] == c {
					if j+1 < n && sql[j+1] == c {
						j += 2
						continue
					}
					break
				}
				if sql[j] == '\\' && c == '\'' {
					j++
				}
				j++
			}
			if j >= n {
				return "", fmt.Errorf("the SQL has an unterminated %c quote", c)
			}
			i = j + 1
			continue
		case c == ';':
			// Only trailing semicolons, comments and space may follow.
			rest, err := checkReadOnly(sql[i+1:])
			if err == nil && strings.TrimSpace(rest) != "" {
				return "", errors.New("the SQL has more than one statement; run one SELECT at a time")
			}
			if err != nil && !errors.Is(err, errEmptySQL) {
				return "", err
			}
			body = sql[:i]
			i = n
			continue
		case c == '(':
			if len(words) == 0 {
				words = append(words, "(")
			}
		case unicode.IsLetter(rune(c)) || c == '_':
			j := i
			for j < n && (sql[j] == '_' || sql[j] == '$' || unicode.IsLetter(rune(sql[j])) || unicode.IsDigit(rune(sql[j]))) {
				j++
			}
			w := strings.ToUpper(sql[i:j])
			words = append(words, w)
			if writeVerbs[w] {
				return "", fmt.Errorf("the SQL contains %s: Ripple only runs read-only queries (quote the identifier if %q is a column name)", w, sql[i:j])
			}
			i = j
			continue
		}
		i++
	}
	if len(words) == 0 {
		return "", errEmptySQL
	}
	if !readStarts[words[0]] {
		return "", fmt.Errorf("the SQL starts with %s: Ripple only runs SELECT (or WITH ... SELECT) queries", words[0])
	}
	return strings.TrimRight(body, " \t\r\n"), nil
}

var errEmptySQL = errors.New("the SQL is empty: pass a SELECT statement")
