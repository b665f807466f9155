// Function tables of the resolver: aggregates, niladic keywords, table
// functions whose rows are elements of their arguments, date functions.

package cll

import (
	"bytes"
	"strings"
)

// elementFuncs are table functions whose rows are elements of their
// arguments; everything else in FROM position is opaque.
var elementFuncs = map[string]bool{
	"UNNEST": true, "FLATTEN": true, "EXPLODE": true, "EXPLODE_OUTER": true, "POSEXPLODE": true, "POSEXPLODE_OUTER": true,
	"INLINE": true, "INLINE_OUTER": true, "GENERATE_SERIES": true, "GENERATE_DATE_ARRAY": true, "GENERATE_TIMESTAMP_ARRAY": true,
	"GENERATE_ARRAY": true, "RANGE": true, "JSON_EACH": true, "JSONB_EACH": true, "JSON_EACH_TEXT": true, "JSONB_EACH_TEXT": true,
	"JSON_ARRAY_ELEMENTS": true, "JSONB_ARRAY_ELEMENTS": true, "JSON_ARRAY_ELEMENTS_TEXT": true, "JSONB_ARRAY_ELEMENTS_TEXT": true,
	"REGEXP_SPLIT_TO_TABLE": true, "STRING_TO_TABLE": true, "SPLIT_TO_TABLE": true, "JSON_TABLE": true, "UNNEST_ARRAY": true,
	"TABLE": true,
}

// niladic are keywords that look like columns but are values.
var niladic = map[string]bool{
	"CURRENT_TIMESTAMP": true, "CURRENT_DATE": true, "CURRENT_TIME": true, "LOCALTIME": true, "LOCALTIMESTAMP": true,
	"CURRENT_USER": true, "SESSION_USER": true, "SYSDATE": true, "SYSTIMESTAMP": true, "CURRENT_SCHEMA": true,
	"CURRENT_DATABASE": true, "CURRENT_ROLE": true, "CURRENT_CATALOG": true, "GETDATE": true,
}

var aggregates = map[string]bool{
	"SUM": true, "COUNT": true, "AVG": true, "MIN": true, "MAX": true, "ANY_VALUE": true, "ARRAY_AGG": true,
	"STRING_AGG": true, "LISTAGG": true, "GROUP_CONCAT": true, "MEDIAN": true, "MODE": true, "STDDEV": true,
	"STDDEV_POP": true, "STDDEV_SAMP": true, "VARIANCE": true, "VAR_POP": true, "VAR_SAMP": true, "COUNT_IF": true,
	"COUNTIF": true, "APPROX_COUNT_DISTINCT": true, "APPROX_DISTINCT": true, "BOOL_AND": true, "BOOL_OR": true,
	"BOOLAND_AGG": true, "BOOLOR_AGG": true, "LOGICAL_AND": true, "LOGICAL_OR": true, "EVERY": true,
	"PERCENTILE_CONT": true, "PERCENTILE_DISC": true, "APPROX_PERCENTILE": true, "APPROX_QUANTILES": true,
	"QUANTILE": true, "QUANTILE_CONT": true, "QUANTILE_DISC": true, "LIST": true, "OBJECT_AGG": true,
	"ARRAY_UNIQUE_AGG": true, "HLL": true, "ARG_MAX": true, "ARG_MIN": true, "ARGMAX": true, "ARGMIN": true,
	"MAX_BY": true, "MIN_BY": true, "SUM_IF": true, "AVG_IF": true, "BIT_AND": true, "BIT_OR": true, "JSON_AGG": true,
	"JSONB_AGG": true, "JSON_OBJECT_AGG": true, "CORR": true, "COVAR_POP": true, "COVAR_SAMP": true, "FIRST": true,
	"LAST": true, "COLLECT_LIST": true, "COLLECT_SET": true, "KURTOSIS": true, "SKEWNESS": true, "ENTROPY": true,
	"HISTOGRAM": true, "PRODUCT": true, "FSUM": true, "STRING_AGG_DISTINCT": true, "XMLAGG": true,
}

// IsAggregate reports whether a function name is an aggregate.
func IsAggregate(name string) bool { return inUpper(aggregates, name) }

func isDateFunc(name string) bool {
	var buf [32]byte
	if u, ok := upperASCII(buf[:0], name); ok {
		return bytes.Contains(u, []byte("DATE")) || bytes.Contains(u, []byte("TIME")) || isDateFuncName(string(u))
	}
	u := strings.ToUpper(name)
	return strings.Contains(u, "DATE") || strings.Contains(u, "TIME") || isDateFuncName(u)
}

func isDateFuncName(u string) bool {
	switch u {
	case "EXTRACT", "LAST_DAY", "TRUNC", "DATE_PART", "DATEPART", "TIME_SLICE", "TIMESTAMPADD", "TIMESTAMPDIFF":
		return true
	}
	return false
}
