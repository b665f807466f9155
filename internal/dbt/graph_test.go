package dbt

import (
	"slices"
	"testing"
)

func TestGraph(t *testing.T) {
	dep := func(ids ...string) obj { return obj{"depends_on": obj{"nodes": ids, "macros": []string{}}} }
	base := testManifest(t, obj{"nodes": section(
		node("model", "a", nil),
		node("model", "b", dep("model.pkg.a")),
		node("model", "gone", dep("model.pkg.b")),
	)})
	cur := testManifest(t, obj{"nodes": section(
		node("model", "a", nil),
		node("model", "b", dep("model.pkg.a", "model.pkg.a", "model.pkg.missing")),
		node("model", "c", dep("model.pkg.b")),
		node("model", "d", dep("model.pkg.c", "model.pkg.a")),
	)})
	g := NewGraph(base, cur)
	if got := g.IDs(); !slices.Equal(got, []string{"model.pkg.a", "model.pkg.b", "model.pkg.c", "model.pkg.d", "model.pkg.gone"}) {
		t.Fatalf("IDs = %v", got)
	}
	checks := []struct {
		name string
		got  []string
		want []string
	}{
		{"Parents(b)", g.Parents("model.pkg.b"), []string{"model.pkg.a"}},
		{"Children(a)", g.Children("model.pkg.a"), []string{"model.pkg.b", "model.pkg.d"}},
		{"Children(b)", g.Children("model.pkg.b"), []string{"model.pkg.c", "model.pkg.gone"}},
		{"Parents(gone)", g.Parents("model.pkg.gone"), []string{"model.pkg.b"}},
		{"Descendants(a)", g.Descendants("model.pkg.a", Unlimited), []string{"model.pkg.b", "model.pkg.c", "model.pkg.d", "model.pkg.gone"}},
		{"Descendants(a,1)", g.Descendants("model.pkg.a", 1), []string{"model.pkg.b", "model.pkg.d"}},
		{"Descendants(a,0)", g.Descendants("model.pkg.a", 0), []string{}},
		{"Ancestors(d)", g.Ancestors("model.pkg.d", Unlimited), []string{"model.pkg.a", "model.pkg.b", "model.pkg.c"}},
		{"Ancestors(d,1)", g.Ancestors("model.pkg.d", 1), []string{"model.pkg.a", "model.pkg.c"}},
		{"Ancestors(a)", g.Ancestors("model.pkg.a", Unlimited), []string{}},
	}
	for _, c := range checks {
		if !slices.Equal(c.got, c.want) && !(len(c.got) == 0 && len(c.want) == 0) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if n, ok := g.Node("model.pkg.gone"); !ok || n.Name != "gone" || g.InCurrent("model.pkg.gone") || !g.InBase("model.pkg.gone") {
		t.Errorf("removed node not kept from base")
	}
	if !g.InCurrent("model.pkg.c") || g.InBase("model.pkg.c") {
		t.Errorf("added node c presence wrong")
	}
	if n, _ := g.Node("model.pkg.b"); len(n.DependsOn.Nodes) != 3 {
		t.Errorf("Node(b) is not the current version")
	}
}
