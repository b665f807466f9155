package dialect

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
)

// records holds one JSON file per warehouse: everything Ripple knows about
// it as data (quoting and folding, type names → kinds, SQL spelling, vendor
// error codes), in the style of sqlc's engine dialect files. Adding a
// warehouse adds a file here; nothing in Go switches on a warehouse name.
//
//go:embed records/*.json
var records embed.FS

// Record is one warehouse's entry, decoded strictly from records/<name>.json.
type Record struct {
	// Name is the dbt adapter type (profiles.yml type:).
	Name string `json:"name"`
	// Extends names a record whose fields this one inherits (spark →
	// databricks); fields given here override it.
	Extends string `json:"extends,omitempty"`
	// Aliases are other spellings of the adapter type.
	Aliases     []string    `json:"aliases,omitempty"`
	Identifiers Identifiers `json:"identifiers"`
	Strings     Strings     `json:"strings"`
	Lexer       Lexer       `json:"lexer"`
	Types       Types       `json:"types"`
	SQL         Spelling    `json:"sql"`
	// Names says which words the engine keeps from names and which
	// pseudo-columns it provides (the SQL front end reads them).
	Names Names `json:"names"`
	// Notes say why a spelling is what it is (documentation only).
	Notes  []string `json:"notes,omitempty"`
	Errors Errors   `json:"errors"`
}

// Identifiers says how the warehouse quotes and folds identifiers.
type Identifiers struct {
	// Quote is the identifier quote character.
	Quote string `json:"quote"`
	// Escape is how the quote character is escaped inside a quoted
	// identifier: "double" (doubling) or "backslash".
	Escape string `json:"escape"`
	// Fold is what the warehouse does to unquoted identifiers: "lower",
	// "upper" or "none" (kept as written).
	Fold Fold `json:"fold"`
	// CaseInsensitive: names also match regardless of case when quoted
	// (DuckDB, BigQuery columns, Databricks, Trino, Redshift by default).
	CaseInsensitive bool `json:"case_insensitive,omitempty"`
}

// Strings says how string literals are written.
type Strings struct {
	// BackslashEscapes: \ inside '...' is an escape character, so it is
	// doubled and \' is used for a quote.
	BackslashEscapes bool `json:"backslash_escapes"`
	// NewlineEscapes: a literal may not span lines (written as \n).
	NewlineEscapes bool `json:"newline_escapes,omitempty"`
}

// Lexer holds the flags the SQL front end (internal/sqlparse) needs.
type Lexer struct {
	// Backtick quotes identifiers.
	Backtick bool `json:"backtick,omitempty"`
	// HashComment starts a line comment with '#'.
	HashComment bool `json:"hash_comment,omitempty"`
	// DollarQuote enables $$...$$ and $tag$...$tag$ strings.
	DollarQuote bool `json:"dollar_quote,omitempty"`
	// VariantPath enables col:path.to.field access.
	VariantPath bool `json:"variant_path,omitempty"`
	// DoubleQuotedStrings: "..." may be a string literal.
	DoubleQuotedStrings bool `json:"double_quoted_strings,omitempty"`
	// AngleTypeParams: ARRAY<INT>, STRUCT<...>, MAP<...> spell type
	// parameters in angle brackets (BigQuery, Spark/Databricks). Elsewhere
	// '<' after a cast is always less-than: d::date < '2022-07-20'.
	AngleTypeParams bool `json:"angle_type_params,omitempty"`
}

// Names holds the engine's word lists, from its own documentation.
type Names struct {
	// Doc says where the lists come from.
	Doc string `json:"doc,omitempty"`
	// Reserved are the keywords the engine refuses as unquoted names
	// (upper case). Every other keyword is a name wherever a name fits.
	Reserved []string `json:"reserved,omitempty"`
	// PseudoColumns are columns the engine provides on every row of a
	// relation of some kind without listing them in its columns
	// (Snowflake's METADATA$FILENAME of staged files), upper case.
	PseudoColumns []string `json:"pseudo_columns,omitempty"`
	// CastOutput is how the engine names an unaliased CAST(col AS t) or
	// col::t: "operand" (col: Postgres, Redshift, Spark), "text" (the
	// expression's text: Snowflake, DuckDB), "anonymous_f" (BigQuery's
	// f0_, f1_ ...) or "anonymous_col" (Trino's _col<position>).
	CastOutput string `json:"cast_output,omitempty"`
}

