package fakeserver

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"
	bq "google.golang.org/api/bigquery/v2"
)

// BigQuery speaks BigQuery's REST API (v2) the way
// cloud.google.com/go/bigquery calls it, under /bigquery/v2/:
//
//   - jobs.insert (POST projects/{p}/jobs) of a query job, dry run or not;
//   - jobs.query (POST projects/{p}/queries), dry run or not, answering the
//     first page when the job ends within the wait;
//   - jobs.getQueryResults (GET projects/{p}/queries/{job}): waits for the
//     job up to the requested timeout (at most MaxWait, then
//     jobComplete=false) and pages rows with startIndex/maxResults/pageToken;
//   - jobs.get (GET projects/{p}/jobs/{job}) and jobs.cancel (POST
//     projects/{p}/jobs/{job}/cancel), which kills the running query.
//
// A dry run is what BigQuery's is: nothing runs. DuckDB prepares the
// statement (syntax, names, and its statement type: SELECT, INSERT,
// CREATE_TABLE, ..., SCRIPT for several statements) and plans it without
// executing; the bytes are BigQuery's logical bytes (INT64 8, NUMERIC 16,
// STRING 2 + length, NULL 0, ...) of the columns the plan reads from each
// table, whatever the filters or LIMIT, as on-demand billing counts them.
// Rows come back in BigQuery's JSON: every value a string, INT64 as
// decimal text, NUMERIC in canonical form (a query result's schema has no
// NUMERIC(P,S) parameters, so 12.50 is "12.5"), TIMESTAMP as int64
// microseconds when the request sets formatOptions.useInt64Timestamp and
// as float seconds ("1.7067015E9") otherwise; DuckDB's TIMESTAMP is
// BigQuery's DATETIME and its TIMESTAMPTZ BigQuery's TIMESTAMP.
// `project`.`dataset`.INFORMATION_SCHEMA.COLUMNS is that dataset's
// columns with BigQuery's type names. Errors carry BigQuery's reasons:
// notFound (404), invalidQuery (400), accessDenied (403: a table named in
// Deny, or a write reaching the read-only engine), stopped (a canceled
// job), authError (401: a bearer token other than Token).
//
// There is no Storage Read API here: the client only uses it after
// Client.EnableStorageReadClient, which Ripple never calls, so every row
// is read over REST.
type BigQuery struct {
	*httptest.Server
	RequestCounter
	Engine *Engine
	// Token is the accepted OAuth access token.
	Token string
	// PageRows is the page size when the request sets no maxResults.
	PageRows int
	// MaxWait bounds how long jobs.query and getQueryResults wait for a job.
	MaxWait time.Duration
	// Location is where jobs run when the request names none.
	Location string

	mu     sync.Mutex
	jobs   map[string]*bqJob
	denied map[string]bool             // "dataset.table"
	sizes  map[string]map[string]int64 // "catalog.schema.table" → column → logical bytes
	calls  []BigQueryCall
	next   atomic.Int64
}

// BigQueryCall is one API call the fake received.
type BigQueryCall struct {
	// Method is the API method: jobs.insert, jobs.query,
	// jobs.getQueryResults, jobs.get, jobs.cancel, or "unknown METHOD path".
	Method string
	// Project is the project in the path: the one running (and paying
	// for) the jobs.
	Project string
	Job     string
	DryRun  bool
	// Query is the statement (jobs.insert, jobs.query); Config the job's
	// configuration (jobs.insert, and what jobs.query amounts to).
	Query  string
	Config *bq.JobConfiguration
	// PageToken is getQueryResults' pageToken.
	PageToken string
}

type bqJob struct {
	ref              *bq.JobReference
	config           *bq.JobConfiguration
	statementType    string
	bytes            int64
	created, started int64 // ms
	done             chan struct{}
	ended            int64
	res              *Result
	err              *bqError
}

// bqError is an error in BigQuery's shape.
type bqError struct {
	code            int
	reason, message string
}

func (e *bqError) proto() *bq.ErrorProto {
	return &bq.ErrorProto{Reason: e.reason, Message: e.message, Location: "query"}
}

