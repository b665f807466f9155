package selector

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
)

// View modes.
const (
	ViewAll            = "all"
	ViewChangedModels  = "changed_models"
	changedModelsQuery = "1+state:modified+"
)

// Options are Recce's select_nodes parameters.
type Options struct {
	// Select is a dbt selector; empty selects every node.
	Select string `json:"select,omitempty"`
	// Exclude is a dbt selector whose nodes are removed from the selection.
	Exclude string `json:"exclude,omitempty"`
	// Packages restricts the result to these packages (a union of
	// package:<p>). nil means the root project's package; an empty non-nil
	// slice means every package.
	Packages []string `json:"packages,omitempty"`
	// ViewMode "changed_models" intersects the result with 1+state:modified+;
	// "" or "all" does not.
	ViewMode string `json:"view_mode,omitempty"`
}

// Selector evaluates selectors over one union graph and its state
// comparison. It is immutable and safe for concurrent use.
type Selector struct {
	g     *dbt.Graph
	state map[string]dbt.NodeState
	root  string
}

// New returns a Selector. state is dbt.CompareState(base, current) (nil: no
// changes); rootPackage is the root project's package name (default: the
// current manifest's metadata.project_name, which is used when it is "").
func New(g *dbt.Graph, state map[string]dbt.NodeState, rootPackage string) *Selector {
	if rootPackage == "" && g.Current() != nil {
		rootPackage = g.Current().Metadata.ProjectName
	}
	return &Selector{g: g, state: state, root: rootPackage}
}

// Select is New(g, state, rootPackage).Select(opts).
func Select(g *dbt.Graph, state map[string]dbt.NodeState, rootPackage string, opts Options) ([]string, error) {
	return New(g, state, rootPackage).Select(opts)
}

// Select returns the sorted unique ids selected by opts: the intersection of
// (select minus exclude), the package filter and the view mode. Test and unit
// test nodes are dropped unless the select expression chooses them by type
// (resource_type:test, resource_type:unit_test, test_type:, test_name:).
// Disabled nodes are never in the graph and so never selected.
func (s *Selector) Select(opts Options) ([]string, error) {
	selectStr, excludeStr := opts.Select, opts.Exclude
	// Accept "a b --exclude c" in the select string, as the dbt CLI would read it.
	if i := indexField(selectStr, "--exclude"); i >= 0 {
		excludeStr = strings.TrimSpace(selectStr[i+len("--exclude"):] + " " + excludeStr)
		selectStr = selectStr[:i]
	}
	sel, err := Parse(selectStr)
	if err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	exc, err := Parse(excludeStr)
	if err != nil {
		return nil, fmt.Errorf("exclude: %w", err)
	}
	var mode Expr
	switch opts.ViewMode {
	case "", ViewAll:
	case ViewChangedModels:
		mode, _ = Parse(changedModelsQuery)
	default:
		return nil, fmt.Errorf("%w: unknown view_mode %q; use %q or %q", ErrInvalid, opts.ViewMode, ViewAll, ViewChangedModels)
	}
	ev := &eval{Selector: s, configs: map[string]map[string]any{}}
	var result map[string]bool
	if len(sel) == 0 {
		result = make(map[string]bool, s.g.Len())
		for _, id := range s.g.IDs() {
			result[id] = true
		}
	} else {
		result = ev.expr(sel)
	}
	if len(exc) > 0 {
		for id := range ev.expr(exc) {
			delete(result, id)
		}
	}
	packages := opts.Packages
	if packages == nil && s.root != "" {
		packages = []string{s.root}
	}
	keepTests := sel.selectsTests()
	out := make([]string, 0, len(result))
	for id := range result {
		n, ok := s.g.Node(id)
		if !ok {
			continue
		}
		if !keepTests && (n.ResourceType == dbt.Test || n.ResourceType == dbt.UnitTest) {
			continue
		}
		if len(packages) > 0 && !ev.inPackages(n, packages) {
			continue
		}
		out = append(out, id)
	}
	if mode != nil {
		changed := ev.expr(mode)
		kept := out[:0]
		for _, id := range out {
			if changed[id] {
				kept = append(kept, id)
			}
		}
		out = kept
	}
	sort.Strings(out)
	return out, nil
}

// indexField returns the byte offset of word as a whitespace-separated field of s, or -1.
func indexField(s, word string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], word)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(word)
		if (i == 0 || isSpace(s[i-1])) && (end == len(s) || isSpace(s[end])) {
			return i
		}
		off = end
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// eval holds per-call caches.
type eval struct {
	*Selector
	configs map[string]map[string]any
}

func (e *eval) expr(x Expr) map[string]bool {
	out := map[string]bool{}
	for _, inter := range x {
		var acc map[string]bool
		for i, c := range inter {
			got := e.criterion(c)
			if i == 0 {
				acc = got
				continue
			}
			for id := range acc {
				if !got[id] {
					delete(acc, id)
				}
			}
		}
		for id := range acc {
			out[id] = true
		}
	}
	return out
}

