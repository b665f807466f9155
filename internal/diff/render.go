package diff

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/sqlguard"
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
		if err == nil {
			err = e.checkRelation(n, s)
		}
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
		if err == nil {
			err = e.checkRelation(n, s)
		}
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

// checkReadOnly accepts exactly one read-only statement in the
// warehouse's dialect (see internal/sqlguard) and returns it without
// trailing semicolons.
func (e Env) checkReadOnly(ctx context.Context, sql string) (string, error) {
	name := ""
	if e.Dialect != nil {
		name = e.Dialect.Name()
	}
	return sqlguard.Check(ctx, name, sql)
}

var errEmptySQL = errors.New("the SQL is empty: pass a SELECT statement")
