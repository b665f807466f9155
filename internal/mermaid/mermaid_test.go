package mermaid

import "testing"

func TestLines(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{NodeLine("n0", Box, "orders"), "  n0[\"orders\"]\n"},
		{NodeLine("n1", Cylinder, "raw.orders"), "  n1[(\"raw.orders\")]\n"},
		{NodeLine("n2", Parallelogram, "s"), "  n2[/\"s\"/]\n"},
		{NodeLine("n3", Subroutine, "s"), "  n3[[\"s\"]]\n"},
		{NodeLine("n4", Flag, "e"), "  n4>\"e\"]\n"},
		{NodeLine("n5", Hexagon, "m"), "  n5{{\"m\"}}\n"},
		{EdgeLine("n0", "n10"), "  n0 --> n10\n"},
		{ClassLine("n2", "modified"), "  class n2 modified\n"},
		{Escape("a \"b\" <c>\nd"), "a #quot;b#quot; #lt;c#gt; d"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if EdgeLen("n0", "n10") != len(EdgeLine("n0", "n10")) {
		t.Error("EdgeLen disagrees with EdgeLine")
	}
}
