package sqlparse

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ripple-data/ripple/internal/dialect"
)

// TokenKind classifies a token.
type TokenKind uint8

// Token kinds.
const (
	EOF TokenKind = iota
	Ident
	QuotedIdent
	String
	Number
	Op
	Param
)

func (k TokenKind) String() string {
	switch k {
	case EOF:
		return "end of input"
	case Ident:
		return "identifier"
	case QuotedIdent:
		return "quoted identifier"
	case String:
		return "string"
	case Number:
		return "number"
	case Op:
		return "operator"
	case Param:
		return "parameter"
	}
	return "token"
}

// Pos is a 1-based line and column.
type Pos struct {
	Line int32 `json:"line"`
	Col  int32 `json:"col"`
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Token is one lexeme. Text holds the identifier (unfolded, unquoted),
// the string's value, the number or the operator.
type Token struct {
	Text string
	Pos  Pos
	Kind TokenKind
	// Backtick marks a `quoted` identifier; BigQuery lets one hold a
	// whole dotted path.
	Backtick bool
	// kw indexes keywordNames for an unquoted identifier that is a known
	// keyword (0 otherwise); it keeps Token at 32 bytes.
	kw uint16
}

// Upper returns the upper-cased text of an unquoted identifier that is a
// known keyword, or "" for any other token.
func (t Token) Upper() string { return keywordNames[t.kw] }

// Error is a syntax error with its position.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
}

// Lex splits src into tokens for the dialect. Comments and whitespace are
// dropped. It never panics; malformed input yields an *Error.
func Lex(d Dialect, src string) ([]Token, error) {
	return lexInto(d, src, make([]Token, 0, len(src)/3+4))
}

// lexInto appends src's tokens to toks (reusing its storage).
func lexInto(d Dialect, src string, toks []Token) ([]Token, error) {
	lx := lexer{d: d, src: src, line: 1, lineStart: 0, colAt: 1, ascii: isASCII(src)}
	for {
		// Fast paths for the most frequent tokens, appended without
		// going through next and token.
		for lx.i < len(src) {
			if c := src[lx.i]; c == ' ' {
				lx.i++
			} else if c == '\n' {
				lx.i++
				lx.line++
				lx.lineStart = lx.i
			} else {
				break
			}
		}
		if lx.i < len(src) {
			c := src[lx.i]
			switch {
			case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
				if lx.i+1 >= len(src) || src[lx.i+1] != '\'' {
					toks = append(toks, lx.ident())
					continue
				}
			case c == ',' || c == '(' || c == ')' || c == '.' && (lx.i+1 >= len(src) || src[lx.i+1] < '0' || src[lx.i+1] > '9'):
				start := lx.i
				lx.i++
				toks = append(toks, Token{Kind: Op, Text: src[start:lx.i], Pos: lx.pos(start)})
				continue
			}
		}
		t, err := lx.next()
		if err != nil {
			return toks, err
		}
		toks = append(toks, t)
		if t.Kind == EOF {
			return toks, nil
		}
	}
}

type lexer struct {
	d         Dialect
	src       string
	i         int
	line      int
	lineStart int
	// colAt/colIdx memoise the last computed column so that positions on
	// very long lines (minified SQL) cost O(distance), not O(line).
	colIdx, colAt int
	// ascii is set when src is all ASCII, where a column is a byte offset.
	ascii bool
}

// isASCII reports whether s has no byte >= 0x80. It reads eight bytes at
// a time (the compiler merges the shifted loads into one): this runs over
// every query before lexing it.
func isASCII(s string) bool {
	var acc uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		acc |= uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	}
	for ; i < len(s); i++ {
		acc |= uint64(s[i])
	}
	return acc&0x8080808080808080 == 0
}

