package static

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// TestGapsInput filters the suggestions.
type TestGapsInput struct {
	Model string `json:"model,omitempty" jsonschema:"only suggest tests for this model, seed, snapshot or source; empty means all"`
	Limit int    `json:"limit,omitempty" jsonschema:"maximum suggestions (default 50, max 500)"`
}

// TestGap is one test worth adding.
type TestGap struct {
	Model    string `json:"model" jsonschema:"model name"`
	UniqueID string `json:"unique_id" jsonschema:"unique id"`
	Column   string `json:"column" jsonschema:"column (comma-separated for a combination)"`
	// Test is not_null, unique, relationships or dbt_utils.unique_combination_of_columns.
	Test string `json:"test" jsonschema:"not_null, unique, relationships or dbt_utils.unique_combination_of_columns"`
	// Rule is key_untested, unique_nullable, inferred_relationship or join_key_untested.
	Rule   string `json:"rule" jsonschema:"key_untested, unique_nullable, inferred_relationship or join_key_untested"`
	Reason string `json:"reason" jsonschema:"why it is worth adding"`
	YAML   string `json:"yaml" jsonschema:"ready-to-paste schema.yml snippet"`
}

// TestGapsResult lists suggestions, most important first.
type TestGapsResult struct {
	Gaps      []TestGap `json:"gaps" jsonschema:"suggestions, most important first"`
	Total     int       `json:"total" jsonschema:"suggestions found"`
	Truncated bool      `json:"truncated" jsonschema:"true when cut at limit"`
	Note      string    `json:"note" jsonschema:"how the suggestions were made"`
}

// TestGaps suggests tests worth adding: key columns without unique/not_null,
// unique keys without not_null, relationships guessed from naming without a
// relationships test, and join keys used downstream without any test.
func TestGaps(ctx context.Context, p *Project, in TestGapsInput) (*TestGapsResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var only *entity
	if in.Model != "" {
		e, err := p.resolve(in.Model)
		if err != nil {
			return nil, err
		}
		only = e
	}
	limit := clampLimit(in.Limit, 50, 500)
	var gaps []TestGap
	total := 0
	if only == nil {
		// The whole-project list is computed once and shared.
		p.gapsOnce.Do(func() { p.allGaps, _ = p.gapsFor(nil, math.MaxInt) })
		total = len(p.allGaps)
		gaps = p.allGaps[:min(limit, total)]
	} else {
		gaps, total = p.gapsFor(only, limit)
	}
	res := &TestGapsResult{Total: total, Gaps: []TestGap{}, Truncated: total > len(gaps),
		Note: "Suggestions are heuristic: check them against what the data means. Tests on sources belong in the source YAML."}
	if p.lin == nil {
		res.Note += " Column lineage was not available, so join keys used downstream were not checked."
	}
	res.Gaps = append(res.Gaps, gaps...)
	return res, nil
}