func (e *bqError) write(w http.ResponseWriter) {
	status := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 409: "ALREADY_EXISTS"}[e.code]
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": e.code, "message": e.message, "status": status,
		"errors": []any{map[string]any{"domain": "global", "reason": e.reason, "message": e.message}},
	}})
}

// NewBigQuery starts the fake; the project is the engine's catalog. Its
// URL is the api_endpoint of a profile.
func NewBigQuery(e *Engine) *BigQuery {
	f := &BigQuery{Engine: e, Token: "ya29.fake-access-token", PageRows: 1000, MaxWait: 200 * time.Millisecond, Location: "US",
		jobs: map[string]*bqJob{}, denied: map[string]bool{}, sizes: map[string]map[string]int64{}}
	mux := http.NewServeMux()
	const v2 = "/bigquery/v2/projects/{project}/"
	mux.HandleFunc("POST "+v2+"jobs", f.auth(f.insert))
	mux.HandleFunc("POST "+v2+"queries", f.auth(f.query))
	mux.HandleFunc("GET "+v2+"queries/{job}", f.auth(f.results))
	mux.HandleFunc("GET "+v2+"jobs/{job}", f.auth(f.get))
	mux.HandleFunc("POST "+v2+"jobs/{job}/cancel", f.auth(f.cancel))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.record(BigQueryCall{Method: "unknown " + r.Method + " " + r.URL.Path})
		(&bqError{404, "notFound", "the fake does not serve " + r.Method + " " + r.URL.Path}).write(w)
	})
	f.Server = httptest.NewServer(f.count(mux))
	return f
}

// Deny makes queries reading dataset.table fail with accessDenied, as
// for a principal without bigquery.tables.getData on it.
func (f *BigQuery) Deny(dataset, table string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.denied[dataset+"."+table] = true
}

// Calls returns the API calls received so far.
func (f *BigQuery) Calls() []BigQueryCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]BigQueryCall(nil), f.calls...)
}

func (f *BigQuery) record(c BigQueryCall) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
}

func (f *BigQuery) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.Token {
			(&bqError{401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."}).write(w)
			return
		}
		h(w, r)
	}
}

func (f *BigQuery) insert(w http.ResponseWriter, r *http.Request) {
	var in bq.Job
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Configuration == nil || in.Configuration.Query == nil {
		(&bqError{400, "invalid", fmt.Sprintf("the fake runs query jobs only (%v)", err)}).write(w)
		return
	}
	ref := in.JobReference
	if ref == nil {
		ref = &bq.JobReference{}
	}
	ref.ProjectId = r.PathValue("project")
	if ref.Location == "" {
		ref.Location = f.Location
	}
	cfg := in.Configuration
	f.record(BigQueryCall{Method: "jobs.insert", Project: r.PathValue("project"), Job: ref.JobId, DryRun: cfg.DryRun, Query: cfg.Query.Query, Config: cfg})
	if cfg.DryRun {
		st, bytes, _, berr := f.plan(r.Context(), cfg.Query)
		if berr != nil {
			berr.write(w)
			return
		}
		now := time.Now().UnixMilli()
		writeJSON(w, &bq.Job{Kind: "bigquery#job", JobReference: &bq.JobReference{ProjectId: ref.ProjectId, Location: ref.Location},
			Configuration: cfg, Status: &bq.JobStatus{State: "DONE"},
			Statistics: &bq.JobStatistics{CreationTime: now, StartTime: now, EndTime: now, TotalBytesProcessed: bytes,
				Query: &bq.JobStatistics2{StatementType: st, TotalBytesProcessed: bytes, EstimatedBytesProcessed: bytes}}})
		return
	}
	if ref.JobId == "" {
		ref.JobId = fmt.Sprintf("job_fake_%d", f.next.Add(1))
	}
	j, berr := f.start(ref, cfg)
	if berr != nil {
		berr.write(w)
		return
	}
	writeJSON(w, f.jobResource(j))
}

