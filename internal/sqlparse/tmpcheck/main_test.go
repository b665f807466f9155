package pt

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

func TestParseAll(t *testing.T) {
	f, _ := os.Open("/work/shared/cll-corpus/dev.jsonl")
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	bad := 0
	for sc.Scan() {
		var c struct{ ID, Dialect, SQL string }
		json.Unmarshal(sc.Bytes(), &c)
		if _, err := sqlparse.Parse(sqlparse.LookupDialect(c.Dialect), c.SQL); err != nil {
			bad++
			t.Logf("%s: %v", c.ID, err)
		}
	}
	t.Logf("bad %d", bad)
}