func (lx *lexer) pos(i int) Pos {
	if lx.ascii {
		return Pos{Line: int32(lx.line), Col: int32(i - lx.lineStart + 1)}
	}
	if lx.colIdx < lx.lineStart || lx.colIdx > i {
		lx.colIdx, lx.colAt = lx.lineStart, 1
	}
	seg := lx.src[lx.colIdx:i]
	n := len(seg)
	for j := 0; j < len(seg); j++ {
		if seg[j] >= 0x80 {
			n = utf8.RuneCountInString(seg)
			break
		}
	}
	lx.colAt += n
	lx.colIdx = i
	return Pos{Line: int32(lx.line), Col: int32(lx.colAt)}
}

// advanceLines keeps line bookkeeping right across multi-line lexemes.
func (lx *lexer) advanceLines(from, to int) {
	for j := from; j < to; j++ {
		if lx.src[j] == '\n' {
			lx.line++
			lx.lineStart = j + 1
		}
	}
}

func (lx *lexer) errf(i int, format string, a ...any) error {
	return &Error{Pos: lx.pos(i), Msg: fmt.Sprintf(format, a...)}
}

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

var multiOps = []string{"::", "||", "<=", ">=", "<>", "!=", "=>", "->>", "->", "==", "<<", ">>", "**", "//", "!~*", "!~", "~*", "@>", "<@", "&&", ":="}

// singleOps are the one-byte operators.
var singleOps = func() (t [256]bool) {
	for _, c := range []byte("(),.;+-*/%=<>[]{}|&^~!:@$") {
		t[c] = true
	}
	return t
}()

// multiOpsByFirst lists multiOps by first byte, in multiOps order.
var multiOpsByFirst = func() (m [256][]string) {
	for _, op := range multiOps {
		m[op[0]] = append(m[op[0]], op)
	}
	return m
}()

func (lx *lexer) next() (Token, error) {
	src := lx.src
	for lx.i < len(src) {
		c := src[lx.i]
		if c == ' ' {
			lx.i++
			continue
		}
		switch {
		case c == '\n':
			lx.i++
			lx.line++
			lx.lineStart = lx.i
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			lx.i++
		case c == '-' && lx.i+1 < len(src) && src[lx.i+1] == '-', c == '#' && lx.d.HashComment, c == '/' && lx.i+1 < len(src) && src[lx.i+1] == '/' && lx.d.HashComment:
			for lx.i < len(src) && src[lx.i] != '\n' {
				lx.i++
			}
		case c == '/' && lx.i+1 < len(src) && src[lx.i+1] == '*':
			start := lx.i
			// Nested block comments are legal in Postgres and DuckDB.
			depth := 0
			j := lx.i
			for j < len(src) {
				if src[j] == '/' && j+1 < len(src) && src[j+1] == '*' {
					depth++
					j += 2
					continue
				}
				if src[j] == '*' && j+1 < len(src) && src[j+1] == '/' {
					depth--
					j += 2
					if depth == 0 {
						break
					}
					continue
				}
				j++
			}
			if depth != 0 {
				return Token{}, lx.errf(start, "unterminated block comment")
			}
			lx.advanceLines(lx.i, j)
			lx.i = j
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(src[lx.i:])
			space, ident := lx.d.nonASCII(r)
			if space {
				lx.i += size
				continue
			}
			if ident {
				return lx.ident(), nil
			}
			return Token{}, lx.errf(lx.i, "unexpected character %q", r)
		default:
			return lx.token()
		}
	}
	return Token{Kind: EOF, Pos: lx.pos(lx.i)}, nil
}

// nonASCII says whether the dialect's own lexer reads a non-ASCII rune as
// space or as part of an identifier. It must agree with the warehouse:
// reading a no-break space as space where Postgres reads an identifier byte
// turns "\u00a0E'\'..." into an escape string, which Postgres does not see,
// and internal/sqlguard would split statements differently.
func (d Dialect) nonASCII(r rune) (space, ident bool) {
	switch d.Name {
	case "postgres", "redshift":
		// scan.l: every byte >= 0x80 is an identifier byte.
		return false, true
	case "duckdb":
		// DuckDB turns these into spaces before parsing (measured against
		// DuckDB 1.5 in internal/sqlguard's fuzz test); any other
		// non-ASCII rune is an identifier byte, as in Postgres.
		switch r {
		case 0xa0, 0x200b, 0x202f, 0x205f, 0x2060, 0x3000, 0xfeff:
			return true, false
		}
		return r >= 0x2000 && r <= 0x200a, !(r >= 0x2000 && r <= 0x200a)
	}
	return unicode.IsSpace(r), isIdentStart(r)
}