func (f *BigQuery) query(w http.ResponseWriter, r *http.Request) {
	var req bq.QueryRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		(&bqError{400, "invalid", err.Error()}).write(w)
		return
	}
	cfg := &bq.JobConfiguration{DryRun: req.DryRun, Labels: req.Labels, JobTimeoutMs: req.JobTimeoutMs,
		Query: &bq.JobConfigurationQuery{Query: req.Query, DefaultDataset: req.DefaultDataset, MaximumBytesBilled: req.MaximumBytesBilled, UseLegacySql: req.UseLegacySql}}
	if req.UseLegacySql == nil {
		// Unlike jobs.insert, jobs.query defaults to GoogleSQL.
		f := false
		cfg.Query.UseLegacySql = &f
	}
	loc := req.Location
	if loc == "" {
		loc = f.Location
	}
	ref := &bq.JobReference{ProjectId: r.PathValue("project"), Location: loc}
	f.record(BigQueryCall{Method: "jobs.query", Project: r.PathValue("project"), DryRun: req.DryRun, Query: req.Query, Config: cfg})
	if req.DryRun {
		_, bytes, _, berr := f.plan(r.Context(), cfg.Query)
		if berr != nil {
			berr.write(w)
			return
		}
		writeJSON(w, &bq.QueryResponse{Kind: "bigquery#queryResponse", JobReference: ref, JobComplete: true, TotalBytesProcessed: bytes})
		return
	}
	ref.JobId = fmt.Sprintf("job_fake_%d", f.next.Add(1))
	j, berr := f.start(ref, cfg)
	if berr != nil {
		berr.write(w)
		return
	}
	resp := &bq.QueryResponse{Kind: "bigquery#queryResponse", JobReference: ref, TotalBytesProcessed: j.bytes}
	if !f.wait(r.Context(), j, req.TimeoutMs) {
		writeJSON(w, resp)
		return
	}
	if j.err != nil {
		j.err.write(w)
		return
	}
	n := f.PageRows
	if req.MaxResults > 0 {
		n = int(req.MaxResults)
	}
	int64ts := req.FormatOptions != nil && req.FormatOptions.UseInt64Timestamp
	rows, token, err := f.page(j, 0, n, int64ts)
	if err != nil {
		err.write(w)
		return
	}
	resp.JobComplete, resp.Rows, resp.PageToken, resp.Schema, resp.TotalRows = true, rows, token, bqSchema(j.res), uint64(len(j.res.Rows))
	writeJSON(w, resp)
}

func (f *BigQuery) results(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.record(BigQueryCall{Method: "jobs.getQueryResults", Project: r.PathValue("project"), Job: r.PathValue("job"), PageToken: q.Get("pageToken")})
	j, berr := f.job(r)
	if berr != nil {
		berr.write(w)
		return
	}
	timeout, _ := strconv.ParseInt(q.Get("timeoutMs"), 10, 64)
	resp := &bq.GetQueryResultsResponse{Kind: "bigquery#getQueryResultsResponse", JobReference: j.ref}
	if !f.wait(r.Context(), j, timeout) {
		writeJSON(w, resp)
		return
	}
	if j.err != nil {
		j.err.write(w)
		return
	}
	start, n := 0, f.PageRows
	if s := q.Get("startIndex"); s != "" {
		start, _ = strconv.Atoi(s)
	}
	if tok := q.Get("pageToken"); tok != "" {
		var ok bool
		if start, ok = pageOffset(j, tok); !ok {
			(&bqError{400, "invalid", "Invalid page token: " + tok}).write(w)
			return
		}
	}
	if m := q.Get("maxResults"); m != "" {
		n, _ = strconv.Atoi(m)
	}
	rows, token, perr := f.page(j, start, n, q.Get("formatOptions.useInt64Timestamp") == "true")
	if perr != nil {
		perr.write(w)
		return
	}
	resp.JobComplete, resp.Rows, resp.PageToken, resp.Schema = true, rows, token, bqSchema(j.res)
	resp.TotalRows, resp.TotalBytesProcessed = uint64(len(j.res.Rows)), j.bytes
	writeJSON(w, resp)
}

