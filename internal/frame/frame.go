// Package frame is the compact tabular JSON shape shared by results that
// return rows (lineage nodes, query results, diffs): column metadata once,
// then positional rows. Agents written for the peer tool read this shape.
package frame

// Column types used in frames.
const (
	Integer = "integer"
	Number  = "number"
	Text    = "text"
	Boolean = "boolean"
	Date    = "date"
	Time    = "datetime"
	List    = "list"
	Unknown = "unknown"
)

// Column describes one frame column.
type Column struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// Frame is a table of rows.
type Frame struct {
	Columns []Column `json:"columns"`
	Data    [][]any  `json:"data"`
	// Limit is the row cap applied, when one was.
	Limit *int `json:"limit,omitempty"`
	// More is true when rows beyond Limit exist.
	More bool `json:"more,omitempty"`
	// TotalRowCount is the full row count when known.
	TotalRowCount *int64 `json:"total_row_count,omitempty"`
	// Truncated and Bytes report the result byte cap (warehouse results).
	Truncated bool  `json:"truncated,omitempty" jsonschema:"true when rows were cut at the result byte cap (--max-result-bytes) or long text values were shortened (--max-cell-bytes); more is then true too"`
	Bytes     int64 `json:"bytes,omitempty" jsonschema:"approximate size of data in bytes, as JSON"`
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
