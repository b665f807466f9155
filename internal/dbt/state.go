package dbt

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
)

// Modification is one kind of change dbt's state:modified.<kind> selector detects.
type Modification string

// The modification kinds, named after dbt's state:modified sub-selectors.
const (
	ModBody                  Modification = "body"
	ModConfigs               Modification = "configs"
	ModRelation              Modification = "relation"
	ModPersistedDescriptions Modification = "persisted_descriptions"
	ModMacros                Modification = "macros"
	ModContract              Modification = "contract"
)

// Change statuses reported in NodeState.ChangeStatus.
const (
	ChangeAdded    = "added"
	ChangeRemoved  = "removed"
	ChangeModified = "modified"
)

// NodeState is how one node differs between the base and current builds.
type NodeState struct {
	// ChangeStatus is "added" (current only), "removed" (base only) or "modified".
	ChangeStatus string `json:"change_status"`
	// Modifications lists, sorted, the dbt state:modified.<kind> sub-selectors
	// the node matches. A modified node may have none (dbt's state:modified also
	// catches fqn, source quoting/freshness and exposure/metric description
	// changes, which no sub-selector names). Added nodes carry every kind dbt
	// attributes to a node without a previous version; removed nodes carry
	// "body" (dbt/Recce's `__removed__` raw_code trick).
	Modifications []Modification `json:"modifications,omitempty"`
}

// Has reports whether the state includes modification m.
func (s NodeState) Has(m Modification) bool { return slices.Contains(s.Modifications, m) }

// kinds of entries, by the comparison dbt applies to them.
const (
	kindParsed        = iota // manifest "nodes": models, seeds, snapshots, tests, analyses, hooks
	kindSource               // sources
	kindUnrenderedCfg        // exposures, metrics, unit tests: compare unrendered_config
	kindRenderedCfg          // semantic models, saved queries: compare rendered config
)

func entryKind(n *Node) int {
	switch n.ResourceType {
	case Source:
		return kindSource
	case Exposure, Metric, UnitTest:
		return kindUnrenderedCfg
	case SemanticModel, SavedQuery:
		return kindRenderedCfg
	}
	return kindParsed
}

// configKeysDbtIgnores are the NodeAndTestConfig fields dbt excludes from
// same_config (CompareBehavior.Exclude): they are compared by
// same_database_representation or are not considered changes.
var configKeysDbtIgnores = map[string]bool{"alias": true, "schema": true, "database": true, "tags": true, "group": true}

// CompareState returns an entry for every node id whose state differs
// between base and current; unchanged ids are absent. It follows dbt's
// state:modified semantics (with state_modified_compare_more_unrendered_values)
// for manifest nodes, sources, exposures, metrics, semantic models, saved
// queries and unit tests. Disabled entries never appear: a node enabled on
// one side only is added or removed. Nil manifests are treated as empty.
func CompareState(base, current *Manifest) map[string]NodeState {
	baseAll, curAll := allOf(base), allOf(current)
	out := make(map[string]NodeState)
	mc := newMacroChecker(macrosOf(base), macrosOf(current))
	for id, n := range curAll {
		old, ok := baseAll[id]
		if !ok {
			out[id] = NodeState{ChangeStatus: ChangeAdded, Modifications: addedMods(n, mc)}
			continue
		}
		if changed, mods := compareEntry(old, n, mc); changed {
			out[id] = NodeState{ChangeStatus: ChangeModified, Modifications: mods}
		}
	}
	for id, old := range baseAll {
		if _, ok := curAll[id]; ok {
			continue
		}
		var mods []Modification
		if entryKind(old) == kindParsed {
			mods = append(mods, ModBody)
			if mc.nodeDirty(old) {
				mods = append(mods, ModMacros)
			}
		}
		out[id] = NodeState{ChangeStatus: ChangeRemoved, Modifications: mods}
	}
	return out
}

func allOf(m *Manifest) map[string]*Node {
	if m == nil {
		return nil
	}
	return m.all
}

func macrosOf(m *Manifest) map[string]*Macro {
	if m == nil {
		return nil
	}
	return m.Macros
}