func (f *BigQuery) get(w http.ResponseWriter, r *http.Request) {
	f.record(BigQueryCall{Method: "jobs.get", Project: r.PathValue("project"), Job: r.PathValue("job")})
	j, berr := f.job(r)
	if berr != nil {
		berr.write(w)
		return
	}
	writeJSON(w, f.jobResource(j))
}

func (f *BigQuery) cancel(w http.ResponseWriter, r *http.Request) {
	f.record(BigQueryCall{Method: "jobs.cancel", Project: r.PathValue("project"), Job: r.PathValue("job")})
	j, berr := f.job(r)
	if berr != nil {
		berr.write(w)
		return
	}
	f.Engine.Kill(j.ref.JobId)
	writeJSON(w, &bq.JobCancelResponse{Kind: "bigquery#jobCancelResponse", Job: f.jobResource(j)})
}

// job finds the job a request names, in its location.
func (f *BigQuery) job(r *http.Request) (*bqJob, *bqError) {
	id := r.PathValue("job")
	f.mu.Lock()
	j := f.jobs[id]
	f.mu.Unlock()
	loc := r.URL.Query().Get("location")
	if j == nil || j.ref.ProjectId != r.PathValue("project") || (loc != "" && !strings.EqualFold(loc, j.ref.Location)) {
		return nil, &bqError{404, "notFound", fmt.Sprintf("Not found: Job %s:%s.%s", r.PathValue("project"), loc, id)}
	}
	return j, nil
}

// start dry-runs the job's statement (a job that cannot even start fails
// the insert, as BigQuery's does) and runs it on the engine.
func (f *BigQuery) start(ref *bq.JobReference, cfg *bq.JobConfiguration) (*bqJob, *bqError) {
	st, bytes, duck, berr := f.plan(context.Background(), cfg.Query)
	if berr != nil {
		return nil, berr
	}
	now := time.Now().UnixMilli()
	j := &bqJob{ref: ref, config: cfg, statementType: st, bytes: bytes, created: now, started: now, done: make(chan struct{})}
	f.mu.Lock()
	if f.jobs[ref.JobId] != nil {
		f.mu.Unlock()
		return nil, &bqError{409, "duplicate", "Already Exists: Job " + ref.ProjectId + ":" + ref.Location + "." + ref.JobId}
	}
	f.jobs[ref.JobId] = j
	f.mu.Unlock()
	go func() {
		res, err := f.Engine.QueryIn(context.Background(), ref.JobId, defaultDataset(cfg.Query), duck)
		j.res, j.ended = res, time.Now().UnixMilli()
		if err != nil {
			j.err = engineError(err)
		}
		close(j.done)
	}()
	return j, nil
}