// criterion is dbt's get_nodes_from_criteria: the matching nodes plus the
// neighbours the graph operators ask for.
func (e *eval) criterion(c Criterion) map[string]bool {
	direct := map[string]bool{}
	for _, id := range e.g.IDs() {
		n, _ := e.g.Node(id)
		if e.match(c, id, n) {
			direct[id] = true
		}
	}
	if !c.ChildrensParents && !c.Parents && !c.Children {
		return direct
	}
	out := make(map[string]bool, len(direct))
	for id := range direct {
		out[id] = true
	}
	if c.ChildrensParents {
		down := e.g.DescendantsOf(direct, Unlimited)
		for id := range direct {
			down[id] = true
		}
		for id := range down {
			out[id] = true
		}
		for id := range e.g.AncestorsOf(down, Unlimited) {
			out[id] = true
		}
	}
	if c.Parents {
		for id := range e.g.AncestorsOf(direct, c.ParentsDepth) {
			out[id] = true
		}
	}
	if c.Children {
		for id := range e.g.DescendantsOf(direct, c.ChildrenDepth) {
			out[id] = true
		}
	}
	return out
}

func (e *eval) inPackages(n *dbt.Node, packages []string) bool {
	for _, p := range packages {
		if p == "this" {
			p = e.root
		}
		if fnmatch(n.PackageName, p) {
			return true
		}
	}
	return false
}

func (e *eval) match(c Criterion, id string, n *dbt.Node) bool {
	v := c.Value
	switch c.Method {
	case "fqn":
		return n.ResourceType != dbt.Source && fqnMatch(n, v)
	case methodName:
		return n.ResourceType != dbt.Source && (fqnMatch(n, v) || leafMatch(n, v))
	case "path":
		return pathMatch(n.OriginalFilePath, v)
	case "file":
		base := path.Base(strings.ReplaceAll(n.OriginalFilePath, "\\", "/"))
		return n.OriginalFilePath != "" && (fnmatch(base, v) || fnmatch(strings.TrimSuffix(base, path.Ext(base)), v))
	case "tag":
		tags := n.Tags
		if len(tags) == 0 {
			tags = n.Config.Tags
		}
		for _, t := range tags {
			if fnmatch(t, v) {
				return true
			}
		}
		return false
	case "config":
		return e.configMatch(id, n, c.Args, v)
	case "group":
		g, ok := e.config(id, n)["group"].(string)
		return ok && fnmatch(g, v)
	case "resource_type":
		return n.ResourceType == v
	case "package":
		if v == "this" {
			v = e.root
		}
		return fnmatch(n.PackageName, v)
	case "source":
		if n.ResourceType != dbt.Source {
			return false
		}
		pkg, src, tbl := "*", v, "*"
		switch parts := strings.Split(v, "."); len(parts) {
		case 2:
			src, tbl = parts[0], parts[1]
		case 3:
			pkg, src, tbl = parts[0], parts[1], parts[2]
		}
		return fnmatch(n.PackageName, pkg) && fnmatch(n.SourceName, src) && fnmatch(n.Name, tbl)
	case "exposure", "metric", "semantic_model", "saved_query":
		if n.ResourceType != c.Method {
			return false
		}
		pkg, name := "*", v
		if parts := strings.Split(v, "."); len(parts) == 2 {
			pkg, name = parts[0], parts[1]
		}
		return fnmatch(n.PackageName, pkg) && fnmatch(n.Name, name)
	case "test_type":
		switch v {
		case "generic", "schema":
			return n.ResourceType == dbt.Test && n.TestMetadata != nil
		case "singular":
			return n.ResourceType == dbt.Test && n.TestMetadata == nil
		case "data":
			return n.ResourceType == dbt.Test
		case "unit":
			return n.ResourceType == dbt.UnitTest
		}
		return false
	case "test_name":
		switch {
		case n.ResourceType == dbt.Test && n.TestMetadata != nil:
			return fnmatch(n.TestMetadata.Name, v)
		case n.ResourceType == dbt.UnitTest:
			return fnmatch(n.Name, v)
		}
		return false
	case "state":
		return e.stateMatch(id, v)
	}
	return false
}

// stateMatch answers dbt's state: method from the CompareState result. A node
// absent from base is modified (and matches every content sub-selector that
// CompareState lists for it); a removed node matches state:modified and
// state:modified.body.
func (e *eval) stateMatch(id, v string) bool {
	st, changed := e.state[id]
	switch v {
	case "new":
		return changed && st.ChangeStatus == dbt.ChangeAdded
	case "old":
		return e.g.InBase(id)
	case "modified":
		return changed
	case "unmodified":
		return !changed
	}
	kind, ok := strings.CutPrefix(v, "modified.")
	return ok && changed && st.Has(dbt.Modification(kind))
}

