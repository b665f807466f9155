package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/ripple-data/ripple/internal/ops"
)

func TestZZMeasure(t *testing.T) {
	for _, ts := range [][]string{nil, {"all"}, {"recce"}, {"checks"}, {"review"}, {"lineage"}, {"static"}} {
		logs := &syncBuffer{}
		_ = logs
		h := newHarnessWith(t, Options{Toolsets: ts}, ops.Config{Paths: fixturePaths(t)})
		cs := h.connect(t, "", nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		total, _ := json.Marshal(res)
		fmt.Println(ts, len(total), len(res.Tools))
		if len(ts) == 1 && ts[0] == "all" {
			out := map[string]int{"__total__": len(total)}
			for _, tl := range res.Tools {
				b, _ := json.Marshal(tl)
				out[tl.Name] = len(b)
			}
			b, _ := json.MarshalIndent(out, "", " ")
			os.WriteFile(os.Getenv("MEASURE_OUT"), b, 0o644)
		}
	}
}
