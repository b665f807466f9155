package static

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shop builds a small project covering every basis:
//   - customers: tested PK customer_id; email unique but nullable.
//   - orders: declared PK order_id (constraint) and a tested unique order_number;
//     customer_id → customers declared (constraint) + tested + joined.
//   - payments: no tests; payments.order_id = orders.order_id joined in order_summary.
//   - refunds: refunds.payment_id named after payments (inferred only).
//   - events: incremental unique_key (event_id, ts), no tests.
//   - line_items: unique_combination_of_columns (order_id, line_no); order_id → orders tested.
//   - notes: composite foreign key (order_id, line_no) → line_items declared.
func shop(t testing.TB) (*Project, *fakeLineage) {
	m := newMF()
	cust := m.model("customers", []string{"customer_id", "name", "email"}, nil)
	m.test("unique", cust, "customer_id", nil, nil)
	m.test("not_null", cust, "customer_id", nil, nil)
	m.test("unique", cust, "email", nil, nil)
	ordCols := cols("order_id", "order_number", "customer_id", "amount")
	ordCols["customer_id"] = map[string]any{"name": "customer_id", "data_type": "integer",
		"constraints": []any{map[string]any{"type": "foreign_key", "to": "ref('customers')", "to_columns": []string{"customer_id"}}}}
	ord := m.model("orders", nil, map[string]any{"columns": ordCols,
		"constraints": []any{map[string]any{"type": "primary_key", "columns": []string{"order_id"}}}})
	m.test("unique", ord, "order_number", nil, nil)
	m.test("not_null", ord, "order_number", nil, nil)
	m.test("not_null", ord, "customer_id", nil, nil)
	m.test("relationships", ord, "customer_id", map[string]any{"to": "ref('customers')", "field": "customer_id"}, nil)
	pay := m.model("payments", []string{"payment_id", "order_id", "amount"}, nil)
	m.model("refunds", []string{"refund_id", "payment_id"}, nil)
	m.model("events", []string{"event_id", "ts", "kind"}, map[string]any{"config": map[string]any{"materialized": "incremental", "unique_key": []string{"event_id", "ts"},
		"freshness": map[string]any{"build_after": map[string]any{"count": 4, "period": "hour", "updates_on": "all"}}}})
	li := m.model("line_items", []string{"order_id", "line_no", "sku"}, nil)
	m.test("unique_combination_of_columns", li, "", map[string]any{"combination_of_columns": []string{"order_id", "line_no"}}, nil)
	m.test("relationships", li, "order_id", map[string]any{"to": "ref('orders')", "field": "order_id"}, nil)
	m.test("relationships", li, "sku", map[string]any{"to": "ref('products')", "field": "sku"}, map[string]any{"where": "sku is not null"})
	notes := m.model("notes", []string{"note_id", "order_id", "line_no"}, map[string]any{"constraints": []any{map[string]any{
		"type": "foreign_key", "columns": []string{"order_id", "line_no"}, "to": "ref('line_items')", "to_columns": []string{"order_id", "line_no"}}}})
	m.test("unique", notes, "note_id", nil, nil)
	m.test("not_null", notes, "note_id", nil, nil)
	sum := m.model("order_summary", []string{"customer_id", "order_id", "paid"}, nil)
	m.source("shop", "raw_customers", []string{"id", "name"})
	lin := &fakeLineage{
		cols: map[string][]ColumnInputs{
			sum: {
				{Column: "customer_id", Inputs: []ColumnRef{{cust, "customer_id"}}, Transformation: "identity"},
				{Column: "order_id", Inputs: []ColumnRef{{ord, "order_id"}}, Transformation: "identity"},
				{Column: "paid", Inputs: []ColumnRef{{pay, "amount"}}, Transformation: "aggregation"},
			},
		},
		rows: map[string][]RowInput{sum: {{Column: ColumnRef{pay, "order_id"}, Kind: "join"}}},
		joins: map[string][]JoinEvidence{sum: {
			{Model: sum, LeftNode: cust, LeftColumns: []string{"customer_id"}, RightNode: ord, RightColumns: []string{"customer_id"}},
			{Model: sum, LeftNode: ord, LeftColumns: []string{"order_id"}, RightNode: pay, RightColumns: []string{"order_id"}},
		}},
		opaque: []OpaqueNode{{Node: "model.p.events", Reason: "no SQL"}},
	}
	return New(m.env(t), Options{Lineage: lin}), lin
}

