// The parser's tables: reserved words, the keyword indexes it compares tokens
// against, type names, typed-literal types, function-argument separators and
// date-part keywords. Dialect facts are data here; parser.go holds the grammar.

package sqlparse

import "strings"

// clauseWords structure the SELECT grammar this parser reads (the union of
// the dialects'): none is ever an implicit alias, because "from t where x"
// must not read "where" as t's alias. Whether one may be a NAME (a column,
// a table, a qualifier, after AS) is the dialect's business: see reserved.
var clauseWords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true,
	"LIMIT": true, "OFFSET": true, "UNION": true, "INTERSECT": true, "EXCEPT": true, "MINUS": true,
	"JOIN": true, "ON": true, "USING": true, "LEFT": true, "RIGHT": true, "INNER": true, "FULL": true,
	"OUTER": true, "CROSS": true, "NATURAL": true, "WINDOW": true, "QUALIFY": true, "AS": true,
	"WITH": true, "LATERAL": true, "PIVOT": true, "UNPIVOT": true, "FETCH": true, "AND": true,
	"OR": true, "NOT": true, "IS": true, "IN": true, "BETWEEN": true, "LIKE": true, "ILIKE": true,
	"RLIKE": true, "CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true, "INTO": true,
	"ASOF": true, "POSITIONAL": true, "SEMI": true, "ANTI": true, "TABLESAMPLE": true,
	"RETURNING": true, "FOR": true, "APPLY": true, "SAMPLE": true, "CONNECT": true, "START": true,
	"MATCH_RECOGNIZE": true, "DISTINCT": true, "BY": true, "ALL": true, "VALUES": true,
	"EXCLUDE": true, "REPLACE": true, "RENAME": true, "OVER": true, "FILTER": true,
}

// operatorWords continue an expression (a MOD b, a COLLATE c, a ISNULL):
// names elsewhere, never implicit aliases.
var operatorWords = []string{"COLLATE", "DIV", "MOD", "ISNULL", "NOTNULL", "REGEXP", "SIMILAR", "ESCAPE"}

var operatorKw = func() []bool {
	out := make([]bool, len(keywordNames))
	for _, w := range operatorWords {
		out[mustKeyword(w)] = true
	}
	return out
}()

// coreReserved are clause words this parser keeps from names in every
// dialect, whatever its documentation says (Databricks reserves almost
// nothing outside ANSI mode): read as a column, "select from t" or
// "case when" would parse into nonsense instead of failing.
var coreReserved = []string{"SELECT", "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "UNION", "INTERSECT",
	"EXCEPT", "JOIN", "ON", "AND", "OR", "NOT", "CASE", "WHEN", "THEN", "ELSE", "END", "AS", "WITH",
	"DISTINCT", "INTO"}

// reservedKw is clauseWords indexed by keyword index: every clause word is
// a keyword, so reservedKw[t.kw] == clauseWords[t.Upper()] for any token.
// It is also the generic dialect's reserved set.
var reservedKw = func() []bool {
	out := make([]bool, len(keywordNames))
	for w := range clauseWords {
		out[mustKeyword(w)] = true
	}
	for _, w := range coreReserved {
		if !clauseWords[w] {
			panic("sqlparse: core reserved word is not a clause word: " + w)
		}
	}
	return out
}()

// reservedSet indexes a dialect's reserved words (from its warehouse
// record) plus coreReserved by keyword index.
func reservedSet(words []string) []bool {
	out := make([]bool, len(keywordNames))
	for _, w := range coreReserved {
		out[mustKeyword(w)] = true
	}
	for _, w := range words {
		out[mustKeyword(w)] = true
	}
	return out
}