// addedMods is what dbt's sub-selectors report for a node without a previous
// version: every check_modified_factory comparison the resource implements
// is true, and .macros is true only when an upstream macro changed.
func addedMods(n *Node, mc *macroChecker) []Modification {
	dirty := mc.nodeDirty(n)
	switch entryKind(n) {
	case kindParsed:
		mods := []Modification{ModBody, ModConfigs, ModContract}
		if dirty {
			mods = append(mods, ModMacros)
		}
		return append(mods, ModPersistedDescriptions, ModRelation)
	case kindSource:
		return []Modification{ModConfigs, ModRelation}
	}
	if dirty {
		return []Modification{ModConfigs, ModMacros}
	}
	return []Modification{ModConfigs}
}

// compareEntry compares two versions of the same id. mods is sorted.
func compareEntry(old, cur *Node, mc *macroChecker) (changed bool, mods []Modification) {
	var body, configs, contract, persisted, relation, other bool
	switch entryKind(cur) {
	case kindParsed:
		if cur.ResourceType == Seed {
			body = old.Checksum != cur.Checksum
		} else {
			body = old.Code() != cur.Code()
		}
		configs = !sameUnrenderedConfig(old.UnrenderedConfig, cur.UnrenderedConfig, configKeysDbtIgnores)
		persisted = !samePersistedDescription(old, cur)
		relation = !sameUnrenderedRelation(old.UnrenderedConfig, cur.UnrenderedConfig)
		contract = cur.ResourceType == Model && !sameContract(old, cur)
		other = !slices.Equal(old.FQN, cur.FQN)
	case kindSource:
		relation = old.Database != cur.Database || old.Schema != cur.Schema ||
			old.Identifier != cur.Identifier || old.Name != cur.Name
		configs = !sameUnrenderedConfig(old.UnrenderedConfig, cur.UnrenderedConfig, nil)
		other = !slices.Equal(old.FQN, cur.FQN) || !jsonEqual(old.Config.Freshness, cur.Config.Freshness)
	case kindUnrenderedCfg:
		configs = !sameUnrenderedConfig(old.UnrenderedConfig, cur.UnrenderedConfig, nil)
		other = !slices.Equal(old.FQN, cur.FQN) || old.Description != cur.Description ||
			!sameStringSet(old.DependsOn.Nodes, cur.DependsOn.Nodes)
		if cur.ResourceType == UnitTest {
			other = other || old.Checksum != cur.Checksum
		}
	case kindRenderedCfg:
		configs = !jsonEqual(old.ConfigRaw, cur.ConfigRaw)
		// depends_on stands in for same_model / same_metrics, which
		// Ripple does not decode.
		other = old.Description != cur.Description || !sameStringSet(old.DependsOn.Nodes, cur.DependsOn.Nodes)
	}
	macros := mc.nodeDirty(cur)
	// Sorted order: body, configs, contract, macros, persisted_descriptions, relation.
	for _, m := range []struct {
		on  bool
		mod Modification
	}{{body, ModBody}, {configs, ModConfigs}, {contract, ModContract}, {macros, ModMacros}, {persisted, ModPersistedDescriptions}, {relation, ModRelation}} {
		if m.on {
			mods = append(mods, m.mod)
		}
	}
	return len(mods) > 0 || other, mods
}

// samePersistedDescription is dbt's same_persisted_description: descriptions
// only matter where the current node persists them.
func samePersistedDescription(old, cur *Node) bool {
	pd := cur.Config.PersistDocs
	if pd.Relation && old.Description != cur.Description {
		return false
	}
	if pd.Columns {
		if len(old.Columns) != len(cur.Columns) {
			return false
		}
		for name, c := range cur.Columns {
			o, ok := old.Columns[name]
			if !ok || describe(o) != describe(c) {
				return false
			}
		}
	}
	return true
}

func describe(c *Column) string {
	if c == nil {
		return ""
	}
	return c.Description
}

// sameContract is ModelNode.same_contract.
func sameContract(old, cur *Node) bool {
	oe := old.Contract.Enforced || old.Config.Contract.Enforced
	ce := cur.Contract.Enforced || cur.Config.Contract.Enforced
	switch {
	case !oe && !ce:
		return true
	case oe != ce:
		return false
	}
	if old.Contract.Checksum != "" || cur.Contract.Checksum != "" {
		return old.Contract.Checksum == cur.Contract.Checksum
	}
	// No checksum recorded: compare the contracted column types.
	if len(old.Columns) != len(cur.Columns) {
		return false
	}
	for name, c := range cur.Columns {
		o, ok := old.Columns[name]
		if !ok || o == nil || c == nil || o.DataType != c.DataType {
			return false
		}
	}
	return true
}

