// Package frame is the compact tabular JSON shape shared by results that
// return rows (lineage nodes, query results, diffs): column metadata once,
// then positional rows. It is the peer's DataFrame, so agents written for
// the peer read it unchanged: limit, more and total_row_count are always
// present (null when unknown).
package frame

// Column types used in frames: the peer's DataFrame type vocabulary.
const (
	Number    = "number"
	Float     = "float"
	Integer   = "integer"
	Text      = "text"
	Boolean   = "boolean"
	Date      = "date"
	Time      = "datetime"
	Timedelta = "timedelta"
	// Unknown is any other value, e.g. a list.
	Unknown = "unknown"
)

// Column describes one frame column.
type Column struct {
	Key  string `json:"key" jsonschema:"column key"`
	Name string `json:"name" jsonschema:"display name"`
	Type string `json:"type" jsonschema:"integer, number, text, boolean, date, …"`
}

// Frame is a table of rows (the peer's DataFrame).
type Frame struct {
	Columns []Column `json:"columns" jsonschema:"columns, in row order"`
	Data    [][]any  `json:"data" jsonschema:"rows of values in column order"`
	// Limit is the row cap applied, when one was.
	Limit *int `json:"limit" jsonschema:"row cap, or null"`
	// More is true when rows beyond Limit exist.
	More bool `json:"more" jsonschema:"rows beyond limit exist"`
	// TotalRowCount is the full row count when known.
	TotalRowCount *int64 `json:"total_row_count" jsonschema:"rows before the cap, or null"`
	// Truncated and Bytes report the result byte cap (warehouse results).
	Truncated bool  `json:"truncated,omitempty" jsonschema:"cut at a byte cap"`
	Bytes     int64 `json:"bytes,omitempty" jsonschema:"approx. JSON bytes of data"`
	// Hint says how to get the rows left out, when rows were cut.
	Hint string `json:"hint,omitempty" jsonschema:"to get cut rows"`
}

// New returns an empty frame with the given (key, type) columns; the
// column name equals its key.
func New(cols ...[2]string) *Frame {
	f := &Frame{Columns: make([]Column, len(cols)), Data: [][]any{}}
	for i, c := range cols {
		f.Columns[i] = Column{Key: c[0], Name: c[0], Type: c[1]}
	}
	return f
}

// Append adds one row.
func (f *Frame) Append(row ...any) { f.Data = append(f.Data, row) }

// Index returns the position of the column with this key, or -1.
func (f *Frame) Index(key string) int {
	for i, c := range f.Columns {
		if c.Key == key {
			return i
		}
	}
	return -1
}