// Types names the types generated SQL casts to and maps the warehouse's
// own type names onto kinds.
type Types struct {
	String string `json:"string"`
	Float  string `json:"float"`
	BigInt string `json:"bigint"`
	// Kinds overrides the shared type table (lower-case names without
	// parameters), where this warehouse's name means something else
	// (BigQuery's TIMESTAMP is an instant: timestamptz).
	Kinds map[string]Kind `json:"kinds,omitempty"`
	// IntegerWhenScaleZero lists decimal types that are the warehouse's
	// integer type when their scale is 0 (Snowflake NUMBER(38,0)).
	IntegerWhenScaleZero []string `json:"integer_when_scale_zero,omitempty"`
}

// Spelling holds SQL templates. Placeholders: {x} an expression, {a} {b}
// two operands, {c} a condition, {p} a fraction in [0,1], {permille} that
// fraction × 1000 as an integer, {unit}/{UNIT} a date part.
type Spelling struct {
	// Concat is "||" (operator) or "CONCAT" (function).
	Concat      string `json:"concat"`
	Hash        string `json:"hash"`
	Median      string `json:"median,omitempty"`
	Percentile  string `json:"percentile"`
	DateTrunc   string `json:"date_trunc"`
	Distinct    string `json:"distinct"`
	NotDistinct string `json:"not_distinct"`
	CountIf     string `json:"count_if"`
	Except      string `json:"except"`
}

// Errors maps the warehouse's own error codes (SQLSTATE, error numbers,
// reasons, error classes) to Ripple's error classes.
type Errors struct {
	// Doc says where the codes come from.
	Doc   string            `json:"doc,omitempty"`
	Codes map[string]string `json:"codes,omitempty"`
}

// ErrorClasses are the class names a record's error codes may map to; they
// are internal/warehouse's ErrorClass values (a test there checks that).
func ErrorClasses() []string {
	return []string{"permission_denied", "table_not_found", "syntax_error", "auth_failed", "connection_failed", "canceled"}
}

// Fold is how a warehouse normalises unquoted identifiers. This is the one
// definition: internal/sqlparse folds with it too.
type Fold int

const (
	// FoldNone keeps identifiers as written.
	FoldNone Fold = iota
	// FoldLower lower-cases unquoted identifiers.
	FoldLower
	// FoldUpper upper-cases unquoted identifiers.
	FoldUpper
)

// Apply folds an unquoted identifier.
func (f Fold) Apply(s string) string {
	switch f {
	case FoldLower:
		return strings.ToLower(s)
	case FoldUpper:
		return strings.ToUpper(s)
	}
	return s
}

func (f Fold) String() string {
	switch f {
	case FoldLower:
		return "lower"
	case FoldUpper:
		return "upper"
	}
	return "none"
}

// UnmarshalJSON reads "lower", "upper" or "none".
func (f *Fold) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	switch s {
	case "lower":
		*f = FoldLower
	case "upper":
		*f = FoldUpper
	case "none":
		*f = FoldNone
	default:
		return fmt.Errorf("fold %q: want lower, upper or none", s)
	}
	return nil
}

// loadRecords decodes and validates every embedded record once. A broken
// record means the binary was built from a broken tree (a test catches it
// first), which is the only reason for the panic.
var loadRecords = sync.OnceValue(func() map[string]*Record {
	m, err := decodeRecords(records)
	if err != nil {
		panic("dialect: broken embedded record: " + err.Error())
	}
	return m
})

