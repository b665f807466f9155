package fakeserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
		googleSQL := false
		cfg.Query.UseLegacySql = &googleSQL
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

// start runs a job: a statement that does not even plan makes a job that
// is DONE at once with the error, as BigQuery creates a job that fails;
// jobs.query answers that error instead (it is the caller's to decide).
func (f *BigQuery) start(ref *bq.JobReference, cfg *bq.JobConfiguration) (*bqJob, *bqError) {
	st, bytes, duck, planErr := f.plan(context.Background(), cfg.Query)
	now := time.Now().UnixMilli()
	j := &bqJob{ref: ref, config: cfg, statementType: st, bytes: bytes, created: now, started: now, done: make(chan struct{})}
	f.mu.Lock()
	if f.jobs[ref.JobId] != nil {
		f.mu.Unlock()
		return nil, &bqError{409, "duplicate", "Already Exists: Job " + ref.ProjectId + ":" + ref.Location + "." + ref.JobId}
	}
	f.jobs[ref.JobId] = j
	f.mu.Unlock()
	if planErr != nil {
		j.err, j.ended = planErr, now
		close(j.done)
		return j, nil
	}
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
