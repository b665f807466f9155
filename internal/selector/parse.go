// Package selector implements dbt's node-selection grammar (the --select /
// --exclude syntax) over the union graph of a project's base and current
// builds, with dbt's state: methods answered from dbt.CompareState.
package selector

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by every error about a malformed selector.
var ErrInvalid = errors.New("invalid node selector")

// Unlimited is the depth of a graph operator without a number (`+x`, `x+`).
const Unlimited = -1

// Criterion is one selector atom such as `2+state:modified.body+`.
type Criterion struct {
	Raw string
	// Method is the selection method ("fqn", "tag", "config", "state"...).
	// Unqualified values get dbt's default: path when the value contains a
	// "/", file when it ends in .sql/.py/.csv, else "name" (dbt's fqn
	// matching, plus dot-free wildcards matched against the node name).
	Method string
	// Args are the dotted arguments after the method (config.materialized ⇒ ["materialized"]).
	Args  []string
	Value string
	// ChildrensParents is the `@` prefix.
	ChildrensParents bool
	// Parents is the `+` prefix; ParentsDepth is its number or Unlimited.
	Parents      bool
	ParentsDepth int
	// Children is the `+` suffix; ChildrenDepth is its number or Unlimited.
	Children      bool
	ChildrenDepth int
}

// Intersection is a comma-joined group of criteria (all must match).
type Intersection []Criterion

// Expr is a space-separated union of intersections.
type Expr []Intersection

// Methods lists the selection methods Ripple implements, in the order error
// messages show them.
var Methods = []string{
	"fqn", "path", "file", "tag", "config.<key>", "resource_type", "package", "source",
	"exposure", "metric", "semantic_model", "saved_query", "test_type", "test_name", "group", "access", "state",
}

var knownMethods = map[string]bool{
	"fqn": true, "path": true, "file": true, "tag": true, "config": true, "resource_type": true,
	"package": true, "source": true, "exposure": true, "metric": true, "semantic_model": true,
	"saved_query": true, "test_type": true, "test_name": true, "group": true, "access": true, "state": true,
}

// StateValues are the values the state: method accepts.
var StateValues = []string{
	"new", "old", "modified", "unmodified",
	"modified.body", "modified.configs", "modified.relation",
	"modified.persisted_descriptions", "modified.macros", "modified.contract",
}

// rawSelector is dbt's RAW_SELECTOR_PATTERN.
var rawSelector = regexp.MustCompile(`^(@)?((\d*)\+)?(([\w.]+):)?(.*?)(\+(\d*))?$`)

// Parse parses a selector string: whitespace separates a union of terms,
// commas join criteria into an intersection. An empty string parses to an
// empty Expr.
func Parse(s string) (Expr, error) {
	var out Expr
	for _, tok := range strings.Fields(s) {
		inter, err := parseIntersection(tok)
		if err != nil {
			return nil, err
		}
		out = append(out, inter)
	}
	return out, nil
}

func parseIntersection(tok string) (Intersection, error) {
	if strings.HasPrefix(tok, "--") || (strings.HasPrefix(tok, "-") && len(tok) == 2) {
		return nil, fmt.Errorf("%w: unexpected flag %q; put exclusions in the exclude parameter (or `--exclude` followed by selectors)", ErrInvalid, tok)
	}
	parts := strings.Split(tok, ",")
	out := make(Intersection, 0, len(parts))
	for _, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("%w: empty term in %q; commas join two selectors (intersection), spaces separate alternatives (union)", ErrInvalid, tok)
		}
		c, err := ParseCriterion(p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ParseCriterion parses one selector atom (no spaces or commas).
func ParseCriterion(raw string) (Criterion, error) {
	m := rawSelector.FindStringSubmatch(raw)
	if m == nil {
		return Criterion{}, fmt.Errorf("%w: %q is not a selector of the form [@][n+][method:]value[+n]", ErrInvalid, raw)
	}
	c := Criterion{
		Raw:              raw,
		Value:            m[6],
		ChildrensParents: m[1] != "",
		Parents:          m[2] != "",
		Children:         m[7] != "",
		ParentsDepth:     Unlimited,
		ChildrenDepth:    Unlimited,
	}
	var err error
	if c.Parents && m[3] != "" {
		if c.ParentsDepth, err = depth(m[3], raw); err != nil {
			return Criterion{}, err
		}
	}
	if c.Children && m[8] != "" {
		if c.ChildrenDepth, err = depth(m[8], raw); err != nil {
			return Criterion{}, err
		}
	}
	if c.ChildrensParents && c.Children {
		return Criterion{}, fmt.Errorf("%w: %q: the \"@\" prefix and the \"+\" suffix cannot be combined", ErrInvalid, raw)
	}
	if c.Value == "" {
		return Criterion{}, fmt.Errorf("%w: %q has no value to select", ErrInvalid, raw)
	}
	if m[5] == "" {
		c.Method = defaultMethod(c.Value)
		return c, nil
	}
	parts := strings.Split(m[5], ".")
	c.Method, c.Args = parts[0], parts[1:]
	if !knownMethods[c.Method] {
		return Criterion{}, fmt.Errorf("%w: unknown selector method %q in %q; valid methods: %s", ErrInvalid, c.Method, raw, strings.Join(Methods, ", "))
	}
	for _, a := range c.Args {
		if a == "" {
			return Criterion{}, fmt.Errorf("%w: empty argument in %q", ErrInvalid, raw)
		}
	}
	switch {
	case c.Method == "config" && len(c.Args) == 0:
		return Criterion{}, fmt.Errorf("%w: %q: the config method needs a key, as in config.materialized:table", ErrInvalid, raw)
	case c.Method != "config" && len(c.Args) > 0:
		return Criterion{}, fmt.Errorf("%w: %q: only the config method takes dotted arguments (config.<key>:<value>)", ErrInvalid, raw)
	}
	if err := validateValue(c); err != nil {
		return Criterion{}, err
	}
	return c, nil
}

func depth(s, raw string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n > 1<<20 {
		return 0, fmt.Errorf("%w: graph operator depth %q in %q is not a small number", ErrInvalid, s, raw)
	}
	return n, nil
}

// defaultMethod is dbt's SelectionCriteria.default_method.
func defaultMethod(value string) string {
	switch lower := strings.ToLower(value); {
	case strings.Contains(value, "/"):
		return "path"
	case strings.HasSuffix(lower, ".sql"), strings.HasSuffix(lower, ".py"), strings.HasSuffix(lower, ".csv"):
		return "file"
	}
	return methodName
}

// methodName is the default method of unqualified values: dbt's fqn method
// plus name wildcards (see leafMatch).
const methodName = "name"

// resourceTypes are dbt's NodeType values.
var resourceTypes = map[string]bool{
	"model": true, "analysis": true, "test": true, "snapshot": true, "operation": true, "seed": true,
	"rpc": true, "sql_operation": true, "doc": true, "source": true, "macro": true, "exposure": true,
	"metric": true, "group": true, "saved_query": true, "semantic_model": true, "unit_test": true, "fixture": true,
}

func validateValue(c Criterion) error {
	switch c.Method {
	case "state":
		for _, v := range StateValues {
			if v == c.Value {
				return nil
			}
		}
		return fmt.Errorf("%w: %q: unknown state %q; expected one of %s", ErrInvalid, c.Raw, c.Value, strings.Join(StateValues, ", "))
	case "resource_type":
		if !resourceTypes[c.Value] {
			return fmt.Errorf("%w: %q: unknown resource_type %q; expected one of model, seed, snapshot, source, test, unit_test, analysis, exposure, metric, semantic_model, saved_query, operation, sql_operation", ErrInvalid, c.Raw, c.Value)
		}
	case "test_type":
		switch c.Value {
		case "generic", "schema", "singular", "data", "unit":
		default:
			return fmt.Errorf("%w: %q: unknown test_type %q; expected generic, singular, unit or data", ErrInvalid, c.Raw, c.Value)
		}
	case "source":
		if n := len(strings.Split(c.Value, ".")); n > 3 {
			return fmt.Errorf("%w: %q: sources are selected as source_name, source_name.table_name or package.source_name.table_name", ErrInvalid, c.Raw)
		}
	case "exposure", "metric", "semantic_model", "saved_query":
		if n := len(strings.Split(c.Value, ".")); n > 2 {
			return fmt.Errorf("%w: %q: %ss are selected as name or package.name", ErrInvalid, c.Raw, c.Method)
		}
	}
	return nil
}

// selectsTests reports whether the expression selects tests by type, which
// is what keeps test nodes in a result.
func (e Expr) selectsTests() bool {
	for _, inter := range e {
		for _, c := range inter {
			switch {
			case c.Method == "test_type", c.Method == "test_name":
				return true
			case c.Method == "resource_type" && (c.Value == "test" || c.Value == "unit_test"):
				return true
			}
		}
	}
	return false
}