// identByte marks the ASCII bytes that continue an identifier.
var identByte = func() (t [256]bool) {
	for c := 0; c < 0x80; c++ {
		t[c] = c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return t
}()

func (lx *lexer) ident() Token {
	start := lx.i
	// The ASCII run in a local index first; the loop below goes on past
	// non-ASCII letters.
	src, i := lx.src, lx.i
	for i < len(src) && identByte[src[i]] {
		i++
	}
	lx.i = i
	for lx.i < len(lx.src) {
		if c := lx.src[lx.i]; c < 0x80 {
			if identByte[c] {
				lx.i++
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(lx.src[lx.i:])
		if space, ident := lx.d.nonASCII(r); space || !ident && !isIdentPart(r) {
			break
		}
		lx.i += size
	}
	text := lx.src[start:lx.i]
	return Token{Kind: Ident, Text: text, kw: keywordIndex(text), Pos: lx.pos(start)}
}

// keywordIndex returns the keywordNames index of text when it is a word
// the parser compares against, else 0. Upper-casing every identifier was
// the lexer's largest allocation cost.
func keywordIndex(text string) uint16 {
	if len(text) > maxKeywordLen || len(text) == 0 {
		return 0
	}
	// Most identifiers are column and table names: reject them by length,
	// first and last letter before upper-casing and hashing.
	if kwShape[len(text)][0]&kwCharBit(text[0]) == 0 || kwShape[len(text)][1]&kwCharBit(text[len(text)-1]) == 0 {
		return 0
	}
	var buf [maxKeywordLen]byte
	h := uint32(len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		} else if c >= 0x80 {
			return 0
		}
		buf[i] = c
		h = h*31 + uint32(c)
	}
	up := buf[:len(text)]
	for j := h & kwTableMask; ; j = (j + 1) & kwTableMask {
		k := keywordTable[j]
		if k == 0 {
			return 0
		}
		if keywordNames[k] == string(up) {
			return k
		}
	}
}

// kwCharBit maps a byte to a bit: one per letter (either case), one for
// anything else.
func kwCharBit(c byte) uint32 {
	if c |= 0x20; c >= 'a' && c <= 'z' {
		return 1 << (c - 'a')
	}
	return 1 << 26
}

// kwShape holds, per keyword length, the kwCharBit masks of keywords'
// first and last bytes.
var kwShape = func() (t [maxKeywordLen + 1][2]uint32) {
	for _, w := range keywordNames[1:] {
		t[len(w)][0] |= kwCharBit(w[0])
		t[len(w)][1] |= kwCharBit(w[len(w)-1])
	}
	return t
}()

// maxKeywordLen bounds keyword length (MATCH_RECOGNIZE is the longest).
const maxKeywordLen = 24

const kwTableMask = 1023

// keywordTable is an open-addressing hash table of keywordNames indexes,
// cheaper to probe than a map for every identifier the lexer sees.
var keywordTable = func() (t [kwTableMask + 1]uint16) {
	for i, w := range keywordNames[1:] {
		if len(w) > maxKeywordLen {
			panic("sqlparse: keyword longer than maxKeywordLen: " + w)
		}
		h := uint32(len(w))
		for k := 0; k < len(w); k++ {
			h = h*31 + uint32(w[k])
		}
		j := h & kwTableMask
		for t[j] != 0 {
			j = (j + 1) & kwTableMask
		}
		t[j] = uint16(i + 1)
	}
	return t
}()

// keywordNames is every word the parser tests with Token.Upper (index 0 is
// ""); TestKeywordsCoverParser keeps it in sync with parser.go.
// The warehouse records' reserved words are keywords too, so that a
// dialect's reserved set is indexed like the parser's own words.
var keywordNames = func() []string {
	out := append([]string{""}, strings.Fields(keywordList)...)
	have := map[string]bool{}
	for _, w := range out {
		have[w] = true
	}
	for _, w := range dialect.ReservedWords() {
		if !have[w] {
			have[w] = true
			out = append(out, w)
		}
	}
	return out
}()

var keywords = func() map[string]uint16 {
	m := make(map[string]uint16, len(keywordNames))
	for i, w := range keywordNames[1:] {
		m[w] = uint16(i + 1)
	}
	return m
}()

const keywordList = `
CLUSTER CREATE DISTRIBUTE INSERT SORT VIEW
ALL AND ANTI ANY APPLY ARRAY AS ASC ASOF AT BEFORE BETWEEN BIGNUMERIC BOTH BY BYTES CASE CAST
CENTURY CHANGES COLLATE COLUMNS CONNECT CORRESPONDING CROSS CUBE D DATE DATETIME DAY DAYOFMONTH
DAYOFWEEK DAYOFYEAR DAYS DD DECADE DECIMAL DEFAULT DESC DISTINCT DIV DOW DOY DW ELSE END EPOCH
EPOCH_SECOND ESCAPE EXCEPT EXCLUDE EXISTS FALSE FETCH FILTER FINAL FIRST FOR FORCE FORMAT FRIDAY
FROM FULL GROUP GROUPING GROUPS H HAVING HH HOUR HOURS IGNORE ILIKE IN INCLUDE INET INNER INTERSECT
INTERVAL INTO IS ISNULL ISODOW ISOWEEK ISOYEAR JOIN JSON LAMBDA LAST LATERAL LEADING LEFT LIKE LIMIT
LOCAL M MAP MATCH_RECOGNIZE MATERIALIZED MI MICROSECOND MICROSECONDS MILLENNIUM MILLISECOND MILLISECONDS
MILS MINUS MINUTE MINUTES MM MOD MON MONDAY MONTH MONTHS MS NAME NANOSECOND NANOSECONDS NATURAL NEXT
NOT NOTNULL NS NULL NULLS NUMERIC OF OFFSET ON ONLY OR ORDER OUTER OVER PARTITION PIVOT PLACING
POSITIONAL PRECISION Q QUALIFY QUARTER QUARTERS RANGE RECURSIVE REGEXP RENAME REPEATABLE REPLACE
RESPECT RETURNING RIGHT RLIKE ROLLUP ROW ROWS S SAFE_CAST SAMPLE SATURDAY SCALAR SECOND SECONDS SEED
SELECT SEMI SEPARATOR SETS SIMILAR SOME SS START STRUCT SUNDAY SYMMETRIC SYSTEM_TIME TABLE
TABLESAMPLE TEMP TEMPORARY THEN THURSDAY TIES TIME TIMESTAMP TIMESTAMPTZ TIMESTAMP_LTZ TIMESTAMP_NTZ
TIMESTAMP_TZ TIMEZONE_HOUR TIMEZONE_MINUTE TO TOP TRAILING TRUE TRY_CAST TUESDAY UNION UNKNOWN
UNNEST UNPIVOT UNSIGNED US USE USING UUID VALUES VARYING VERSION W WEDNESDAY WEEK WEEKDAY WEEKOFYEAR
WEEKS WHEN WHERE WINDOW WITH WITHIN WITHOUT WK Y YEAR YEAROFWEEK YEARS YY YYYY ZONE
`

func (lx *lexer) token() (Token, error) {
	src := lx.src
	start := lx.i
	c := src[start]
	// Fast path: an identifier or keyword, unless it prefixes a string
	// literal (E'..', N'..', B'..', X'..', r'..').
	if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		if start+1 >= len(src) || src[start+1] != '\'' {
			return lx.ident(), nil
		}
	}
	switch {
	case c == '\'':
		return lx.quoted(start, '\'', String)
	case c == '"':
		return lx.quoted(start, '"', QuotedIdent)
	case c == '`' && lx.d.Backtick:
		// Only where backticks quote identifiers: in DuckDB and Postgres a
		// backtick is an operator character, and reading it as a quote would
		// hide a ';' from the statement splitter (internal/sqlguard).
		t, err := lx.quoted(start, '`', QuotedIdent)
		t.Backtick = true
		return t, err
	case (c == 'E' || c == 'e') && start+1 < len(src) && src[start+1] == '\'':
		// Escape string E'..' (Postgres, DuckDB): backslash escapes apply
		// even where plain strings have none (E'\'' is one quote).
		p := lx.pos(start)
		lx.i++
		t, err := lx.quotedEsc(start+1, '\'', String, true)
		t.Pos = p
		return t, err
	case (c == 'N' || c == 'n' || c == 'B' || c == 'b' || c == 'X' || c == 'x' || c == 'R' || c == 'r') && start+1 < len(src) && src[start+1] == '\'':
		// Prefixed string literal: N'..', B'..', X'..', r'..'.
		p := lx.pos(start)
		lx.i++
		t, err := lx.quoted(start+1, '\'', String)
		t.Pos = p
		return t, err
	case c == '$' && start+1 < len(src) && src[start+1] == '{':
		// ${var} template variables (Hive, Airflow) stand for values.
		end := strings.IndexByte(src[start:], '}')
		if end < 0 {
			return Token{}, lx.errf(start, "unterminated ${...} variable")
		}
		lx.i = start + end + 1
		return Token{Kind: Param, Text: src[start:lx.i], Pos: lx.pos(start)}, nil
	case c == '$' && lx.d.DollarQuote:
		if t, ok, err := lx.dollar(start); ok || err != nil {
			return t, err
		}
		if start+1 < len(src) && src[start+1] >= '0' && src[start+1] <= '9' {
			lx.i++
			for lx.i < len(src) && src[lx.i] >= '0' && src[lx.i] <= '9' {
				lx.i++
			}
			return Token{Kind: Param, Text: src[start:lx.i], Pos: lx.pos(start)}, nil
		}
	case c >= '0' && c <= '9' || c == '.' && start+1 < len(src) && src[start+1] >= '0' && src[start+1] <= '9':
		return lx.number(start), nil
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return lx.ident(), nil
	case c == '?':
		lx.i++
		return Token{Kind: Param, Text: "?", Pos: lx.pos(start)}, nil
	case c == '@' && start+1 < len(src) && (isIdentStart(rune(src[start+1])) || src[start+1] == '@'):
		lx.i++
		for lx.i < len(src) && (src[lx.i] == '@' || src[lx.i] < 0x80 && isIdentPart(rune(src[lx.i]))) {
			lx.i++
		}
		return Token{Kind: Param, Text: src[start:lx.i], Pos: lx.pos(start)}, nil
	}
	if start+1 < len(src) {
		for _, op := range multiOpsByFirst[c] {
			if strings.HasPrefix(src[start:], op) {
				lx.i += len(op)
				return Token{Kind: Op, Text: op, Pos: lx.pos(start)}, nil
			}
		}
	}
	if singleOps[c] {
		lx.i++
		return Token{Kind: Op, Text: src[start : start+1], Pos: lx.pos(start)}, nil
	}
	return Token{}, lx.errf(start, "unexpected character %q", rune(c))
}

func (lx *lexer) quoted(start int, q byte, kind TokenKind) (Token, error) {
	// Backslash escapes apply to string literals of dialects that have them:
	// '...' and, where backticks quote identifiers, "..." (BigQuery, Spark),
	// never to Snowflake's "quoted" identifiers ("a\" is one identifier).
	esc := lx.d.BackslashEscape && (q == '\'' || q == '"' && (lx.d.DoubleQuotedStrings || lx.d.Backtick))
	return lx.quotedEsc(start, q, kind, esc)
}

// quotedEsc reads a quoted lexeme starting at start; esc makes a backslash
// escape the next byte.
func (lx *lexer) quotedEsc(start int, q byte, kind TokenKind, esc bool) (Token, error) {
	src := lx.src
	// BigQuery allows triple-quoted strings (DoubleQuotedStrings is its
	// flag); elsewhere ''' opens a string that starts with a quote.
	if lx.d.DoubleQuotedStrings && (kind == String && strings.HasPrefix(src[start:], "'''") || q == '"' && strings.HasPrefix(src[start:], `"""`)) {
		delim := src[start : start+3]
		end := strings.Index(src[start+3:], delim)
		if end < 0 {
			return Token{}, lx.errf(start, "unterminated string")
		}
		text := src[start+3 : start+3+end]
		p := lx.pos(start)
		lx.advanceLines(start, start+6+end)
		lx.i = start + 6 + end
		return Token{Kind: String, Text: text, Pos: p}, nil
	}
	var b strings.Builder
	j := start + 1
	simple := true
	for j < len(src) {
		ch := src[j]
		if ch == '\\' && esc && j+1 < len(src) {
			if simple {
				b.WriteString(src[start+1 : j])
				simple = false
			}
			b.WriteByte(src[j+1])
			j += 2
			continue
		}
		if ch == q {
			if j+1 < len(src) && src[j+1] == q {
				if simple {
					b.WriteString(src[start+1 : j])
					simple = false
				}
				b.WriteByte(q)
				j += 2
				continue
			}
			var text string
			if simple {
				text = src[start+1 : j]
			} else {
				text = b.String()
			}
			p := lx.pos(start)
			lx.advanceLines(start, j)
			lx.i = j + 1
			return Token{Kind: kind, Text: text, Pos: p}, nil
		}
		if !simple {
			b.WriteByte(ch)
		}
		j++
	}
	if kind == String {
		return Token{}, lx.errf(start, "unterminated string literal")
	}
	return Token{}, lx.errf(start, "unterminated quoted identifier")
}

func (lx *lexer) dollar(start int) (Token, bool, error) {
	src := lx.src
	j := start + 1
	// A tag is identifier characters other than '$' (Postgres also allows
	// any non-ASCII byte), not starting with a digit.
	for j < len(src) && src[j] != '$' && (src[j] >= 0x80 || isIdentPart(rune(src[j]))) {
		j++
	}
	if j >= len(src) || src[j] != '$' {
		return Token{}, false, nil
	}
	if j > start+1 && src[start+1] >= '0' && src[start+1] <= '9' {
		return Token{}, false, nil
	}
	delim := src[start : j+1]
	end := strings.Index(src[j+1:], delim)
	if end < 0 {
		return Token{}, true, lx.errf(start, "unterminated dollar-quoted string")
	}
	text := src[j+1 : j+1+end]
	p := lx.pos(start)
	stop := j + 1 + end + len(delim)
	lx.advanceLines(start, stop)
	lx.i = stop
	return Token{Kind: String, Text: text, Pos: p}, true, nil
}

func (lx *lexer) number(start int) Token {
	src := lx.src
	j := start
	if strings.HasPrefix(src[j:], "0x") || strings.HasPrefix(src[j:], "0X") {
		j += 2
		for j < len(src) && strings.IndexByte("0123456789abcdefABCDEF_", src[j]) >= 0 {
			j++
		}
	} else {
		for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
			j++
		}
		// A '.' followed by a non-digit identifier char is a qualifier
		// (e.g. 1.foo is unusual), but 1. and 1.5 are numbers.
		if j < len(src) && src[j] == '.' && !(j+1 < len(src) && src[j+1] == '.') {
			j++
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
		}
		if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
			k := j + 1
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k < len(src) && src[k] >= '0' && src[k] <= '9' {
				j = k
				for j < len(src) && src[j] >= '0' && src[j] <= '9' {
					j++
				}
			}
		}
	}
	lx.i = j
	return Token{Kind: Number, Text: src[start:j], Pos: lx.pos(start)}
}