// gapsFor lists the gaps (of one entity when only is set), rendering at most limit.
func (p *Project) gapsFor(only *entity, limit int) ([]TestGap, int) {
	g := p.graph()
	testsKey := p.testsKey()
	var gaps []TestGap
	seen := map[gapKey]bool{}
	total := 0
	// add records a gap; reason and YAML are rendered only for gaps within the limit.
	add := func(e *entity, col, test, rule string, text func() (reason, yaml string)) {
		if only != nil && e != only {
			return
		}
		k := gapKey{e.id, strings.ToLower(col), test}
		if seen[k] {
			return
		}
		seen[k] = true
		total++
		if len(gaps) < limit {
			reason, yaml := text()
			gaps = append(gaps, TestGap{Model: e.name, UniqueID: e.id, Column: col, Test: test, Rule: rule, Reason: reason, YAML: yaml})
		}
	}
	has := func(e *entity, col string, names ...string) bool {
		t := g.tests[colKey{e.id, strings.ToLower(col)}]
		for _, n := range names {
			if len(t[n]) > 0 {
				return true
			}
		}
		return false
	}
	notNull := func(e *entity, col string) bool { return g.notNull(e.id, []string{col}) }

	// 1. Key columns without unique / not_null.
	for _, e := range p.entities {
		ks := g.keys[e.id]
		key, why := ks.pk, ""
		switch {
		case key != nil && key.Basis == BasisDeclared:
			why = "is declared as the key (" + key.Evidence[0].Detail + ")"
		case key == nil && ks.inferredPK != nil:
			key, why = ks.inferredPK, "looks like the key by its name"
		default:
			continue
		}
		if len(key.Columns) == 1 {
			col := key.Columns[0]
			if !has(e, col, "unique") {
				add(e, col, "unique", "key_untested", func() (string, string) {
					return fmt.Sprintf("%s.%s %s but no unique test proves it; duplicates would fan out every join on it", e.name, col, why), p.gapYAML(e, col, "unique", nil, testsKey)
				})
			}
		} else if !anyComboTest(g, e, key.Columns) {
			add(e, strings.Join(key.Columns, ", "), "dbt_utils.unique_combination_of_columns", "key_untested", func() (string, string) {
				return fmt.Sprintf("(%s) %s but no test proves the combination unique", strings.Join(key.Columns, ", "), why),
					p.gapYAML(e, "", "dbt_utils.unique_combination_of_columns", [][2]string{{"combination_of_columns", "[" + strings.Join(key.Columns, ", ") + "]"}}, testsKey)
			})
		}
		for _, col := range key.Columns {
			if !notNull(e, col) {
				add(e, col, "not_null", "key_untested", func() (string, string) {
					return fmt.Sprintf("%s.%s %s but may be null; a null key matches nothing in joins", e.name, col, why), p.gapYAML(e, col, "not_null", nil, testsKey)
				})
			}
		}
	}
	// 2. Unique keys without not_null: not a primary key yet.
	for _, e := range p.entities {
		for _, u := range g.keys[e.id].uniques {
			if len(u.Columns) != 1 || u.NotNull {
				continue
			}
			col := u.Columns[0]
			add(e, col, "not_null", "unique_nullable", func() (string, string) {
				return fmt.Sprintf("%s.%s is tested unique but not not_null, so it is not a primary key yet; add not_null to make it the grain", e.name, col), p.gapYAML(e, col, "not_null", nil, testsKey)
			})
		}
	}
	// 3. Relationships guessed from naming without a relationships test.
	for _, r := range g.inferred {
		e, to := p.byID[r.FromID], p.byID[r.ToID]
		col := r.FromColumns[0]
		if has(e, col, "relationships") {
			continue
		}
		add(e, col, "relationships", "inferred_relationship", func() (string, string) {
			return fmt.Sprintf("%s.%s looks like a reference to %s.%s (by its name) but no relationships test checks it; orphans would vanish from inner joins", e.name, col, to.name, r.ToColumns[0]),
				p.gapYAML(e, col, "relationships", [][2]string{{"to", to.refArg()}, {"field", r.ToColumns[0]}}, testsKey)
		})
	}
	// 4. Join keys used downstream without any test.
	keys := make([]colKey, 0, len(g.joinUses))
	for k := range g.joinUses {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].id != keys[j].id {
			return p.byID[keys[i].id].name < p.byID[keys[j].id].name
		}
		return keys[i].col < keys[j].col
	})
	for _, k := range keys {
		e := p.byID[k.id]
		col := e.colName(k.col)
		if has(e, col, "not_null", "unique", "relationships", "unique_combination_of_columns") || notNull(e, col) || g.isKey(e.id, []string{col}) {
			continue
		}
		models := make([]string, 0, len(g.joinUses[k]))
		for _, m := range g.joinUses[k] {
			if me := p.byID[m]; me != nil {
				models = append(models, me.name)
			} else {
				models = append(models, m)
			}
		}
		sort.Strings(models)
		add(e, col, "not_null", "join_key_untested", func() (string, string) {
			return fmt.Sprintf("%s.%s is a join key in %s but has no test; a null key silently drops or duplicates rows", e.name, col, strings.Join(models, ", ")),
				p.gapYAML(e, col, "not_null", nil, testsKey)
		})
	}
	return gaps, total
}

func anyComboTest(g *erdGraph, e *entity, cols []string) bool {
	for _, u := range g.keys[e.id].uniques {
		if sameCols(u.Columns, cols) {
			return true
		}
	}
	if pk := g.keys[e.id].pk; pk != nil && sameCols(pk.Columns, cols) {
		for _, ev := range pk.Evidence {
			if ev.Kind == "test" {
				return true
			}
		}
	}
	return false
}

// testsKey is "data_tests" from dbt 1.8 on, "tests" before.
func (p *Project) testsKey() string {
	maj, minor := dbtVersion(p.env.Manifest.Metadata.DbtVersion)
	if maj > 1 || (maj == 1 && minor >= 8) {
		return "data_tests"
	}
	return "tests"
}

func dbtVersion(v string) (major, minor int) {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) >= 2 {
		major, _ = strconv.Atoi(parts[0])
		minor, _ = strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	}
	return major, minor
}

// gapYAML renders ready-to-paste YAML for one test. col == "" puts the test
// at the model level. args are key/value pairs written as given.
func (p *Project) gapYAML(e *entity, col, test string, args [][2]string, testsKey string) string {
	var b strings.Builder
	indent := "  "
	switch e.kind {
	case dbt.Source:
		fmt.Fprintf(&b, "sources:\n  - name: %s\n    tables:\n      - name: %s\n", e.node.SourceName, e.node.Name)
		indent = "        "
	default:
		section := e.kind + "s"
		fmt.Fprintf(&b, "%s:\n  - name: %s\n", section, e.node.Name)
		indent = "    "
	}
	if col != "" {
		fmt.Fprintf(&b, "%scolumns:\n%s  - name: %s\n", indent, indent, col)
		indent += "    "
	}
	fmt.Fprintf(&b, "%s%s:\n", indent, testsKey)
	if len(args) == 0 {
		fmt.Fprintf(&b, "%s  - %s\n", indent, test)
		return b.String()
	}
	fmt.Fprintf(&b, "%s  - %s:\n", indent, test)
	argIndent := indent + "      "
	if maj, minor := dbtVersion(p.env.Manifest.Metadata.DbtVersion); maj > 1 || (maj == 1 && minor >= 10) {
		fmt.Fprintf(&b, "%sarguments:\n", argIndent)
		argIndent += "  "
	}
	for _, a := range args {
		fmt.Fprintf(&b, "%s%s: %s\n", argIndent, a[0], a[1])
	}
	return b.String()
}

type gapKey struct{ id, col, test string }
