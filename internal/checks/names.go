package checks

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Run types that DefaultName knows how to name. Any operation whose result has a CI verdict can
// be a check type (see Catalog); these are the peer's names.
const (
	TypeRowCount        = "row_count"
	TypeRowCountDiff    = "row_count_diff"
	TypeQuery           = "query"
	TypeQueryBase       = "query_base"
	TypeQueryDiff       = "query_diff"
	TypeProfile         = "profile"
	TypeProfileDiff     = "profile_diff"
	TypeValueDiff       = "value_diff"
	TypeValueDiffDetail = "value_diff_detail"
	TypeTopKDiff        = "top_k_diff"
	TypeHistogramDiff   = "histogram_diff"
	TypeLineageDiff     = "lineage_diff"
	TypeSchemaDiff      = "schema_diff"
)

// DefaultName is the display name given to a check created without one, e.g. "Value diff of
// orders", "Top-k diff of orders.status", "Row count diff of state:modified". Unlike Recce it keeps
// the model's letter case.
func DefaultName(typ string, params json.RawMessage) string {
	var p map[string]any
	_ = json.Unmarshal(params, &p)
	str := func(k string) string { s, _ := p[k].(string); return s }
	list := func(k string) []string {
		var out []string
		switch v := p[k].(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
		return out
	}
	title := typeTitle(typ)
	nodes := func(names []string) string {
		switch len(names) {
		case 0:
			if sel := str("select"); sel != "" {
				return title + " of " + sel
			}
			return title
		case 1:
			return title + " of " + names[0]
		}
		return fmt.Sprintf("%s of %d nodes", title, len(names))
	}
	switch typ {
	case TypeRowCount, TypeRowCountDiff:
		return nodes(append(list("node_names"), list("node_ids")...))
	case TypeSchemaDiff:
		return nodes(list("node_id"))
	case TypeLineageDiff:
		return nodes(list("node_ids"))
	case TypeTopKDiff, TypeHistogramDiff:
		return title + " of " + str("model") + "." + str("column_name")
	case TypeQuery, TypeQueryBase, TypeQueryDiff:
		if m := str("current_model"); m != "" {
			return title + " of " + m
		}
		return title
	}
	if m := str("model"); m != "" {
		return title + " of " + m
	}
	return title
}

func typeTitle(typ string) string {
	switch typ {
	case TypeTopKDiff:
		return "Top-k diff"
	case TypeQueryBase:
		return "Base query"
	}
	s := strings.ReplaceAll(typ, "_", " ")
	if s == "" {
		return "Check"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
