package warehouse

// EffectiveLimit resolves QueryOptions.Limit: 0 means DefaultRowLimit and a
// negative value means no cap (returned as -1).
func EffectiveLimit(opts QueryOptions) int {
	switch {
	case opts.Limit == 0:
		return DefaultRowLimit
	case opts.Limit < 0:
		return -1
	}
	return opts.Limit
}

// Collect builds a capped Result from a row source. next returns the next
// row, or ok=false when the rows are exhausted. Collect reads one row past
// the limit so More is exact without counting the whole result; Total is
// set only when every row was read, since counting more would cost a second
// scan in the warehouse.
func Collect(cols []Column, opts QueryOptions, next func() (row []any, ok bool, err error)) (*Result, error) {
	limit := EffectiveLimit(opts)
	res := &Result{Columns: cols, Rows: [][]any{}}
	for {
		row, ok, err := next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if limit >= 0 && len(res.Rows) >= limit {
			res.More = true
			return res, nil
		}
		res.Rows = append(res.Rows, row)
	}
	total := int64(len(res.Rows))
	res.Total = &total
	return res, nil
}