func findRel(rs []Relationship, from, to string) *Relationship {
	for i := range rs {
		if rs[i].From == from && rs[i].To == to {
			return &rs[i]
		}
	}
	return nil
}

func TestERDBasisPrecedence(t *testing.T) {
	ctx := context.Background()
	p, _ := shop(t)
	res, err := ERD(ctx, p, ERDInput{All: true})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]*ERDEntity{}
	for i := range res.Entities {
		keys[res.Entities[i].Name] = &res.Entities[i]
	}
	tests := []struct {
		entity, cols, basis, note string
	}{
		{"customers", "customer_id", BasisTested, ""},
		{"orders", "order_id", BasisDeclared, ""}, // declared beats the tested order_number
		{"events", "event_id,ts", BasisDeclared, "nullability untested"},
		{"line_items", "order_id,line_no", BasisTested, "nullability untested"},
	}
	for _, tc := range tests {
		e := keys[tc.entity]
		if e == nil || e.PrimaryKey == nil {
			t.Fatalf("%s: no primary key", tc.entity)
		}
		if got := strings.Join(e.PrimaryKey.Columns, ","); got != tc.cols || e.PrimaryKey.Basis != tc.basis || e.PrimaryKey.Note != tc.note {
			t.Errorf("%s PK = %s %s %q, want %s %s %q", tc.entity, got, e.PrimaryKey.Basis, e.PrimaryKey.Note, tc.cols, tc.basis, tc.note)
		}
	}
	if u := keys["orders"].UniqueKeys; len(u) != 1 || u[0].Columns[0] != "order_number" || !u[0].NotNull {
		t.Errorf("orders unique keys = %+v, want tested not-null order_number", u)
	}
	if u := keys["customers"].UniqueKeys; len(u) != 1 || u[0].Columns[0] != "email" || u[0].NotNull {
		t.Errorf("customers unique keys = %+v, want nullable email", u)
	}
	if keys["payments"].PrimaryKey != nil {
		t.Errorf("payments has no trusted key, got %+v", keys["payments"].PrimaryKey)
	}

	rels := []struct {
		from, to, basis, card string
		kinds                 string
		optional              bool
	}{
		{"orders", "customers", BasisDeclared, ManyToOne, "constraint,test,join", false},
		{"payments", "orders", BasisJoined, ManyToOne, "join", true},
		{"line_items", "orders", BasisTested, ManyToOne, "test", true},
		{"notes", "line_items", BasisDeclared, ManyToOne, "constraint", true},
	}
	for _, tc := range rels {
		r := findRel(res.Relationships, tc.from, tc.to)
		if r == nil {
			t.Fatalf("no relationship %s → %s in %+v", tc.from, tc.to, res.Relationships)
		}
		var kinds []string
		for _, ev := range r.Evidence {
			kinds = append(kinds, ev.Kind)
		}
		if r.Basis != tc.basis || r.Cardinality != tc.card || strings.Join(kinds, ",") != tc.kinds || r.Optional != tc.optional {
			t.Errorf("%s → %s = %s %s %v optional=%v, want %s %s %s optional=%v", tc.from, tc.to, r.Basis, r.Cardinality, kinds, r.Optional, tc.basis, tc.card, tc.kinds, tc.optional)
		}
	}
	if findRel(res.Relationships, "refunds", "payments") != nil {
		t.Error("an inferred relationship appeared without infer")
	}
	if len(res.Relationships) != 4 {
		t.Errorf("got %d relationships, want 4", len(res.Relationships))
	}
	var sawWhere bool
	for _, d := range res.Diagnostics {
		sawWhere = sawWhere || strings.Contains(d, "where filter")
	}
	if !sawWhere {
		t.Errorf("the filtered relationships test was not reported: %v", res.Diagnostics)
	}

	inf, err := ERD(ctx, p, ERDInput{Infer: true, Select: []string{"refunds"}, Format: "mermaid"})
	if err != nil {
		t.Fatal(err)
	}
	r := findRel(inf.Relationships, "refunds", "payments")
	if r == nil || r.Basis != BasisInferred || r.Cardinality != UnknownCardinality {
		t.Fatalf("refunds → payments = %+v, want inferred with unknown cardinality", r)
	}
	if !strings.Contains(inf.Diagram, "payments }o..o{ refunds") {
		t.Errorf("mermaid diagram lacks the dotted inferred edge:\n%s", inf.Diagram)
	}
	// A guess never overrides a tested fact: orders.customer_id is not re-inferred.
	all, _ := ERD(ctx, p, ERDInput{Infer: true})
	n := 0
	for _, r := range all.Relationships {
		if r.From == "orders" && r.FromColumns[0] == "customer_id" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("orders.customer_id has %d relationships with infer, want 1", n)
	}
	dot, _ := ERD(ctx, p, ERDInput{Infer: true, Format: "dot", Select: []string{"refunds"}})
	if !strings.Contains(dot.Diagram, `"refunds" -> "payments"`) || !strings.Contains(dot.Diagram, "style=dashed") {
		t.Errorf("dot diagram:\n%s", dot.Diagram)
	}
}

