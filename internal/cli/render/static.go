package render

import (
	"io"

	"github.com/ripple-data/ripple/internal/static"
)

func staticRenderers() map[string]Func {
	return map[string]Func{
		"erd": typed(func(w io.Writer, out *static.ERDResult, o Options) error {
			_, err := io.WriteString(w, static.RenderMermaid(out))
			return err
		}),
	}
}
