package sqldiff

import (
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// What CodeChange compared.
const (
	ComparedCompiled = "compiled_code"
	ComparedRaw      = "raw_code"
)

// NoteRaw says the raw code was compared because a side has no compiled
// code: Jinja was not rendered, so its tags stand in as names.
const NoteRaw = "compiled code is missing on a side: the raw code was compared and Jinja was not rendered ({{ … }} compared as written)"

// CodeChange is what changed in a model's code, for get_model and
// impact_analysis.
type CodeChange struct {
	Cosmetic bool     `json:"cosmetic" jsonschema:"only cosmetic edits (layout, comments, case, aliases...)"`
	Summary  string   `json:"summary" jsonschema:"one line: kind: before → after"`
	Changes  []Change `json:"changes,omitempty" jsonschema:"the changes (impact_analysis: detail full only)"`
	Compared string   `json:"compared" jsonschema:"compiled_code or raw_code"`
	Note     string   `json:"note,omitempty" jsonschema:"why raw code was compared"`
	// Error is set when a side's SQL does not parse: nothing is guessed.
	Error *ParseError `json:"error,omitempty" jsonschema:"a side that does not parse"`
}

// CompareCode diffs a model's code: compiled SQL when both sides have it,
// else the raw code with its Jinja tags folded to names.
func CompareCode(dialect, baseCompiled, currentCompiled, baseRaw, currentRaw string) *CodeChange {
	return compareCode(dialect, baseCompiled, currentCompiled, baseRaw, currentRaw, nil, nil)
}

// compareCode is CompareCode with each side's relations (lower-case name
// as written → what it stands for).
func compareCode(dialect, baseCompiled, currentCompiled, baseRaw, currentRaw string, baseRel, curRel map[string]string) *CodeChange {
	cc := &CodeChange{Compared: ComparedCompiled}
	base, cur := baseCompiled, currentCompiled
	if strings.TrimSpace(base) == "" || strings.TrimSpace(cur) == "" {
		cc.Compared, cc.Note = ComparedRaw, NoteRaw
		base, cur = foldJinja(baseRaw), foldJinja(currentRaw)
	}
	r := diffRel(dialect, base, cur, nil, baseRel, curRel)
	cc.Cosmetic, cc.Changes, cc.Error, cc.Summary = r.Cosmetic, r.Changes, r.Error, r.Summary()
	return cc
}

// foldJinja replaces each {{ … }} by a name made of its words
// ({{ ref('orders') }} → ref_orders) and drops {% … %} and {# … #}, so
// raw code parses and equal tags compare equal.
func foldJinja(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "{")
		if i < 0 || i+1 >= len(s) || !strings.ContainsRune("{%#", rune(s[i+1])) {
			if i < 0 || i+1 >= len(s) {
				b.WriteString(s)
				return b.String()
			}
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		closer := map[byte]string{'{': "}}", '%': "%}", '#': "#}"}[s[i+1]]
		j := strings.Index(s[i+2:], closer)
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if s[i+1] == '{' {
			b.WriteString(jinjaName(s[i+2 : i+2+j]))
		}
		s = s[i+2+j+2:]
	}
}

func jinjaName(expr string) string {
	var b strings.Builder
	sep := false
	for _, r := range expr {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		switch {
		case ok:
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			sep = false
		default:
			sep = true
		}
	}
	if b.Len() == 0 {
		return "jinja"
	}
	return b.String()
}

// ForNodes is CompareCode for a dbt node in both builds (with their
// manifests); nil when neither its compiled nor its raw code differs. The
// relations of its parents compare by node name, so the two builds'
// schemas (base vs current) are no change.
func ForNodes(dialect string, base, current *dbt.Node, baseM, curM *dbt.Manifest) *CodeChange {
	if base == nil || current == nil || (base.CompiledCode == current.CompiledCode && base.Code() == current.Code()) {
		return nil
	}
	return compareCode(dialect, base.CompiledCode, current.CompiledCode, base.Code(), current.Code(),
		parentRelations(dialect, base, baseM), parentRelations(dialect, current, curM))
}

// parentRelations maps the relation names of a node's parents, as SQL may
// write them (database.schema.table or schema.table), to the parent's name.
func parentRelations(dialect string, n *dbt.Node, m *dbt.Manifest) map[string]string {
	out := map[string]string{}
	if m == nil {
		return out
	}
	for _, id := range n.DependsOn.Nodes {
		p, ok := m.Node(id)
		if !ok || p.RelationName == "" {
			continue
		}
		parts, err := dbt.ParseRelationName(dialect, p.RelationName)
		if err != nil {
			continue
		}
		for k := 0; k+1 < len(parts); k++ {
			out[strings.ToLower(strings.Join(parts[k:], "."))] = p.Name
		}
	}
	return out
}
