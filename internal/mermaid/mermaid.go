// Package mermaid writes Mermaid flowcharts of graphs: the header, node
// shapes, label escaping, edges and class assignments. It is the one
// writer behind every graph Ripple draws (render_lineage_mermaid and the
// pull-request summary in internal/impact, lineage format=mermaid in
// internal/ops); what to draw and how to style it stays with them.
package mermaid

import "strings"

// Header starts a left-to-right flowchart.
const Header = "graph LR\n"

// Shape is a node's outline.
type Shape uint8

// Shapes, as Ripple uses them for resource types.
const (
	Box           Shape = iota // ["..."]: models, and plain nodes
	Cylinder                   // [("...")]: sources
	Parallelogram              // [/"..."/]: seeds
	Subroutine                 // [["..."]]: snapshots
	Flag                       // >"..."]: exposures
	Hexagon                    // {{"..."}}: metrics, semantic models, saved queries
)

// NodeLine declares node id with a label, which may hold Mermaid markup
// (<br/>, <small>): put plain text through Escape first.
func NodeLine(id string, shape Shape, label string) string {
	var open, close string
	switch shape {
	case Cylinder:
		open, close = `[("`, `")]`
	case Parallelogram:
		open, close = `[/"`, `"/]`
	case Subroutine:
		open, close = `[["`, `"]]`
	case Flag:
		open, close = `>"`, `"]`
	case Hexagon:
		open, close = `{{"`, `"}}`
	default:
		open, close = `["`, `"]`
	}
	return "  " + id + open + label + close + "\n"
}

// EdgeLine is an arrow from one node id to another.
func EdgeLine(from, to string) string { return "  " + from + " --> " + to + "\n" }

// EdgeLen is len(EdgeLine(from, to)), for size budgets.
func EdgeLen(from, to string) int { return len(from) + len(to) + 8 }

// ClassLine assigns a classDef to node id.
func ClassLine(id, class string) string { return "  class " + id + " " + class + "\n" }

var escaper = strings.NewReplacer("\"", "#quot;", "<", "#lt;", ">", "#gt;", "\n", " ")

// Escape keeps text inside a quoted label: quotes and angle brackets
// become entities (Mermaid reads < as markup), newlines spaces.
func Escape(s string) string { return escaper.Replace(s) }
