package warehouse

import (
	"context"
	"encoding/json"
	"unicode/utf8"
)

// Result byte caps. A query's rows are capped by count and by size, so a
// SELECT of long strings cannot take the process's memory (issue #19: 2,000
// rows of 400 kB took 17 GB and a 1.6 GB reply).
const (
	// DefaultMaxResultBytes caps one result's rows (approximate JSON bytes).
	DefaultMaxResultBytes int64 = 10 << 20
	// DefaultMaxCellBytes shortens longer text values.
	DefaultMaxCellBytes = 64 << 10
)

// budgetKey carries a caller's result byte budget in a context.
type budgetKey struct{}

// WithResultBudget bounds the rows of every query run under ctx at about n
// bytes (approximate JSON), below the connection's own cap: the MCP server
// sets it from its reply cap, so a query stops reading rows where the reply
// would stop anyway. n <= 0 leaves ctx as it is.
func WithResultBudget(ctx context.Context, n int64) context.Context {
	if n <= 0 {
		return ctx
	}
	return context.WithValue(ctx, budgetKey{}, n)
}

// ResultBudget is the budget WithResultBudget set on ctx, or 0.
func ResultBudget(ctx context.Context) int64 {
	n, _ := ctx.Value(budgetKey{}).(int64)
	return n
}

// TruncatedSuffix ends a text value cut at the cell cap.
const TruncatedSuffix = "…[truncated]"

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

// EffectiveMaxBytes resolves QueryOptions.MaxBytes: 0 means
// DefaultMaxResultBytes and a negative value means no cap (-1).
func EffectiveMaxBytes(opts QueryOptions) int64 {
	b, _ := effectiveBytes(opts)
	if b < 0 {
		return -1
	}
	return b
}

func effectiveBytes(opts QueryOptions) (rowBytes int64, cellBytes int) {
	rowBytes, cellBytes = opts.MaxBytes, opts.MaxCellBytes
	if rowBytes == 0 {
		rowBytes = DefaultMaxResultBytes
	}
	if cellBytes == 0 {
		cellBytes = DefaultMaxCellBytes
	}
	return rowBytes, cellBytes
}

// Collect builds a capped Result from a row source. next returns the next
// row, or ok=false when the rows are exhausted. Collect reads one row past
// the limit so More is exact without counting the whole result; Total is
// set only when every row was read, since counting more would cost a second
// scan in the warehouse. Text values longer than the cell cap are cut, and
// reading stops before the row that would pass the byte cap (Truncated and
// More are then set), so memory stays bounded whatever the query returns.
func Collect(cols []Column, opts QueryOptions, next func() (row []any, ok bool, err error)) (*Result, error) {
	limit := EffectiveLimit(opts)
	maxBytes, maxCell := effectiveBytes(opts)
	res := &Result{Columns: cols, Rows: [][]any{}, Bytes: 2}
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
		n := int64(2) // [ ] and the comma
		for i, v := range row {
			if s, ok := v.(string); ok && maxCell >= 0 && len(s) > maxCell {
				row[i] = cutUTF8(s, maxCell) + TruncatedSuffix
				res.Truncated = true
			}
			n += valueBytes(row[i]) + 1
		}
		if maxBytes >= 0 && res.Bytes+n > maxBytes {
			res.More, res.Truncated = true, true
			return res, nil
		}
		res.Bytes += n
		res.Rows = append(res.Rows, row)
	}
	total := int64(len(res.Rows))
	res.Total = &total
	return res, nil
}

// cutUTF8 returns at most n bytes of s, not splitting a rune.
func cutUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// valueBytes approximates the JSON size of a normalised value without
// encoding it (strings are counted unescaped).
func valueBytes(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 4
	case string:
		return int64(len(x)) + 2
	case json.Number:
		return int64(len(x))
	case bool:
		return 5
	case []any:
		n := int64(2)
		for _, e := range x {
			n += valueBytes(e) + 1
		}
		return n
	case map[string]any:
		n := int64(2)
		for k, e := range x {
			n += int64(len(k)) + 4 + valueBytes(e)
		}
		return n
	}
	return 8
}
