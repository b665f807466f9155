package fakeserver

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Spelling is how a warehouse's lexical syntax differs from DuckDB's.
// ToDuckDB rewrites only tokens that mean the same thing in both engines
// (a quoted identifier, a string literal's value, a function whose
// definition is identical), so the engine answers what the warehouse
// would; anything whose meaning differs is left alone and fails in DuckDB,
// and the suite skips that subtest with its reason.
type Spelling struct {
	// Backticks: `quoted` identifiers (BigQuery, Databricks), with a
	// doubled or backslash-escaped backtick inside.
	Backticks bool
	// BackslashEscapes: string literals take C-style escapes (\' \\ \n \t
	// \r \b \f \0 \xhh \uhhhh; any other escaped character stands for
	// itself), as in BigQuery, Snowflake and Databricks.
	BackslashEscapes bool
	// DoubleQuotedStrings: "text" is a string literal, not an identifier
	// (BigQuery).
	DoubleQuotedStrings bool
	// Functions renames functions (upper-case name → DuckDB name) whose
	// definition is the same in both engines.
	Functions map[string]string
}

// ToDuckDB rewrites sql in DuckDB's spelling.
func (sp Spelling) ToDuckDB(sql string) string {
	var b strings.Builder
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || (c == '"' && sp.DoubleQuotedStrings):
			val, n := sp.stringLiteral(sql[i:])
			b.WriteString(quoteString(val))
			i += n
		case c == '`' && sp.Backticks:
			name, n := backtickIdent(sql[i:])
			b.WriteString(quoteIdent(name))
			i += n
		case c == '"':
			// A DuckDB-style quoted identifier: copied as is.
			n := quotedLen(sql[i:])
			b.WriteString(sql[i : i+n])
			i += n
		case strings.HasPrefix(sql[i:], "--"):
			n := strings.IndexByte(sql[i:], '\n')
			if n < 0 {
				n = len(sql) - i
			}
			b.WriteString(sql[i : i+n])
			i += n
		case isIdentStart(c):
			j := i
			for j < len(sql) && isIdentPart(sql[j]) {
				j++
			}
			word := sql[i:j]
			if to, ok := sp.Functions[strings.ToUpper(word)]; ok && strings.HasPrefix(strings.TrimLeft(sql[j:], " \t\n"), "(") {
				word = to
			}
			b.WriteString(word)
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// stringLiteral reads the literal at the start of s (its quote is s[0])
// and returns its value and length; an unterminated literal runs to the end.
func (sp Spelling) stringLiteral(s string) (string, int) {
	q := s[0]
	var v strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == q && i+1 < len(s) && s[i+1] == q:
			v.WriteByte(q)
			i += 2
		case c == q:
			return v.String(), i + 1
		case c == '\\' && sp.BackslashEscapes && i+1 < len(s):
			n := unescape(&v, s[i+1:])
			i += 1 + n
		default:
			v.WriteByte(c)
			i++
		}
	}
	return v.String(), i
}

// unescape writes the character an escape sequence (s follows the
// backslash) stands for and returns the sequence's length.
func unescape(v *strings.Builder, s string) int {
	simple := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f', '0': 0, 'a': '\a', 'v': '\v'}
	if c, ok := simple[s[0]]; ok {
		v.WriteByte(c)
		return 1
	}
	for _, hex := range []struct {
		prefix byte
		digits int
	}{{'x', 2}, {'u', 4}} {
		if s[0] == hex.prefix && len(s) > hex.digits {
			if r, err := strconv.ParseUint(s[1:1+hex.digits], 16, 32); err == nil {
				v.WriteRune(rune(r))
				return 1 + hex.digits
			}
		}
	}
	_, n := utf8.DecodeRuneInString(s)
	v.WriteString(s[:n])
	return n
}

// backtickIdent reads the `identifier` at the start of s.
func backtickIdent(s string) (string, int) {
	var name strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '`' && i+1 < len(s) && s[i+1] == '`', c == '\\' && i+1 < len(s):
			i++
			name.WriteByte(s[i])
		case c == '`':
			return name.String(), i + 1
		default:
			name.WriteByte(c)
		}
	}
	return name.String(), len(s)
}

// quotedLen is the length of the "identifier" at the start of s (a
// doubled quote stays inside).
func quotedLen(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(s)
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }
