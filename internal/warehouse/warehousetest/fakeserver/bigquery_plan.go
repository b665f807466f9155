package fakeserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"
	bq "google.golang.org/api/bigquery/v2"
)

// plan is the dry run: the statement's type and the bytes it would scan,
// and its DuckDB spelling, without running anything.
func (f *BigQuery) plan(ctx context.Context, q *bq.JobConfigurationQuery) (string, int64, string, *bqError) {
	if q.UseLegacySql == nil || *q.UseLegacySql {
		return "", 0, "", &bqError{400, "invalidQuery", "the fake speaks GoogleSQL only; the request asked for legacy SQL (useLegacySql unset or true)"}
	}
	duck, berr := f.informationSchema(ctx, bigquerySpelling.ToDuckDB(q.Query))
	if berr != nil {
		return "", 0, "", berr
	}
	conn, release, err := f.Engine.Conn(ctx, defaultDataset(q))
	if err != nil {
		return "", 0, "", engineError(err)
	}
	defer release()
	var stmtType duckdbdrv.StmtType
	err = conn.Raw(func(dc any) error {
		// Prepare, not PrepareContext: DuckDB's PrepareContext runs every
		// statement but the last, and a dry run runs nothing.
		st, err := dc.(*duckdbdrv.Conn).Prepare(duck)
		if err != nil {
			return err
		}
		defer st.Close()
		stmtType, err = st.(*duckdbdrv.Stmt).StatementType()
		return err
	})
	if err != nil && strings.Contains(err.Error(), "multi-statement") {
		return "SCRIPT", 0, duck, nil
	}
	if err != nil {
		return "", 0, "", engineError(err)
	}
	st, ok := statementTypes[stmtType]
	if !ok {
		return "", 0, "", &bqError{400, "invalidQuery", "Syntax error: not a GoogleSQL statement: " + q.Query}
	}
	if strings.HasSuffix(st, "_") {
		st += objectKind(duck)
	}
	if st == "CREATE_TABLE" && asSelect.MatchString(duck) {
		st = "CREATE_TABLE_AS_SELECT"
	}
	if st != "SELECT" {
		return st, 0, duck, nil
	}
	var kind, planJSON string
	if err := conn.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+duck).Scan(&kind, &planJSON); err != nil {
		return "", 0, "", engineError(err)
	}
	var nodes []planNode
	if err := json.Unmarshal([]byte(planJSON), &nodes); err != nil {
		return "", 0, "", &bqError{400, "invalidQuery", "the fake could not read DuckDB's plan: " + err.Error()}
	}
	var bytes int64
	for _, s := range scans(nodes) {
		parts := splitName(s.table)
		if len(parts) != 3 {
			continue
		}
		f.mu.Lock()
		denied := f.denied[parts[1]+"."+parts[2]]
		f.mu.Unlock()
		if denied {
			name := parts[0] + ":" + parts[1] + "." + parts[2]
			return "", 0, "", &bqError{403, "accessDenied", fmt.Sprintf("Access Denied: Table %s: User does not have permission to query table %s, or perhaps it does not exist.", name, name)}
		}
		sizes, err := f.columnBytes(ctx, conn, parts[0], parts[1], parts[2])
		if err != nil {
			return "", 0, "", engineError(err)
		}
		for col, n := range sizes {
			if s.reads(col) {
				bytes += n
			}
		}
	}
	return st, bytes, duck, nil
}

// bigquerySpelling: backtick identifiers, "double-quoted" strings and
// backslash escapes.
var bigquerySpelling = Spelling{Backticks: true, BackslashEscapes: true, DoubleQuotedStrings: true}

// statementTypes are BigQuery's names of DuckDB's statement types; a name
// ending in _ takes the object (CREATE_TABLE, DROP_VIEW, ...).
var statementTypes = map[duckdbdrv.StmtType]string{
	duckdbdrv.STATEMENT_TYPE_SELECT: "SELECT", duckdbdrv.STATEMENT_TYPE_INSERT: "INSERT",
	duckdbdrv.STATEMENT_TYPE_UPDATE: "UPDATE", duckdbdrv.STATEMENT_TYPE_DELETE: "DELETE",
	duckdbdrv.STATEMENT_TYPE_CREATE: "CREATE_", duckdbdrv.STATEMENT_TYPE_DROP: "DROP_",
	duckdbdrv.STATEMENT_TYPE_ALTER: "ALTER_",
}

var objectWord = regexp.MustCompile(`(?i)\b(TABLE|VIEW|SCHEMA|FUNCTION|MACRO|SEQUENCE|INDEX)\b`)

var asSelect = regexp.MustCompile(`(?i)\bAS\s*(\(\s*)?(SELECT|WITH)\b`)

// objectKind names what a CREATE/DROP/ALTER statement is about.
func objectKind(sql string) string {
	switch w := strings.ToUpper(objectWord.FindString(sql)); w {
	case "":
		return "TABLE"
	case "MACRO":
		return "FUNCTION"
	default:
		return w
	}
}

type planNode struct {
	Children  []planNode     `json:"children"`
	ExtraInfo map[string]any `json:"extra_info"`
}

type scan struct {
	table       string
	projections []string
	filters     string
}

func (s scan) reads(col string) bool {
	for _, p := range s.projections {
		if strings.EqualFold(strings.Trim(p, `"`), col) {
			return true
		}
	}
	return regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(col) + `\b`).MatchString(s.filters)
}

// scans lists the table scans of a DuckDB plan.
func scans(nodes []planNode) []scan {
	var out []scan
	for _, n := range nodes {
		if t, ok := n.ExtraInfo["Table"].(string); ok {
			out = append(out, scan{table: t, projections: texts(n.ExtraInfo["Projections"]), filters: strings.Join(texts(n.ExtraInfo["Filters"]), " ")})
		}
		out = append(out, scans(n.Children)...)
	}
	return out
}

// texts reads a plan attribute, which DuckDB writes as a string or a list.
func texts(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// columnBytes is each column's logical size in BigQuery's terms (the
// database is read-only while served, so it is computed once a table).
func (f *BigQuery) columnBytes(ctx context.Context, conn *sql.Conn, catalog, schema, table string) (map[string]int64, error) {
	key := catalog + "." + schema + "." + table
	f.mu.Lock()
	sizes, ok := f.sizes[key]
	f.mu.Unlock()
	if ok {
		return sizes, nil
	}
	rows, err := conn.QueryContext(ctx, `SELECT column_name, data_type FROM duckdb_columns()
		WHERE database_name = ? AND schema_name = ? AND table_name = ? ORDER BY column_index`, catalog, schema, table)
	if err != nil {
		return nil, err
	}
	var names, sums []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			rows.Close()
			return nil, err
		}
		t, ok := bqTypeOf(typ)
		if !ok {
			continue // not a type the fake serves: never read by a query it answers
		}
		size := strconv.Itoa(t.bytes)
		if t.bytes == 0 {
			size = "2 + octet_length(CAST(" + quoteIdent(name) + " AS BLOB))"
		}
		names = append(names, name)
		sums = append(sums, "COALESCE(SUM(CASE WHEN "+quoteIdent(name)+" IS NULL THEN 0 ELSE "+size+" END), 0)")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sizes = map[string]int64{}
	if len(sums) > 0 {
		vals := make([]int64, len(sums))
		ptrs := make([]any, len(sums))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		q := "SELECT " + strings.Join(sums, ", ") + " FROM " + quoteIdent(catalog) + "." + quoteIdent(schema) + "." + quoteIdent(table)
		if err := conn.QueryRowContext(ctx, q).Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, n := range names {
			sizes[n] = vals[i]
		}
	}
	f.mu.Lock()
	f.sizes[key] = sizes
	f.mu.Unlock()
	return sizes, nil
}

// infoSchemaColumns matches [project.]dataset.INFORMATION_SCHEMA.COLUMNS
// (after ToDuckDB: "quoted" or bare names).
var infoSchemaColumns = regexp.MustCompile(`(?i)(?:("(?:[^"]|"")*"|[a-z_][\w-]*)\.)?("(?:[^"]|"")*"|\w+)\.INFORMATION_SCHEMA\.COLUMNS\b`)

// informationSchema rewrites a dataset's INFORMATION_SCHEMA.COLUMNS as
// that dataset's rows of DuckDB's, with BigQuery's type names; a dataset
// that does not exist is BigQuery's notFound.
func (f *BigQuery) informationSchema(ctx context.Context, duck string) (string, *bqError) {
	var missing *bqError
	out := infoSchemaColumns.ReplaceAllStringFunc(duck, func(m string) string {
		sub := infoSchemaColumns.FindStringSubmatch(m)
		project, dataset := unquote(sub[1]), unquote(sub[2])
		if project == "" {
			project = f.Engine.Catalog
		}
		var n int
		if err := f.Engine.queryRow(ctx, "SELECT count(*) FROM duckdb_schemas() WHERE database_name = ? AND schema_name = ?", []any{project, dataset}, &n); err != nil || n == 0 {
			missing = &bqError{404, "notFound", fmt.Sprintf("Not found: Dataset %s:%s was not found in location %s", project, dataset, f.Location)}
		}
		return "(SELECT table_catalog, table_schema, table_name, column_name, ordinal_position, is_nullable, " + infoSchemaType +
			" AS data_type FROM information_schema.columns WHERE table_catalog = " + quoteString(project) + " AND table_schema = " + quoteString(dataset) + ")"
	})
	return out, missing
}

// splitName splits a qualified name as DuckDB prints it ("a-b".c.d).
func splitName(s string) []string {
	var parts []string
	for s != "" {
		n := strings.IndexByte(s, '.')
		if strings.HasPrefix(s, `"`) {
			n = quotedLen(s)
		} else if n < 0 {
			n = len(s)
		}
		parts = append(parts, unquote(s[:n]))
		s = strings.TrimPrefix(s[n:], ".")
	}
	return parts
}

func unquote(s string) string {
	if strings.HasPrefix(s, `"`) {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}