func TestERDWithoutLineage(t *testing.T) {
	m := newMF()
	a := m.model("a", []string{"a_id"}, nil)
	b := m.model("b", []string{"b_id", "a_id"}, nil)
	m.test("unique", a, "a_id", nil, nil)
	m.test("not_null", a, "a_id", nil, nil)
	_ = b
	p := New(m.env(t), Options{})
	res, err := ERD(context.Background(), p, ERDInput{})
	if err != nil {
		t.Fatal(err)
	}
	if res.JoinEvidence || len(res.Relationships) != 0 || len(res.Entities) != 1 {
		t.Errorf("got %+v", res)
	}
	res, _ = ERD(context.Background(), p, ERDInput{Infer: true})
	if r := findRel(res.Relationships, "b", "a"); r == nil || r.Cardinality != ManyToOne || r.Basis != BasisInferred {
		t.Errorf("inferred b → a = %+v", r)
	}
}

func TestPlanQueryFanOut(t *testing.T) {
	ctx := context.Background()
	p, _ := shop(t)
	tests := []struct {
		name     string
		in       PlanQueryInput
		repeats  []bool
		cards    []string
		warnings []string
		sql      []string
	}{
		{
			name: "to the one side", in: PlanQueryInput{Entities: []string{"orders", "customers"}},
			repeats: []bool{false}, cards: []string{ManyToOne},
			sql: []string{`from {{ ref('orders') }} as "o"`, "left join {{ ref('customers') }} as \"c\"\n    on \"o\".\"customer_id\" = \"c\".\"customer_id\""},
		},
		{
			name: "to the many side", in: PlanQueryInput{Entities: []string{"customers", "orders"}},
			repeats: []bool{true}, cards: []string{"one_to_many"},
			warnings: []string{"joining orders repeats rows", "Aggregate orders by customer_id in a subquery first"},
		},
		{
			name: "joined in SQL, many side", in: PlanQueryInput{Entities: []string{"orders", "payments"}},
			repeats: []bool{true}, cards: []string{"one_to_many"}, warnings: []string{"Aggregate payments by order_id"},
		},
		{
			name: "composite key", in: PlanQueryInput{Entities: []string{"notes", "line_items"}},
			repeats: []bool{false}, cards: []string{ManyToOne},
			sql: []string{"on \"n\".\"order_id\" = \"li\".\"order_id\"\n    and \"n\".\"line_no\" = \"li\".\"line_no\""},
		},
		{
			name: "path through an intermediate table", in: PlanQueryInput{Entities: []string{"notes", "customers"}},
			repeats: []bool{false, false, false}, cards: []string{ManyToOne, ManyToOne, ManyToOne},
		},
		{
			name: "inferred and unknown cardinality", in: PlanQueryInput{Entities: []string{"payments", "refunds"}, Infer: true},
			repeats: []bool{true}, cards: []string{UnknownCardinality},
			warnings: []string{"payments has no known key", "unknown cardinality", "guessed from naming"},
		},
		{
			name: "not connected", in: PlanQueryInput{Entities: []string{"payments", "refunds"}},
			warnings: []string{"no known relationship connects refunds", "infer: true"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := PlanQuery(ctx, p, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Joins) != len(tc.repeats) {
				t.Fatalf("joins = %+v, want %d", res.Joins, len(tc.repeats))
			}
			for i, j := range res.Joins {
				if j.RepeatsRows != tc.repeats[i] || j.Cardinality != tc.cards[i] {
					t.Errorf("join %d %s→%s: repeats=%v card=%s, want %v %s", i, j.From, j.To, j.RepeatsRows, j.Cardinality, tc.repeats[i], tc.cards[i])
				}
			}
			all := strings.Join(res.Warnings, "\n")
			for _, w := range tc.warnings {
				if !strings.Contains(all, w) {
					t.Errorf("warnings lack %q:\n%s", w, all)
				}
			}
			if len(tc.warnings) == 0 && len(res.Warnings) != 0 {
				t.Errorf("unexpected warnings: %v", res.Warnings)
			}
			for _, s := range tc.sql {
				if !strings.Contains(res.SQL, s) {
					t.Errorf("SQL lacks %q:\n%s", s, res.SQL)
				}
			}
		})
	}
}