// Keyword indexes the parser compares tokens against: comparing a
// token's index is cheaper than comparing its upper-cased text.
var (
	kwALL           = mustKeyword("ALL")
	kwAND           = mustKeyword("AND")
	kwANTI          = mustKeyword("ANTI")
	kwANY           = mustKeyword("ANY")
	kwAPPLY         = mustKeyword("APPLY")
	kwARRAY         = mustKeyword("ARRAY")
	kwAS            = mustKeyword("AS")
	kwASC           = mustKeyword("ASC")
	kwASOF          = mustKeyword("ASOF")
	kwAT            = mustKeyword("AT")
	kwBEFORE        = mustKeyword("BEFORE")
	kwBETWEEN       = mustKeyword("BETWEEN")
	kwBOTH          = mustKeyword("BOTH")
	kwBY            = mustKeyword("BY")
	kwCASE          = mustKeyword("CASE")
	kwCHANGES       = mustKeyword("CHANGES")
	kwCLUSTER       = mustKeyword("CLUSTER")
	kwCOLLATE       = mustKeyword("COLLATE")
	kwCOLUMNS       = mustKeyword("COLUMNS")
	kwCORRESPONDING = mustKeyword("CORRESPONDING")
	kwCREATE        = mustKeyword("CREATE")
	kwCROSS         = mustKeyword("CROSS")
	kwCUBE          = mustKeyword("CUBE")
	kwDEFAULT       = mustKeyword("DEFAULT")
	kwDESC          = mustKeyword("DESC")
	kwDISTINCT      = mustKeyword("DISTINCT")
	kwDISTRIBUTE    = mustKeyword("DISTRIBUTE")
	kwDIV           = mustKeyword("DIV")
	kwELSE          = mustKeyword("ELSE")
	kwEND           = mustKeyword("END")
	kwESCAPE        = mustKeyword("ESCAPE")
	kwEXCEPT        = mustKeyword("EXCEPT")
	kwEXCLUDE       = mustKeyword("EXCLUDE")
	kwFALSE         = mustKeyword("FALSE")
	kwFETCH         = mustKeyword("FETCH")
	kwFILTER        = mustKeyword("FILTER")
	kwFIRST         = mustKeyword("FIRST")
	kwFOR           = mustKeyword("FOR")
	kwFORMAT        = mustKeyword("FORMAT")
	kwFROM          = mustKeyword("FROM")
	kwFULL          = mustKeyword("FULL")
	kwGROUP         = mustKeyword("GROUP")
	kwGROUPING      = mustKeyword("GROUPING")
	kwGROUPS        = mustKeyword("GROUPS")
	kwHAVING        = mustKeyword("HAVING")
	kwIGNORE        = mustKeyword("IGNORE")
	kwILIKE         = mustKeyword("ILIKE")
	kwIN            = mustKeyword("IN")
	kwINCLUDE       = mustKeyword("INCLUDE")
	kwINNER         = mustKeyword("INNER")
	kwINSERT        = mustKeyword("INSERT")
	kwINTERSECT     = mustKeyword("INTERSECT")
	kwINTO          = mustKeyword("INTO")
	kwIS            = mustKeyword("IS")
	kwISNULL        = mustKeyword("ISNULL")
	kwJOIN          = mustKeyword("JOIN")
	kwLAST          = mustKeyword("LAST")
	kwLATERAL       = mustKeyword("LATERAL")
	kwLEADING       = mustKeyword("LEADING")
	kwLEFT          = mustKeyword("LEFT")
	kwLIKE          = mustKeyword("LIKE")
	kwLIMIT         = mustKeyword("LIMIT")
	kwMATERIALIZED  = mustKeyword("MATERIALIZED")
	kwMOD           = mustKeyword("MOD")
	kwNAME          = mustKeyword("NAME")
	kwNATURAL       = mustKeyword("NATURAL")
	kwNEXT          = mustKeyword("NEXT")
	kwNOT           = mustKeyword("NOT")
	kwNOTNULL       = mustKeyword("NOTNULL")
	kwNULL          = mustKeyword("NULL")
	kwNULLS         = mustKeyword("NULLS")
	kwOF            = mustKeyword("OF")
	kwOFFSET        = mustKeyword("OFFSET")
	kwON            = mustKeyword("ON")
	kwONLY          = mustKeyword("ONLY")
	kwOR            = mustKeyword("OR")
	kwORDER         = mustKeyword("ORDER")
	kwOUTER         = mustKeyword("OUTER")
	kwOVER          = mustKeyword("OVER")
	kwPARTITION     = mustKeyword("PARTITION")
	kwPIVOT         = mustKeyword("PIVOT")
	kwPOSITIONAL    = mustKeyword("POSITIONAL")
	kwQUALIFY       = mustKeyword("QUALIFY")
	kwRANGE         = mustKeyword("RANGE")
	kwRECURSIVE     = mustKeyword("RECURSIVE")
	kwREGEXP        = mustKeyword("REGEXP")
	kwRENAME        = mustKeyword("RENAME")
	kwREPEATABLE    = mustKeyword("REPEATABLE")
	kwREPLACE       = mustKeyword("REPLACE")
	kwRESPECT       = mustKeyword("RESPECT")
	kwRIGHT         = mustKeyword("RIGHT")
	kwRLIKE         = mustKeyword("RLIKE")
	kwROLLUP        = mustKeyword("ROLLUP")
	kwROW           = mustKeyword("ROW")
	kwROWS          = mustKeyword("ROWS")
	kwSAMPLE        = mustKeyword("SAMPLE")
	kwSEED          = mustKeyword("SEED")
	kwSELECT        = mustKeyword("SELECT")
	kwSEMI          = mustKeyword("SEMI")
	kwSEPARATOR     = mustKeyword("SEPARATOR")
	kwSETS          = mustKeyword("SETS")
	kwSIMILAR       = mustKeyword("SIMILAR")
	kwSOME          = mustKeyword("SOME")
	kwSORT          = mustKeyword("SORT")
	kwSYMMETRIC     = mustKeyword("SYMMETRIC")
	kwSYSTEMTIME    = mustKeyword("SYSTEM_TIME")
	kwTABLE         = mustKeyword("TABLE")
	kwTABLESAMPLE   = mustKeyword("TABLESAMPLE")
	kwTEMP          = mustKeyword("TEMP")
	kwTEMPORARY     = mustKeyword("TEMPORARY")
	kwTHEN          = mustKeyword("THEN")
	kwTIES          = mustKeyword("TIES")
	kwTIME          = mustKeyword("TIME")
	kwTIMESTAMP     = mustKeyword("TIMESTAMP")
	kwTO            = mustKeyword("TO")
	kwTOP           = mustKeyword("TOP")
	kwTRAILING      = mustKeyword("TRAILING")
	kwTRUE          = mustKeyword("TRUE")
	kwUNION         = mustKeyword("UNION")
	kwUNKNOWN       = mustKeyword("UNKNOWN")
	kwUNNEST        = mustKeyword("UNNEST")
	kwUNPIVOT       = mustKeyword("UNPIVOT")
	kwUSING         = mustKeyword("USING")
	kwVALUES        = mustKeyword("VALUES")
	kwVERSION       = mustKeyword("VERSION")
	kwVIEW          = mustKeyword("VIEW")
	kwWHEN          = mustKeyword("WHEN")
	kwWHERE         = mustKeyword("WHERE")
	kwWINDOW        = mustKeyword("WINDOW")
	kwWITH          = mustKeyword("WITH")
	kwWITHIN        = mustKeyword("WITHIN")
	kwZONE          = mustKeyword("ZONE")
)