// wait waits for the job up to timeoutMs (BigQuery's default 10 s), at
// most MaxWait; it reports whether the job is done.
func (f *BigQuery) wait(ctx context.Context, j *bqJob, timeoutMs int64) bool {
	d := 10 * time.Second
	if timeoutMs > 0 {
		d = time.Duration(timeoutMs) * time.Millisecond
	}
	select {
	case <-j.done:
		return true
	default:
	}
	t := time.NewTimer(min(d, f.MaxWait))
	defer t.Stop()
	select {
	case <-j.done:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

func (f *BigQuery) jobResource(j *bqJob) *bq.Job {
	status := &bq.JobStatus{State: "RUNNING"}
	stats := &bq.JobStatistics{CreationTime: j.created, StartTime: j.started,
		Query: &bq.JobStatistics2{StatementType: j.statementType, EstimatedBytesProcessed: j.bytes}}
	select {
	case <-j.done:
		status.State, stats.EndTime = "DONE", j.ended
		if j.err != nil {
			status.ErrorResult, status.Errors = j.err.proto(), []*bq.ErrorProto{j.err.proto()}
		} else {
			stats.TotalBytesProcessed, stats.Query.TotalBytesProcessed, stats.Query.TotalBytesBilled = j.bytes, j.bytes, j.bytes
		}
	default:
	}
	return &bq.Job{Kind: "bigquery#job", Id: j.ref.ProjectId + ":" + j.ref.Location + "." + j.ref.JobId,
		JobReference: j.ref, Configuration: j.config, Status: status, Statistics: stats}
}

func defaultDataset(q *bq.JobConfigurationQuery) string {
	if q.DefaultDataset == nil {
		return ""
	}
	return q.DefaultDataset.DatasetId
}

// page renders rows [start, start+n) and the token of the next page.
func (f *BigQuery) page(j *bqJob, start, n int, int64ts bool) ([]*bq.TableRow, string, *bqError) {
	total := len(j.res.Rows)
	start = min(max(start, 0), total)
	end := min(start+max(n, 0), total)
	rows := make([]*bq.TableRow, 0, end-start)
	for _, row := range j.res.Rows[start:end] {
		cells := make([]*bq.TableCell, len(row))
		for i, v := range row {
			s, err := bqValue(v, j.res.Columns[i].Type, int64ts)
			if err != nil {
				return nil, "", &bqError{400, "invalidQuery", err.Error()}
			}
			cells[i] = &bq.TableCell{V: s}
		}
		rows = append(rows, &bq.TableRow{F: cells})
	}
	token := ""
	if end < total {
		token = base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%s@%d", j.ref.JobId, end)))
	}
	return rows, token, nil
}

// pageOffset reads a page token of j.
func pageOffset(j *bqJob, tok string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	id, off, found := strings.Cut(string(b), "@")
	n, aerr := strconv.Atoi(off)
	return n, err == nil && found && id == j.ref.JobId && aerr == nil && n >= 0
}

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
	duckdbdrv.STATEMENT_TYPE_ALTER: "ALTER_", duckdbdrv.STATEMENT_TYPE_TRANSACTION: "TRANSACTION",
}

var objectWord = regexp.MustCompile(`(?i)\b(TABLE|VIEW|SCHEMA|FUNCTION|MACRO|SEQUENCE|INDEX)\b`)

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

// bqType is a DuckDB type as BigQuery shows it: its name in a query
// result's schema (the REST API's spelling), in INFORMATION_SCHEMA, and
// the logical bytes of one non-NULL value (0: 2 + its length).
type bqType struct {
	api, sql string
	bytes    int
}

var bqTypes = map[string]bqType{
	"BOOLEAN": {"BOOLEAN", "BOOL", 1},
	"TINYINT": {"INTEGER", "INT64", 8}, "SMALLINT": {"INTEGER", "INT64", 8}, "INTEGER": {"INTEGER", "INT64", 8},
	"BIGINT": {"INTEGER", "INT64", 8}, "UTINYINT": {"INTEGER", "INT64", 8}, "USMALLINT": {"INTEGER", "INT64", 8},
	"UINTEGER": {"INTEGER", "INT64", 8},
	// DuckDB's SUM of integers; BigQuery's is INT64 (and overflows past it).
	"HUGEINT": {"INTEGER", "INT64", 8},
	"FLOAT":   {"FLOAT", "FLOAT64", 8}, "DOUBLE": {"FLOAT", "FLOAT64", 8},
	"VARCHAR": {"STRING", "STRING", 0}, "BLOB": {"BYTES", "BYTES", 0},
	"DATE": {"DATE", "DATE", 8}, "TIME": {"TIME", "TIME", 8},
	"TIMESTAMP":                {"DATETIME", "DATETIME", 8},
	"TIMESTAMPTZ":              {"TIMESTAMP", "TIMESTAMP", 8},
	"TIMESTAMP WITH TIME ZONE": {"TIMESTAMP", "TIMESTAMP", 8},
}

// bqTypeOf maps a DuckDB type name; DECIMAL(P,S) is NUMERIC when it fits
// NUMERIC's 29 integer and 9 fractional digits, else BIGNUMERIC.
func bqTypeOf(duck string) (bqType, bool) {
	var p, s int
	if n, _ := fmt.Sscanf(duck, "DECIMAL(%d,%d)", &p, &s); n == 2 {
		if s <= 9 && p-s <= 29 {
			return bqType{"NUMERIC", "NUMERIC", 16}, true
		}
		return bqType{"BIGNUMERIC", "BIGNUMERIC", 32}, true
	}
	t, ok := bqTypes[duck]
	return t, ok
}

// infoSchemaType is bqTypeOf in SQL, over information_schema.columns.
var infoSchemaType = func() string {
	var b strings.Builder
	b.WriteString("CASE WHEN data_type LIKE 'DECIMAL(%' THEN CASE WHEN numeric_scale <= 9 AND numeric_precision - numeric_scale <= 29 THEN 'NUMERIC' ELSE 'BIGNUMERIC' END || '(' || numeric_precision || ', ' || numeric_scale || ')'")
	for duck, t := range bqTypes {
		b.WriteString(" WHEN data_type = " + quoteString(duck) + " THEN " + quoteString(t.sql))
	}
	b.WriteString(" ELSE data_type END")
	return b.String()
}()

func bqSchema(res *Result) *bq.TableSchema {
	s := &bq.TableSchema{Fields: make([]*bq.TableFieldSchema, len(res.Columns))}
	for i, c := range res.Columns {
		t, _ := bqTypeOf(c.Type)
		s.Fields[i] = &bq.TableFieldSchema{Name: c.Name, Type: t.api, Mode: "NULLABLE"}
	}
	return s
}

// bqValue renders one value as BigQuery's JSON rows do: text, or null.
func bqValue(v any, duckType string, int64ts bool) (any, error) {
	t, ok := bqTypeOf(duckType)
	if !ok {
		return nil, fmt.Errorf("the fake has no BigQuery type for DuckDB's %s", duckType)
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int8, int16, int32, int64, uint8, uint16, uint32:
		return fmt.Sprint(x), nil
	case *big.Int:
		return x.String(), nil
	case float32:
		return floatText(float64(x)), nil
	case float64:
		return floatText(x), nil
	case duckdbdrv.Decimal:
		return canonicalDecimal(decimalString(x.Value, int(x.Scale))), nil
	case string:
		return x, nil
	case []byte:
		return base64.StdEncoding.EncodeToString(x), nil
	case time.Time:
		switch t.api {
		case "DATE":
			return x.Format("2006-01-02"), nil
		case "TIME":
			return x.Format("15:04:05.999999"), nil
		case "DATETIME":
			return x.Format("2006-01-02T15:04:05.999999"), nil
		}
		if int64ts {
			return strconv.FormatInt(x.UnixMicro(), 10), nil
		}
		// BigQuery's float seconds, in Java's spelling (1.7067015E9).
		s := strconv.FormatFloat(float64(x.UnixMicro())/1e6, 'E', -1, 64)
		mant, exp, _ := strings.Cut(s, "E")
		e, _ := strconv.Atoi(exp)
		return mant + "E" + strconv.Itoa(e), nil
	}
	return nil, fmt.Errorf("the fake cannot render DuckDB's %T as BigQuery's %s", v, t.api)
}

func floatText(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// canonicalDecimal drops a decimal's trailing fractional zeros (12.50 → 12.5, 3.00 → 3).
func canonicalDecimal(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// engineError is a DuckDB error as BigQuery would report it.
func engineError(err error) *bqError {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	switch KindOf(err) {
	case NotFound:
		return &bqError{404, "notFound", "Not found: " + msg}
	case Syntax:
		return &bqError{400, "invalidQuery", msg}
	case ReadOnly:
		return &bqError{403, "accessDenied", "Access Denied: " + msg}
	case Canceled:
		return &bqError{400, "stopped", "Job execution was cancelled: User requested cancellation"}
	}
	var de *duckdbdrv.Error
	if errors.As(err, &de) {
		return &bqError{400, "invalidQuery", "Query error: " + msg}
	}
	// Not internalError or backendError: the client retries those.
	return &bqError{400, "invalid", "the fake failed: " + msg}
}