func (e *eval) config(id string, n *dbt.Node) map[string]any {
	if m, ok := e.configs[id]; ok {
		return m
	}
	var m map[string]any
	if len(n.ConfigRaw) > 0 {
		_ = json.Unmarshal(n.ConfigRaw, &m) // a non-object config has no keys
	}
	e.configs[id] = m
	return m
}

// configMatch is dbt's ConfigSelectorMethod over the rendered config.
func (e *eval) configMatch(id string, n *dbt.Node, keys []string, want string) bool {
	var cur any = e.config(id, n)
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[k]; !ok {
			return false
		}
	}
	caseInsensitive := len(keys) == 1 && keys[0] == "severity"
	if list, ok := cur.([]any); ok {
		for _, item := range list {
			if scalarEquals(item, want, caseInsensitive) {
				return true
			}
		}
		return false
	}
	return scalarEquals(cur, want, caseInsensitive)
}

func scalarEquals(v any, want string, caseInsensitive bool) bool {
	switch x := v.(type) {
	case string:
		if caseInsensitive {
			return strings.EqualFold(x, want)
		}
		return x == want
	case bool:
		return strings.EqualFold(want, strconv.FormatBool(x))
	case float64:
		f, err := strconv.ParseFloat(want, 64)
		return err == nil && f == x
	}
	return false
}

// fqnMatch is dbt's QualifiedNameSelectorMethod: the selector matches the
// fqn, or the fqn without its package.
func fqnMatch(n *dbt.Node, sel string) bool {
	versioned := n.ResourceType == dbt.Model && len(n.Version) > 0 && string(n.Version) != "null"
	return isSelectedNode(n.FQN, sel, versioned) || (len(n.FQN) > 1 && isSelectedNode(n.FQN[1:], sel, versioned))
}

// leafMatch lets an unqualified wildcard without dots ("stg_*") match the
// node's name even inside model folders, where dbt's fqn matching (which
// fnmatches "staging.stg_orders") would not: users and agents expect it.
func leafMatch(n *dbt.Node, sel string) bool {
	if len(n.FQN) == 0 || strings.Contains(sel, ".") || !strings.ContainsAny(sel, "*?[") {
		return false
	}
	return fnmatch(n.FQN[len(n.FQN)-1], sel)
}

// isSelectedNode is dbt's is_selected_node.
func isSelectedNode(fqn []string, sel string, versioned bool) bool {
	if len(fqn) == 0 {
		return false
	}
	last := len(fqn) - 1
	selParts := strings.Split(sel, ".")
	if versioned && len(fqn) >= 2 {
		if fqn[last-1] == sel || fqn[last-1]+"_"+fqn[last] == sel {
			return true
		}
		if len(selParts) >= 2 && fqn[last-1] == selParts[len(selParts)-2] && fqn[last] == selParts[len(selParts)-1] {
			return true
		}
	} else if fqn[last] == sel {
		return true
	}
	var flat []string
	for _, seg := range fqn {
		flat = append(flat, strings.Split(seg, ".")...)
	}
	if len(flat) < len(selParts) {
		return false
	}
	for i, part := range selParts {
		if strings.ContainsAny(part, "*?[]") {
			return fnmatch(strings.Join(flat[i:], "."), strings.Join(selParts[i:], "."))
		}
		if flat[i] != part {
			return false
		}
	}
	return true
}

// pathMatch is dbt's PathSelectorMethod without a file system: the
// selector, a glob relative to the project root, matches the node's file or
// one of its parent directories.
func pathMatch(file, sel string) bool {
	if file == "" {
		return false
	}
	file = path.Clean(strings.ReplaceAll(file, "\\", "/"))
	sel = path.Clean(strings.ReplaceAll(sel, "\\", "/"))
	if sel == "." {
		return true
	}
	pat := strings.Split(sel, "/")
	segs := strings.Split(file, "/")
	for i := len(segs); i > 0; i-- {
		if globSegments(segs[:i], pat) {
			return true
		}
	}
	return false
}

// globSegments matches path segments against glob segments ("**" matches
// any number of segments, other segments use fnmatch). It is a dynamic
// programme, so patterns with many "**" stay linear in their length.
func globSegments(segs, pat []string) bool {
	// ok[j] reports whether pat[j:] matches segs[i:] for the current i.
	ok := make([]bool, len(pat)+1)
	next := make([]bool, len(pat)+1)
	for i := len(segs); i >= 0; i-- {
		for j := len(pat); j >= 0; j-- {
			switch {
			case j == len(pat):
				next[j] = i == len(segs)
			case pat[j] == "**":
				next[j] = next[j+1] || (i < len(segs) && ok[j])
			default:
				next[j] = i < len(segs) && fnmatch(segs[i], pat[j]) && ok[j+1]
			}
		}
		ok, next = next, ok
	}
	return ok[0]
}