// mustKeyword returns the keywordNames index of w, which must be listed.
func mustKeyword(w string) uint16 {
	k := keywordIndex(w)
	if k == 0 || keywordNames[k] != w {
		panic("sqlparse: " + w + " is missing from keywordList")
	}
	return k
}

// commonTypes interns the upper-cased names of frequent types, so that
// casts like ::integer do not allocate.
var commonTypes = func() map[string]string {
	m := map[string]string{}
	for _, t := range strings.Fields(`INT INTEGER BIGINT SMALLINT TINYINT INT64 INT4 INT8 HUGEINT NUMERIC DECIMAL NUMBER
		FLOAT FLOAT64 FLOAT8 DOUBLE REAL BOOLEAN BOOL VARCHAR TEXT STRING CHAR DATE DATETIME TIMESTAMP
		TIMESTAMPTZ TIMESTAMP_NTZ TIMESTAMP_LTZ TIMESTAMP_TZ TIME INTERVAL JSON JSONB VARIANT UUID BYTES BLOB`) {
		m[t] = t
	}
	return m
}()

// upperTypeName is strings.ToUpper(s), without allocating for common
// ASCII type names.
func upperTypeName(s string) string {
	var buf [16]byte
	if len(s) > len(buf) {
		return strings.ToUpper(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return strings.ToUpper(s)
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	if t, ok := commonTypes[string(buf[:len(s)])]; ok {
		return t
	}
	return strings.ToUpper(s)
}

// selectAsKinds are BigQuery's SELECT AS kinds.
var selectAsKinds = map[string]string{"STRUCT": "STRUCT", "VALUE": "VALUE"}

var typedLiteralTypes = map[string]bool{"DATE": true, "TIMESTAMP": true, "TIME": true, "DATETIME": true,
	"TIMESTAMPTZ": true, "TIMESTAMP_NTZ": true, "TIMESTAMP_LTZ": true, "TIMESTAMP_TZ": true, "JSON": true,
	"NUMERIC": true, "BIGNUMERIC": true, "DECIMAL": true, "UUID": true, "INET": true, "BYTES": true}

var argSeps = map[string]bool{"FROM": true, "FOR": true, "IN": true, "AS": true, "USING": true, "SEPARATOR": true, "PLACING": true, "AND": false}

var dateParts = map[string]bool{
	"YEAR": true, "YEARS": true, "QUARTER": true, "QUARTERS": true, "MONTH": true, "MONTHS": true, "WEEK": true, "WEEKS": true,
	"DAY": true, "DAYS": true, "HOUR": true, "HOURS": true, "MINUTE": true, "MINUTES": true, "SECOND": true, "SECONDS": true,
	"MILLISECOND": true, "MILLISECONDS": true, "MICROSECOND": true, "MICROSECONDS": true, "NANOSECOND": true, "NANOSECONDS": true,
	"DAYOFWEEK": true, "DAYOFYEAR": true, "DOW": true, "DOY": true, "EPOCH": true, "ISOWEEK": true, "ISOYEAR": true,
	"ISODOW": true, "DATE": true, "TIME": true, "DATETIME": true, "DECADE": true, "CENTURY": true, "MILLENNIUM": true,
	"YY": true, "YYYY": true, "MM": true, "MON": true, "DD": true, "D": true, "DW": true, "HH": true, "MI": true, "SS": true,
	"MS": true, "US": true, "NS": true, "Q": true, "W": true, "WK": true, "Y": true, "H": true, "M": true, "S": true,
	"WEEKDAY": true, "YEAROFWEEK": true, "WEEKOFYEAR": true, "DAYOFMONTH": true, "EPOCH_SECOND": true,
	"MONDAY": true, "TUESDAY": true, "WEDNESDAY": true, "THURSDAY": true, "FRIDAY": true, "SATURDAY": true, "SUNDAY": true,
	"TIMEZONE_HOUR": true, "TIMEZONE_MINUTE": true, "MILS": true,
}

// IsDatePart reports whether an unquoted word names a date or time part.
func IsDatePart(upper string) bool { return dateParts[upper] }

func isDatePart(u string) bool { return dateParts[u] }
