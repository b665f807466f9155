package selector

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// ErrNoMatch is wrapped by the error of a selector term that names
// something the project does not have.
var ErrNoMatch = errors.New("selector term matches no node")

// AllowEmptyHint ends every no-match error: how a script that wants an
// empty result says so.
const AllowEmptyHint = "set allow_empty (--allow-empty) to accept an empty selection"

// NoMatchError is a name-like selector term that matches no node.
type NoMatchError struct {
	// Param is "select" or "exclude".
	Param string
	// Term is the criterion as written (graph operators included).
	Term string
	// Suggestions are the closest existing values, spelt as selector terms.
	Suggestions []string
}

func (e *NoMatchError) Error() string {
	hint := "; run select_nodes (ripple select-nodes) to see what a selector matches"
	switch len(e.Suggestions) {
	case 0:
	case 1:
		hint = fmt.Sprintf("; did you mean %q?", e.Suggestions[0])
	default:
		q := make([]string, len(e.Suggestions))
		for i, s := range e.Suggestions {
			q[i] = fmt.Sprintf("%q", s)
		}
		hint = "; did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?"
	}
	return fmt.Sprintf("%s term %q matches no node%s (%s)", e.Param, e.Term, hint, AllowEmptyHint)
}

func (e *NoMatchError) Unwrap() error { return ErrNoMatch }

// vocabularyMethods take a value from a fixed vocabulary (validated when
// parsed, or here for access) rather than a name from the project: they
// may rightly match nothing, e.g. state:modified on a change that
// modifies nothing.
var vocabularyMethods = map[string]bool{"state": true, "resource_type": true, "test_type": true, "access": true}

var accessValues = []string{"public", "protected", "private"}

// Check refuses a selection that is surely a mistake: a term of select or
// exclude that names something (a node, path, file, tag, config value,
// group, package, source...) that no node of either build has. A typo in
// select quietly shrinks the answer and one in exclude quietly widens it,
// so both are errors naming the closest existing values. Terms of
// vocabulary methods (state:, resource_type:, test_type:, access:) may
// match nothing; the caller warns when the whole selection is empty.
// Malformed selectors are left to Select, which reports them.
func (s *Selector) Check(opts Options) error {
	if s.g == nil {
		return nil
	}
	selectStr, excludeStr := opts.Select, opts.Exclude
	if i := indexField(selectStr, "--exclude"); i >= 0 {
		excludeStr = strings.TrimSpace(selectStr[i+len("--exclude"):] + " " + excludeStr)
		selectStr = selectStr[:i]
	}
	ev := &eval{Selector: s, n: s.g.Len()}
	for _, p := range []struct{ param, expr string }{{"select", selectStr}, {"exclude", excludeStr}} {
		x, err := Parse(p.expr)
		if err != nil {
			return nil
		}
		for _, inter := range x {
			for _, c := range inter {
				if err := ev.checkTerm(p.param, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (e *eval) checkTerm(param string, c Criterion) error {
	if c.Method == "access" && !containsString(accessValues, c.Value) {
		return &NoMatchError{Param: param, Term: c.Raw, Suggestions: spell(c, dbt.Closest(c.Value, accessValues, 3))}
	}
	if vocabularyMethods[c.Method] {
		return nil
	}
	ids := e.g.IDs()
	for i := range ids {
		if e.match(c, i, ids[i], e.g.NodeAt(i)) {
			return nil
		}
	}
	return &NoMatchError{Param: param, Term: c.Raw, Suggestions: spell(c, dbt.Closest(c.Value, e.candidates(c), 3))}
}

// spell writes suggested values as terms of the criterion's method,
// with the method prefix when the term had one.
func spell(c Criterion, values []string) []string {
	prefix := strings.Join(append([]string{c.Method}, c.Args...), ".") + ":"
	if !strings.Contains(c.Raw, prefix) {
		prefix = ""
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = prefix + v
	}
	return out
}

// candidates lists the values the criterion's method could have matched.
func (e *eval) candidates(c Criterion) []string {
	seen := map[string]bool{}
	add := func(v string) {
		if v != "" {
			seen[v] = true
		}
	}
	ids := e.g.IDs()
	for i := range ids {
		n := e.g.NodeAt(i)
		isTest := n.ResourceType == dbt.Test || n.ResourceType == dbt.UnitTest
		switch c.Method {
		case methodName, "fqn":
			if !isTest && n.ResourceType != dbt.Source {
				add(n.Name)
				if strings.Contains(c.Value, ".") {
					add(strings.Join(n.FQN, "."))
				}
			}
		case "path":
			// Paths as deep as the value: a parent folder is a prefix of
			// every typo below it, not a likely meaning.
			depth := strings.Count(strings.Trim(c.Value, "/"), "/")
			for p := strings.ReplaceAll(n.OriginalFilePath, "\\", "/"); p != "." && p != "/" && p != ""; p = path.Dir(p) {
				if strings.Count(p, "/") == depth {
					add(p)
				}
			}
		case "file":
			add(path.Base(strings.ReplaceAll(n.OriginalFilePath, "\\", "/")))
		case "tag":
			tags := n.Tags
			if len(tags) == 0 {
				tags = n.Config.Tags
			}
			for _, t := range tags {
				add(t)
			}
		case "config":
			var cur any = e.config(i, n)
			for _, k := range c.Args {
				m, ok := cur.(map[string]any)
				if !ok {
					cur = nil
					break
				}
				cur = m[k]
			}
			switch v := cur.(type) {
			case string:
				add(v)
			case []any:
				for _, item := range v {
					if s, ok := item.(string); ok {
						add(s)
					}
				}
			}
		case "group":
			if g, ok := e.config(i, n)["group"].(string); ok {
				add(g)
			}
		case "package":
			add(n.PackageName)
		case "source":
			if n.ResourceType == dbt.Source {
				switch strings.Count(c.Value, ".") {
				case 0:
					add(n.SourceName)
				case 1:
					add(n.SourceName + "." + n.Name)
				default:
					add(n.PackageName + "." + n.SourceName + "." + n.Name)
				}
			}
		case "exposure", "metric", "semantic_model", "saved_query":
			if n.ResourceType == c.Method {
				add(n.Name)
			}
		case "test_name":
			switch {
			case n.ResourceType == dbt.Test && n.TestMetadata != nil:
				add(n.TestMetadata.Name)
			case n.ResourceType == dbt.UnitTest:
				add(n.Name)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