func TestPlanQueryPrefersTrustedPath(t *testing.T) {
	m := newMF()
	hub := m.model("hubs", []string{"hub_id"}, nil)
	spoke := m.model("spokes", []string{"spoke_id", "hub_id"}, nil)
	leaf := m.model("leaves", []string{"leaf_id", "spoke_id", "hub_id"}, nil)
	for _, k := range [][2]string{{hub, "hub_id"}, {spoke, "spoke_id"}, {leaf, "leaf_id"}} {
		m.test("unique", k[0], k[1], nil, nil)
		m.test("not_null", k[0], k[1], nil, nil)
	}
	m.test("relationships", leaf, "spoke_id", map[string]any{"to": "ref('spokes')", "field": "spoke_id"}, nil)
	m.test("relationships", spoke, "hub_id", map[string]any{"to": "ref('hubs')", "field": "hub_id"}, nil)
	p := New(m.env(t), Options{})
	for _, infer := range []bool{false, true} {
		res, err := PlanQuery(context.Background(), p, PlanQueryInput{Entities: []string{"leaves", "hubs"}, Infer: infer})
		if err != nil {
			t.Fatal(err)
		}
		var path []string
		for _, j := range res.Joins {
			path = append(path, j.From+">"+j.To+":"+j.Basis)
		}
		if got := strings.Join(path, " "); got != "leaves>spokes:tested spokes>hubs:tested" {
			t.Errorf("infer=%v: path %s, want the tested path over the inferred shortcut", infer, got)
		}
	}
}

func TestUnknownNames(t *testing.T) {
	p, _ := shop(t)
	ctx := context.Background()
	_, err := DescribeEntity(ctx, p, DescribeEntityInput{Name: "ordres"})
	if !errors.Is(err, ErrUnknownEntity) || !strings.Contains(err.Error(), "did you mean orders") {
		t.Errorf("err = %v", err)
	}
	_, err = PlanQuery(ctx, p, PlanQueryInput{Entities: []string{"custom"}})
	if err == nil || !strings.Contains(err.Error(), "customers") {
		t.Errorf("err = %v", err)
	}
	if got := ClosestMatches("line_item", []string{"items", "line_items", "lines", "notes", "line_itme"}, 3); strings.Join(got, ",") != "line_items,line_itme" {
		t.Errorf("ClosestMatches = %v", got)
	}
	if got := ClosestMatches("zzz", []string{"orders"}, 3); len(got) != 0 {
		t.Errorf("ClosestMatches = %v", got)
	}
	// Sources resolve by source_name.table and by table name.
	if _, err := DescribeEntity(ctx, p, DescribeEntityInput{Name: "raw_customers"}); err != nil {
		t.Error(err)
	}
	if _, err := DescribeEntity(ctx, p, DescribeEntityInput{Name: "shop.raw_customers"}); err != nil {
		t.Error(err)
	}
}

