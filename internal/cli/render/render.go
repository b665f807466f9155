// Package render turns operation results into text for people. The CLI
// prints this unless --json is given; the MCP server and the web UI never
// use it. One file per result family (lineage, impact, diff, checks,
// static, model); every operation of the registry has an entry in the
// table below, and a test runs every command on the demo to keep it so.
package render

import (
	"fmt"
	"io"
)

// Options shape the text: Width is the terminal width (0: 100), Limit the
// number of rows a long list shows before it says how to see the rest.
type Options struct {
	Width int
	Limit int
}

// DefaultLimit is how many rows a list prints before pointing at --json.
const DefaultLimit = 50

func (o Options) width() int {
	if o.Width <= 0 {
		return 100
	}
	return o.Width
}

func (o Options) limit() int {
	if o.Limit <= 0 {
		return DefaultLimit
	}
	return o.Limit
}

// Func renders one operation's result (the pointer the operation returned).
type Func func(w io.Writer, out any, o Options) error

// typed adapts a renderer of a concrete result type to a Func.
func typed[T any](f func(w io.Writer, out *T, o Options) error) Func {
	return func(w io.Writer, out any, o Options) error {
		v, ok := out.(*T)
		if !ok {
			return fmt.Errorf("render: result of type %T, want %T", out, v)
		}
		return f(w, v, o)
	}
}

// table maps an operation name to its renderer; each family file adds its own.
func table() map[string]Func {
	t := map[string]Func{}
	for _, family := range []map[string]Func{lineageRenderers(), impactRenderers(), diffRenderers(), checkRenderers(), staticRenderers(), modelRenderers(), cllRenderers()} {
		for name, f := range family {
			if _, dup := t[name]; dup {
				panic("render: two renderers for " + name) // programming error
			}
			t[name] = f
		}
	}
	return t
}

// Has reports whether op has a human renderer.
func Has(op string) bool {
	_, ok := table()[op]
	return ok
}

// Text writes the human form of op's result. An operation without a
// renderer gets the generic one (field: value lines, lists as tables),
// never raw JSON.
func Text(w io.Writer, op string, out any, o Options) error {
	if f, ok := table()[op]; ok {
		return f(w, out, o)
	}
	return Generic(w, out, o)
}