// sameUnrenderedConfig is dbt's BaseConfig.same_contents over the two
// unrendered configs: every key but the ignored ones must be present on both
// sides or neither, with equal values. Bytes are compared first; the configs
// are decoded only when they differ.
func sameUnrenderedConfig(a, b json.RawMessage, ignore map[string]bool) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ma, mb := decodeObject(a), decodeObject(b)
	for k, va := range ma {
		if ignore[k] {
			continue
		}
		vb, ok := mb[k]
		if !ok || !jsonEqual(va, vb) {
			return false
		}
	}
	for k := range mb {
		if ignore[k] {
			continue
		}
		if _, ok := ma[k]; !ok {
			return false
		}
	}
	return true
}

// sameUnrenderedRelation is ParsedNode.same_database_representation: the
// configured (unrendered) database, schema and alias, not the resolved ones.
func sameUnrenderedRelation(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ma, mb := decodeObject(a), decodeObject(b)
	for _, k := range [...]string{"database", "schema", "alias"} {
		if !jsonEqual(nullIfMissing(ma[k]), nullIfMissing(mb[k])) {
			return false
		}
	}
	return true
}

var jsonNull = json.RawMessage("null")

func nullIfMissing(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return jsonNull
	}
	return v
}

func decodeObject(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m) // a non-object config compares as empty
	}
	return m
}

// jsonEqual compares two JSON values semantically (key order, spacing and
// number spelling do not matter). Missing values equal null.
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if len(a) > 0 {
		if err := json.Unmarshal(a, &va); err != nil {
			return false
		}
	}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &vb); err != nil {
			return false
		}
	}
	return reflect.DeepEqual(va, vb)
}

func sameStringSet(a, b []string) bool {
	if slices.Equal(a, b) {
		return true
	}
	sa := make(map[string]bool, len(a))
	for _, s := range a {
		sa[s] = true
	}
	sb := make(map[string]bool, len(b))
	for _, s := range b {
		if !sa[s] {
			return false
		}
		sb[s] = true
	}
	return len(sa) == len(sb)
}

// macroChecker answers dbt's check_macros_modified: does a node depend,
// directly or through other macros, on a macro whose macro_sql differs
// between the builds (or that exists on one side only)?
type macroChecker struct {
	dirty map[string]bool // nil when no macro changed
}

func newMacroChecker(base, cur map[string]*Macro) *macroChecker {
	var changed []string
	for id, m := range cur {
		if b, ok := base[id]; !ok || b == nil || m == nil || b.MacroSQL != m.MacroSQL {
			changed = append(changed, id)
		}
	}
	for id := range base {
		if _, ok := cur[id]; !ok {
			changed = append(changed, id)
		}
	}
	mc := &macroChecker{}
	if len(changed) == 0 {
		return mc
	}
	// Reverse macro dependencies over the union of both builds (current
	// wins), then mark everything that reaches a changed macro.
	users := make(map[string][]string)
	addUsers := func(id string, m *Macro) {
		if m == nil {
			return
		}
		for _, dep := range m.DependsOn.Macros {
			users[dep] = append(users[dep], id)
		}
	}
	for id, m := range cur {
		addUsers(id, m)
	}
	for id, m := range base {
		if _, ok := cur[id]; !ok {
			addUsers(id, m)
		}
	}
	mc.dirty = make(map[string]bool, len(changed))
	queue := changed
	for _, id := range changed {
		mc.dirty[id] = true
	}
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, u := range users[id] {
			if !mc.dirty[u] {
				mc.dirty[u] = true
				queue = append(queue, u)
			}
		}
	}
	return mc
}

func (mc *macroChecker) nodeDirty(n *Node) bool {
	if mc.dirty == nil {
		return false
	}
	for _, m := range n.DependsOn.Macros {
		if mc.dirty[m] {
			return true
		}
	}
	return false
}
