package selector

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
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
	// package:<p>). nil means DefaultPackages (the root project's package,
	// or every package when the root owns no model, seed or snapshot); an
	// empty non-nil slice means every package.
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
	// rootOwnsNodes: the root package has a model, seed or snapshot.
	rootOwnsNodes bool
}

// New returns a Selector. state is dbt.CompareState(base, current) (nil: no
// changes); rootPackage is the root project's package name (default: the
// current manifest's metadata.project_name, which is used when it is "").
func New(g *dbt.Graph, state map[string]dbt.NodeState, rootPackage string) *Selector {
	if rootPackage == "" && g != nil && g.Current() != nil {
		rootPackage = g.Current().Metadata.ProjectName
	}
	sel := &Selector{g: g, state: state, root: rootPackage}
	sel.rootOwnsNodes = sel.ownsNodes(rootPackage)
	return sel
}

// ownsNodes reports whether package p has a model, seed or snapshot in
// either build.
func (s *Selector) ownsNodes(p string) bool {
	if s.g == nil || p == "" {
		return false
	}
	for i := 0; i < s.g.Len(); i++ {
		n := s.g.NodeAt(i)
		if n.PackageName == p && (n.ResourceType == dbt.Model || n.ResourceType == dbt.Seed || n.ResourceType == dbt.Snapshot) {
			return true
		}
	}
	return false
}

// DefaultPackages is the package scope of every operation that selects
// nodes when it is given no packages: the root project's package (Recce's
// default), or every package (nil) when the root project owns no model,
// seed or snapshot (a project whose models all live in installed packages,
// where the root-only default would show nothing).
func (s *Selector) DefaultPackages() []string {
	if s.root == "" || !s.rootOwnsNodes {
		return nil
	}
	return []string{s.root}
}

// InScope reports whether n is in packages (nil: DefaultPackages; empty:
// every package).
func (s *Selector) InScope(n *dbt.Node, packages []string) bool {
	if packages == nil {
		packages = s.DefaultPackages()
	}
	if len(packages) == 0 {
		return true
	}
	return (&eval{Selector: s}).inPackages(n, packages)
}

// OutOfScopeChanges lists, sorted, the changed models, seeds, snapshots and
// sources (added, removed or modified) outside packages (nil: the default
// scope): what a package-scoped result does not show.
func (s *Selector) OutOfScopeChanges(packages []string) []string {
	var out []string
	for id := range s.state {
		n, ok := s.g.Node(id)
		if !ok || !(n.ResourceType == dbt.Model || n.ResourceType == dbt.Seed || n.ResourceType == dbt.Snapshot || n.ResourceType == dbt.Source) {
			continue
		}
		if !s.InScope(n, packages) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
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
	if s.g == nil {
		return nil, fmt.Errorf("selector: no project graph; load the dbt artifacts first")
	}
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
	ev := &eval{Selector: s, n: s.g.Len()}
	var result []bool
	if len(sel) == 0 {
		result = make([]bool, ev.n)
		for i := range result {
			result[i] = true
		}
	} else {
		result = ev.expr(sel)
	}
	if len(exc) > 0 {
		for i, on := range ev.expr(exc) {
			if on {
				result[i] = false
			}
		}
	}
	if mode != nil {
		for i, on := range ev.expr(mode) {
			if !on {
				result[i] = false
			}
		}
	}
	packages := opts.Packages
	if packages == nil {
		packages = s.DefaultPackages()
	}
	keepTests := sel.selectsTests()
	ids := s.g.IDs()
	out := []string{}
	for i, on := range result {
		if !on {
			continue
		}
		n := s.g.NodeAt(i)
		if !keepTests && (n.ResourceType == dbt.Test || n.ResourceType == dbt.UnitTest) {
			continue
		}
		if len(packages) > 0 && !ev.inPackages(n, packages) {
			continue
		}
		out = append(out, ids[i]) // ids are sorted, so out is too
	}
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

// eval holds per-call state; sets are masks indexed by graph node number.
type eval struct {
	*Selector
	n       int
	configs []map[string]any
	decoded []bool
}

func (e *eval) expr(x Expr) []bool {
	out := make([]bool, e.n)
	for _, inter := range x {
		var acc []bool
		for k, c := range inter {
			got := e.criterion(c)
			if k == 0 {
				acc = got
				continue
			}
			for i := range acc {
				acc[i] = acc[i] && got[i]
			}
		}
		for i, on := range acc {
			if on {
				out[i] = true
			}
		}
	}
	return out
}

// criterion is dbt's get_nodes_from_criteria: the matching nodes plus the
// neighbours the graph operators ask for.
func (e *eval) criterion(c Criterion) []bool {
	direct := make([]bool, e.n)
	ids := e.g.IDs()
	for i := range direct {
		direct[i] = e.match(c, i, ids[i], e.g.NodeAt(i))
	}
	if !c.ChildrensParents && !c.Parents && !c.Children {
		return direct
	}
	out := slices.Clone(direct)
	or := func(m []bool) {
		for i, on := range m {
			if on {
				out[i] = true
			}
		}
	}
	if c.ChildrensParents {
		down := e.g.DescendantsMask(direct, Unlimited)
		for i, on := range direct {
			if on {
				down[i] = true
			}
		}
		or(down)
		or(e.g.AncestorsMask(down, Unlimited))
	}
	if c.Parents {
		or(e.g.AncestorsMask(direct, c.ParentsDepth))
	}
	if c.Children {
		or(e.g.DescendantsMask(direct, c.ChildrenDepth))
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

func (e *eval) match(c Criterion, i int, id string, n *dbt.Node) bool {
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
		return e.configMatch(i, n, c.Args, v)
	case "group":
		g, ok := e.config(i, n)["group"].(string)
		return ok && fnmatch(g, v)
	case "access":
		// dbt writes access into the model config since 1.7.
		a, ok := e.config(i, n)["access"].(string)
		return ok && n.ResourceType == dbt.Model && a == v
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
		return e.stateMatch(i, id, v)
	}
	return false
}

// stateMatch answers dbt's state: method from the CompareState result. A node
// absent from base is modified (and matches every content sub-selector that
// CompareState lists for it); a removed node matches state:modified and
// state:modified.body.
func (e *eval) stateMatch(i int, id, v string) bool {
	st, changed := e.state[id]
	switch v {
	case "new":
		return changed && st.ChangeStatus == dbt.ChangeAdded
	case "old":
		return e.g.InBaseAt(i)
	case "modified":
		return changed
	case "unmodified":
		return !changed
	}
	kind, ok := strings.CutPrefix(v, "modified.")
	return ok && changed && st.Has(dbt.Modification(kind))
}

func (e *eval) config(i int, n *dbt.Node) map[string]any {
	if e.configs == nil {
		e.configs = make([]map[string]any, e.n)
		e.decoded = make([]bool, e.n)
	}
	if !e.decoded[i] {
		e.decoded[i] = true
		if len(n.ConfigRaw) > 0 {
			_ = json.Unmarshal(n.ConfigRaw, &e.configs[i]) // a non-object config has no keys
		}
	}
	return e.configs[i]
}

// configMatch is dbt's ConfigSelectorMethod over the rendered config.
func (e *eval) configMatch(i int, n *dbt.Node, keys []string, want string) bool {
	var cur any = e.config(i, n)
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
