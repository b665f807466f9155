package open

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// limits resolves what the guard bounds: the statement timeout comes from
// OpenOptions (the --statement-timeout flag) when set, else from the
// profile target's statement_timeout (seconds, or a Go duration such as
// "90s"), else warehouse.DefaultStatementTimeout.
func limits(t profiles.Target, opts OpenOptions) (warehouse.Limits, error) {
	l := warehouse.Limits{StatementTimeout: opts.StatementTimeout, MaxResultBytes: opts.MaxResultBytes, MaxCellBytes: opts.MaxCellBytes}
	if l.StatementTimeout != 0 {
		return l, nil
	}
	v, ok := t.Extra["statement_timeout"]
	if !ok {
		return l, nil
	}
	var d time.Duration
	var err error
	switch x := v.(type) {
	case int:
		d = time.Duration(x) * time.Second
	case int64:
		d = time.Duration(x) * time.Second
	case uint64:
		d = time.Duration(x) * time.Second
	case float64:
		d = time.Duration(x * float64(time.Second))
	case string:
		if n, perr := strconv.ParseFloat(x, 64); perr == nil {
			d = time.Duration(n * float64(time.Second))
		} else {
			d, err = time.ParseDuration(x)
		}
	default:
		err = fmt.Errorf("unsupported type %T", v)
	}
	if err != nil || d <= 0 {
		return l, fmt.Errorf("%s: statement_timeout %v is not a positive number of seconds or a duration such as \"90s\"", t.Where(), v)
	}
	l.StatementTimeout = d
	return l, nil
}