func TestTestGapsRules(t *testing.T) {
	p, _ := shop(t)
	res, err := TestGaps(context.Background(), p, TestGapsInput{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]TestGap{}
	for _, g := range res.Gaps {
		got[g.Rule+" "+g.Model+"."+g.Column+" "+g.Test] = g
	}
	want := []string{
		"key_untested events.event_id, ts dbt_utils.unique_combination_of_columns",
		"key_untested events.event_id not_null",
		"key_untested events.ts not_null",
		"key_untested orders.order_id unique",
		"key_untested payments.payment_id unique",
		"key_untested payments.payment_id not_null",
		"key_untested refunds.refund_id unique",
		"key_untested refunds.refund_id not_null",
		"key_untested shop.raw_customers.id unique",
		"key_untested shop.raw_customers.id not_null",
		"unique_nullable customers.email not_null",
		"inferred_relationship refunds.payment_id relationships",
		"inferred_relationship notes.order_id relationships",
		"inferred_relationship order_summary.customer_id relationships",
		"inferred_relationship order_summary.order_id relationships",
		"join_key_untested payments.order_id not_null",
	}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			t.Errorf("missing gap %q", w)
		}
	}
	if len(res.Gaps) != len(want) {
		for k := range got {
			t.Log(k)
		}
		t.Errorf("got %d gaps, want %d", len(res.Gaps), len(want))
	}
	y := got["inferred_relationship refunds.payment_id relationships"].YAML
	wantYAML := "models:\n  - name: refunds\n    columns:\n      - name: payment_id\n        data_tests:\n          - relationships:\n              to: ref('payments')\n              field: payment_id\n"
	if y != wantYAML {
		t.Errorf("YAML =\n%s\nwant\n%s", y, wantYAML)
	}
	if r := got["join_key_untested payments.order_id not_null"].Reason; !strings.Contains(r, "order_summary") {
		t.Errorf("join-key reason does not name the joining model: %s", r)
	}
	one, _ := TestGaps(context.Background(), p, TestGapsInput{Model: "customers"})
	if len(one.Gaps) != 1 {
		t.Errorf("customers gaps = %+v", one.Gaps)
	}
}

