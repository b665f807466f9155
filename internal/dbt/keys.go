package dbt

import (
	"encoding/json"
	"sort"
	"strings"
)

// KeyBasis says why Ripple believes a set of columns is a primary key.
type KeyBasis string

// Key bases, most trustworthy first.
const (
	KeyDeclared KeyBasis = "declared" // primary_key constraint or incremental/snapshot unique_key
	KeyTested   KeyBasis = "tested"   // a unique (or unique_combination_of_columns) test
)

// PrimaryKey is a model's key with the evidence for it.
type PrimaryKey struct {
	Columns  []string `json:"columns"`
	Basis    KeyBasis `json:"basis"`
	Evidence string   `json:"evidence"`
	// Test is the unique id of the test behind a tested key, so callers can
	// look its outcome up in run_results.
	Test string `json:"-"`
	// UniqueKey marks a declared key that comes from an incremental or
	// snapshot unique_key config rather than a constraint.
	UniqueKey bool `json:"-"`
}

// TestsOf returns the enabled generic tests attached to a node, sorted by id.
func (m *Manifest) TestsOf(id string) []*Node {
	var out []*Node
	seen := map[string]bool{}
	add := func(tid string) {
		if seen[tid] {
			return
		}
		seen[tid] = true
		t, ok := m.all[tid]
		if !ok || t.ResourceType != Test {
			return
		}
		if t.AttachedNode == id || (t.AttachedNode == "" && len(t.DependsOn.Nodes) > 0 && t.DependsOn.Nodes[len(t.DependsOn.Nodes)-1] == id) {
			out = append(out, t)
		}
	}
	for _, c := range m.ChildMap[id] {
		add(c)
	}
	if len(out) == 0 && len(m.ChildMap) == 0 {
		for tid := range m.Nodes {
			add(tid)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UniqueID < out[j].UniqueID })
	return out
}

// TestName is the generic test's name without namespace (unique, not_null,
// relationships, unique_combination_of_columns, accepted_values ...).
func (t *Node) TestName() string {
	if t.TestMetadata == nil {
		return ""
	}
	return t.TestMetadata.Name
}

// TestColumn is the column a generic test applies to, when it has one.
func (t *Node) TestColumn() string {
	if t.ColumnName != "" {
		return t.ColumnName
	}
	if t.TestMetadata != nil {
		if raw, ok := t.TestMetadata.Kwargs["column_name"]; ok {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				return s
			}
		}
	}
	return ""
}

// TestKwargStrings decodes a list-of-strings kwarg (e.g. combination_of_columns).
func (t *Node) TestKwargStrings(key string) []string {
	if t.TestMetadata == nil {
		return nil
	}
	raw, ok := t.TestMetadata.Kwargs[key]
	if !ok {
		return nil
	}
	var l StringOrList
	_ = json.Unmarshal(raw, &l)
	return l
}

// ColumnTests returns, per column name (lower case), the names of the
// generic tests on it (e.g. "unique", "not_null").
func (m *Manifest) ColumnTests(id string) map[string][]string {
	out := map[string][]string{}
	for _, t := range m.TestsOf(id) {
		if c := t.TestColumn(); c != "" && t.TestName() != "" {
			k := strings.ToLower(unquote(c))
			out[k] = append(out[k], t.TestName())
		}
	}
	return out
}

// PrimaryKeyOf finds a node's primary key: the first of KeyCandidates, or
// nil when the node has no declared or tested key.
func (m *Manifest) PrimaryKeyOf(id string) *PrimaryKey {
	if c := m.KeyCandidates(id); len(c) > 0 {
		return &c[0]
	}
	return nil
}

// KeyCandidates lists every key the manifest declares or tests for a node,
// most trustworthy first: a primary_key constraint (model level, then
// column level), an incremental/snapshot unique_key, unique tests, then
// unique_combination_of_columns tests. Candidates with the same columns are
// listed once. Declared keys are claims, not proof: callers verify them.
func (m *Manifest) KeyCandidates(id string) []PrimaryKey {
	n, ok := m.all[id]
	if !ok {
		return nil
	}
	var out []PrimaryKey
	seen := map[string]bool{}
	add := func(k PrimaryKey) {
		sig := strings.ToLower(strings.Join(k.Columns, "\x00"))
		if len(k.Columns) == 0 || seen[sig] {
			return
		}
		seen[sig] = true
		out = append(out, k)
	}
	for _, c := range n.Constraints {
		if c.Type == "primary_key" && len(c.Columns) > 0 {
			add(PrimaryKey{Columns: c.Columns, Basis: KeyDeclared, Evidence: "primary_key constraint on the model"})
		}
	}
	for _, name := range sortedColumnNames(n) {
		for _, c := range n.Columns[name].Constraints {
			if c.Type == "primary_key" {
				add(PrimaryKey{Columns: []string{n.Columns[name].Name}, Basis: KeyDeclared, Evidence: "primary_key constraint on column " + n.Columns[name].Name})
			}
		}
	}
	if mat := n.Materialized(); (mat == "incremental" || n.ResourceType == Snapshot) && len(n.Config.UniqueKey) > 0 {
		add(PrimaryKey{Columns: n.Config.UniqueKey, Basis: KeyDeclared, UniqueKey: true, Evidence: "unique_key of the " + orDefault(mat, n.ResourceType) + " config"})
	}
	var combos []PrimaryKey
	for _, t := range m.TestsOf(id) {
		switch t.TestName() {
		case "unique":
			if c := t.TestColumn(); c != "" && !strings.ContainsAny(c, " ()|") {
				add(PrimaryKey{Columns: []string{unquote(c)}, Basis: KeyTested, Test: t.UniqueID, Evidence: "unique test " + t.Name})
			}
		case "unique_combination_of_columns":
			if cols := t.TestKwargStrings("combination_of_columns"); len(cols) > 0 {
				combos = append(combos, PrimaryKey{Columns: cols, Basis: KeyTested, Test: t.UniqueID, Evidence: "unique_combination_of_columns test " + t.Name})
			}
		}
	}
	for _, k := range combos {
		add(k)
	}
	return out
}

// TestPassed reports the outcome of a test in this build's run_results:
// passed is true for status "pass"; known is false when the test did not
// run in this build (or there are no run_results).
func (e *Env) TestPassed(testID string) (passed, known bool) {
	if e == nil || e.RunResults == nil || testID == "" {
		return false, false
	}
	for _, r := range e.RunResults.Results {
		if r.UniqueID == testID {
			return r.Status == "pass", true
		}
	}
	return false, false
}

func sortedColumnNames(n *Node) []string {
	out := make([]string, 0, len(n.Columns))
	for k := range n.Columns {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func unquote(s string) string { return strings.Trim(s, "\"`[]") }