func decodeRecords(fsys embed.FS) (map[string]*Record, error) {
	entries, err := fsys.ReadDir("records")
	if err != nil {
		return nil, err
	}
	raw := map[string][]byte{}
	for _, e := range entries {
		b, err := fsys.ReadFile(path.Join("records", e.Name()))
		if err != nil {
			return nil, err
		}
		raw[strings.TrimSuffix(e.Name(), ".json")] = b
	}
	out := map[string]*Record{}
	var decode func(name string, depth int) (*Record, error)
	decode = func(name string, depth int) (*Record, error) {
		if r, ok := out[name]; ok {
			return r, nil
		}
		b, ok := raw[name]
		if !ok || depth > 4 {
			return nil, fmt.Errorf("no record %q", name)
		}
		var head struct {
			Extends string `json:"extends"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, fmt.Errorf("%s.json: %w", name, err)
		}
		r := &Record{}
		if head.Extends != "" {
			base, err := decode(head.Extends, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s.json extends: %w", name, err)
			}
			*r = base.clone()
			r.Aliases = nil
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(r); err != nil {
			return nil, fmt.Errorf("%s.json: %w", name, err)
		}
		if r.Name != name {
			return nil, fmt.Errorf("%s.json: name is %q", name, r.Name)
		}
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("%s.json: %w", name, err)
		}
		out[name] = r
		return r, nil
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := decode(n, 0); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		for _, a := range out[n].Aliases {
			if _, dup := out[a]; dup {
				return nil, fmt.Errorf("%s.json: alias %q is taken", n, a)
			}
			out[a] = out[n]
		}
	}
	return out, nil
}

func (r *Record) clone() Record {
	c := *r
	c.Types.Kinds = make(map[string]Kind, len(r.Types.Kinds))
	for k, v := range r.Types.Kinds {
		c.Types.Kinds[k] = v
	}
	c.Errors.Codes = make(map[string]string, len(r.Errors.Codes))
	for k, v := range r.Errors.Codes {
		c.Errors.Codes[k] = v
	}
	c.Types.IntegerWhenScaleZero = append([]string(nil), r.Types.IntegerWhenScaleZero...)
	c.Names.Reserved = append([]string(nil), r.Names.Reserved...)
	c.Names.PseudoColumns = append([]string(nil), r.Names.PseudoColumns...)
	return c
}

func (r *Record) validate() error {
	id := r.Identifiers
	if len(id.Quote) != 1 {
		return fmt.Errorf("identifiers.quote must be one character, got %q", id.Quote)
	}
	if id.Escape != "double" && id.Escape != "backslash" {
		return fmt.Errorf("identifiers.escape %q: want double or backslash", id.Escape)
	}
	for field, v := range map[string]string{
		"types.string": r.Types.String, "types.float": r.Types.Float, "types.bigint": r.Types.BigInt,
		"sql.hash": r.SQL.Hash, "sql.percentile": r.SQL.Percentile, "sql.date_trunc": r.SQL.DateTrunc,
		"sql.distinct": r.SQL.Distinct, "sql.not_distinct": r.SQL.NotDistinct, "sql.count_if": r.SQL.CountIf,
		"sql.except": r.SQL.Except,
	} {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("%s is required", field)
		}
	}
	if r.SQL.Concat != "||" && r.SQL.Concat != "CONCAT" {
		return fmt.Errorf("sql.concat %q: want || or CONCAT", r.SQL.Concat)
	}
	for k, v := range r.Types.Kinds {
		if !v.valid() {
			return fmt.Errorf("types.kinds[%s] = %q is not a kind", k, v)
		}
		if k != normalizeType(k) {
			return fmt.Errorf("types.kinds key %q must be lower case without parameters", k)
		}
	}
	switch r.Names.CastOutput {
	case "", "operand", "text", "anonymous_f", "anonymous_col":
	default:
		return fmt.Errorf("names.cast_output %q: want operand, text, anonymous_f or anonymous_col", r.Names.CastOutput)
	}
	for _, list := range [][]string{r.Names.Reserved, r.Names.PseudoColumns} {
		for _, w := range list {
			if w == "" || w != strings.ToUpper(w) || strings.ContainsAny(w, " \t\n") {
				return fmt.Errorf("names: %q must be one upper-case word", w)
			}
		}
	}
	for code, class := range r.Errors.Codes {
		if !contains(ErrorClasses(), class) {
			return fmt.Errorf("errors.codes[%s] = %q: want one of %s", code, class, strings.Join(ErrorClasses(), ", "))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