func TestSearchAndFindData(t *testing.T) {
	p, _ := shop(t)
	ctx := context.Background()
	res, err := Search(ctx, p, SearchInput{Query: "order id"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Column != "order_id" || !res.Hits[0].Prefix {
		t.Errorf("hits = %+v", res.Hits)
	}
	for _, h := range res.Hits {
		full := strings.ToLower(h.Name + "." + h.Column)
		if !strings.Contains(full, "order") || !strings.Contains(full, "id") {
			t.Errorf("hit %+v does not match every term", h)
		}
	}
	res, _ = Search(ctx, p, SearchInput{Query: "ustomer"})
	if len(res.Hits) == 0 || res.Hits[0].Prefix {
		t.Errorf("infix hits = %+v", res.Hits)
	}
	lim, _ := Search(ctx, p, SearchInput{Query: "i", Limit: 2})
	if len(lim.Hits) != 2 || !lim.Truncated {
		t.Errorf("limit not applied: %+v", lim)
	}
	fd, err := FindData(ctx, p, FindDataInput{Query: "customers email"})
	if err != nil {
		t.Fatal(err)
	}
	if fd.Tables[0].Name != "customers" || fd.Tables[0].Grain != "one row per customer_id (tested)" {
		t.Errorf("find_data = %+v", fd.Tables[0])
	}
	fd, _ = FindData(ctx, p, FindDataInput{Query: "refund"})
	if fd.Tables[0].Name != "refunds" || fd.Tables[0].Grain != UnknownGrain {
		t.Errorf("find_data = %+v", fd.Tables)
	}
}

func TestDescribeEntity(t *testing.T) {
	p, _ := shop(t)
	res, err := DescribeEntity(context.Background(), p, DescribeEntityInput{Name: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Grain != "one row per order_id (declared)" || len(res.References) != 1 || len(res.ReferencedBy) != 2 {
		t.Errorf("describe = %+v", res)
	}
	if res.References[0].Entity != "customers" || res.References[0].Cardinality != ManyToOne {
		t.Errorf("references = %+v", res.References)
	}
	for _, rb := range res.ReferencedBy {
		if rb.Cardinality != "one_to_many" {
			t.Errorf("referenced_by = %+v", rb)
		}
	}
	var c DescribedColumn
	for _, col := range res.Columns {
		if col.Name == "customer_id" {
			c = col
		}
	}
	if c.Name != "customer_id" || !c.NotNull || len(c.References) != 1 || c.References[0] != "customers.customer_id" {
		t.Errorf("customer_id column = %+v", c)
	}
	if res.StarterQuery != "select *\nfrom {{ ref('orders') }}\nlimit 10" {
		t.Errorf("starter query = %q", res.StarterQuery)
	}
}

func TestStatePoliciesAndSummary(t *testing.T) {
	p, _ := shop(t)
	ctx := context.Background()
	sp, err := StatePolicies(ctx, p, StatePoliciesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Policies) != 1 || sp.Policies[0].Name != "events" || sp.Policies[0].BuildAfter == nil || *sp.Policies[0].BuildAfter.Count != 4 ||
		sp.Policies[0].BuildAfter.Period != "hour" || sp.Policies[0].UpdatesOn != "all" {
		t.Errorf("policies = %+v", sp.Policies)
	}
	sum, err := Summary(ctx, p, SummaryInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.UsesState || sum.Counts["model"] != 8 || sum.Counts["test"] != 12 || sum.Counts["source"] != 1 ||
		sum.Lineage.Analyzed != 1 || sum.Lineage.Opaque != 1 || sum.Lineage.Percent != 12.5 || sum.CatalogPresent {
		t.Errorf("summary = %+v", sum)
	}
}

func TestCompareObservedAndOpenLineage(t *testing.T) {
	p, _ := shop(t)
	ctx := context.Background()
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "observed.csv")
	csv := "source_table_full_name,source_column_name,target_table_full_name,target_column_name\n" +
		"db.main.customers,customer_id,db.main.order_summary,customer_id\n" +
		"db.main.payments,amount,db.main.order_summary,paid\n" +
		"db.main.payments,order_id,db.main.order_summary,order_id\n" +
		"other.x.y,a,db.main.order_summary,paid\n"
	if err := os.WriteFile(csvPath, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := CompareObserved(ctx, p, CompareObservedInput{ObservedFile: csvPath})
	if err != nil {
		t.Fatal(err)
	}
	if res.ObservedRows != 4 || res.Unresolved != 1 || len(res.Models) != 1 {
		t.Fatalf("result = %+v", res)
	}
	m := res.Models[0]
	if m.Static != 3 || m.Observed != 3 || m.Both != 2 || m.Precision != 0.6667 || m.Recall != 0.6667 ||
		m.Missed[0] != "payments.order_id -> order_summary.order_id" || m.Extra[0] != "orders.order_id -> order_summary.order_id" {
		t.Errorf("agreement = %+v", m)
	}
	jsonPath := filepath.Join(dir, "observed.json")
	if err := os.WriteFile(jsonPath, []byte(`{"rows":[{"source":"main.customers.customer_id","target":"main.order_summary.customer_id"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = CompareObserved(ctx, p, CompareObservedInput{ObservedFile: jsonPath})
	if err != nil || res.Both != 1 || res.Recall != 1 {
		t.Errorf("json: %+v %v", res, err)
	}
	noLin := New(p.env, Options{})
	if _, err := CompareObserved(ctx, noLin, CompareObservedInput{ObservedFile: jsonPath}); !errors.Is(err, ErrNoLineage) {
		t.Errorf("err = %v", err)
	}

	ol, err := OpenLineage(ctx, p, OpenLineageInput{Models: []string{"order_summary", "events"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ol.Events) != 2 || len(ol.TableOnly) != 1 || ol.TableOnly[0].Reason != "no SQL" {
		t.Fatalf("openlineage = %+v", ol)
	}
	f := ol.Events[0].Outputs[0].Facets["columnLineage"]
	paid := f.Fields["paid"].InputFields
	if ol.Events[0].Outputs[0].Name != "db.main.order_summary" || len(paid) != 1 || paid[0].Name != "db.main.payments" ||
		paid[0].Transformations[0].Subtype != "AGGREGATION" || len(f.Dataset) != 1 || f.Dataset[0].Transformations[0].Subtype != "JOIN" {
		t.Errorf("facet = %+v", f)
	}
}

func FuzzParseObserved(f *testing.F) {
	f.Add([]byte("source_table,source_column,target_table,target_column\na,b,c,d\n"))
	f.Add([]byte(`[{"source":"a.b","target":"c.d"}]`))
	f.Add([]byte(`{"edges":[{"source_table":"a","source_column":"b","target_table":"c","target_column":"d"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		edges, err := ParseObserved(data)
		if err != nil {
			return
		}
		for _, e := range edges {
			if e.SourceTable == "" || e.SourceColumn == "" || e.TargetTable == "" || e.TargetColumn == "" {
				t.Fatalf("incomplete edge %+v", e)
			}
		}
	})
}

func FuzzClosestMatches(f *testing.F) {
	f.Add("orders", "order_items")
	f.Fuzz(func(t *testing.T, a, b string) {
		got := ClosestMatches(a, []string{b, "orders", "customers"}, 2)
		if len(got) > 2 {
			t.Fatalf("got %d matches", len(got))
		}
	})
}
