package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"
)

// Databricks speaks the SQL Statement Execution API: POST
// /api/2.0/sql/statements (waiting at most a moment, then PENDING), GET
// .../{id} to poll, GET .../{id}/result/chunks/{n} for the next chunk,
// POST .../{id}/cancel to kill, plus the OAuth M2M token endpoint.
type Databricks struct {
	*httptest.Server
	RequestCounter
	Engine *Engine
	// Token is the accepted personal access token; ClientID/ClientSecret
	// the accepted OAuth client (it gets Token as its access token).
	Token, ClientID, ClientSecret string
	// ChunkRows is the chunk size (default 1000).
	ChunkRows int

	mu         sync.Mutex
	statements map[string]*dbxStatement
	// Bodies records each submitted statement request.
	Bodies []map[string]any
	next   atomic.Int64
}

// databricksSpelling: backticks, backslash escapes, and PERCENTILE(x, p),
// Databricks' exact percentile with linear interpolation, which is DuckDB's
// quantile_cont.
var databricksSpelling = Spelling{Backticks: true, BackslashEscapes: true, Functions: map[string]string{"PERCENTILE": "quantile_cont"}}

type dbxStatement struct {
	done     chan struct{}
	res      *Result
	err      error
	canceled atomic.Bool
	limit    int
}

// NewDatabricks starts the fake.
func NewDatabricks(e *Engine) *Databricks {
	f := &Databricks{Engine: e, Token: "dapi-fake-token", ClientID: "ripple-sp", ClientSecret: "fake-secret", ChunkRows: 1000, statements: map[string]*dbxStatement{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oidc/v1/token", f.oauth)
	mux.HandleFunc("POST /api/2.0/sql/statements", f.auth(f.submit))
	mux.HandleFunc("GET /api/2.0/sql/statements/{id}", f.auth(f.get))
	mux.HandleFunc("GET /api/2.0/sql/statements/{id}/result/chunks/{n}", f.auth(f.chunk))
	mux.HandleFunc("POST /api/2.0/sql/statements/{id}/cancel", f.auth(f.cancel))
	f.Server = httptest.NewServer(f.count(mux))
	return f
}

func (f *Databricks) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.Token {
			w.WriteHeader(http.StatusUnauthorized)
			writeJSON(w, map[string]any{"error_code": "UNAUTHENTICATED", "message": "Invalid access token."})
			return
		}
		h(w, r)
	}
}

func (f *Databricks) oauth(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok || id != f.ClientID || secret != f.ClientSecret || r.FormValue("grant_type") != "client_credentials" {
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, map[string]any{"error": "invalid_client", "error_description": "Client authentication failed"})
		return
	}
	writeJSON(w, map[string]any{"access_token": f.Token, "token_type": "Bearer", "expires_in": 3600})
}

func (f *Databricks) submit(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error_code": "INVALID_PARAMETER_VALUE", "message": err.Error()})
		return
	}
	sqlText, _ := body["statement"].(string)
	id := fmt.Sprintf("01ef-%04d", f.next.Add(1))
	st := &dbxStatement{done: make(chan struct{}), limit: -1}
	if n, ok := body["row_limit"].(float64); ok {
		st.limit = int(n)
	}
	f.mu.Lock()
	f.statements[id] = st
	f.Bodies = append(f.Bodies, body)
	f.mu.Unlock()
	go func() {
		defer close(st.done)
		st.res, st.err = f.Engine.Query(context.Background(), id, databricksSpelling.ToDuckDB(sqlText))
	}()
	select {
	case <-st.done:
	case <-time.After(50 * time.Millisecond):
	}
	f.answer(w, id, st)
}

func (f *Databricks) get(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.mu.Lock()
	st := f.statements[id]
	f.mu.Unlock()
	if st == nil {
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]any{"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "no statement " + id})
		return
	}
	select {
	case <-st.done:
	case <-time.After(50 * time.Millisecond):
	}
	f.answer(w, id, st)
}

func (f *Databricks) cancel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.mu.Lock()
	st := f.statements[id]
	f.mu.Unlock()
	if st != nil {
		st.canceled.Store(true)
	}
	f.Engine.Kill(id)
	writeJSON(w, map[string]any{})
}

func (f *Databricks) answer(w http.ResponseWriter, id string, st *dbxStatement) {
	select {
	case <-st.done:
	default:
		writeJSON(w, map[string]any{"statement_id": id, "status": map[string]any{"state": "RUNNING"}})
		return
	}
	if st.canceled.Load() {
		writeJSON(w, map[string]any{"statement_id": id, "status": map[string]any{"state": "CANCELED"}})
		return
	}
	if st.err != nil {
		msg, code := st.err.Error(), "INTERNAL_ERROR"
		switch KindOf(st.err) {
		case NotFound:
			msg = "[TABLE_OR_VIEW_NOT_FOUND] " + msg
			code = "BAD_REQUEST"
		case Syntax:
			msg = "[PARSE_SYNTAX_ERROR] " + msg
			code = "BAD_REQUEST"
		case ReadOnly:
			msg = "[INSUFFICIENT_PERMISSIONS] read-only: " + msg
			code = "PERMISSION_DENIED"
		}
		writeJSON(w, map[string]any{"statement_id": id, "status": map[string]any{"state": "FAILED", "error": map[string]any{"error_code": code, "message": msg}}})
		return
	}
	rows := st.res.Rows
	if st.limit >= 0 && len(rows) > st.limit {
		rows = rows[:st.limit]
	}
	cols := make([]map[string]any, len(st.res.Columns))
	for i, c := range st.res.Columns {
		name, text := dbxType(c.Type)
		cols[i] = map[string]any{"name": c.Name, "type_name": name, "type_text": text, "position": i}
	}
	chunks := (len(rows) + f.ChunkRows - 1) / f.ChunkRows
	writeJSON(w, map[string]any{
		"statement_id": id, "status": map[string]any{"state": "SUCCEEDED"},
		"manifest": map[string]any{"format": "JSON_ARRAY", "schema": map[string]any{"column_count": len(cols), "columns": cols},
			"total_row_count": len(rows), "total_chunk_count": chunks, "truncated": st.limit >= 0 && len(st.res.Rows) > st.limit},
		"result": f.chunkOf(id, st, rows, 0),
	})
}

func (f *Databricks) chunk(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var n int
	fmt.Sscan(r.PathValue("n"), &n)
	f.mu.Lock()
	st := f.statements[id]
	f.mu.Unlock()
	if st == nil || st.res == nil {
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]any{"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "no result for " + id})
		return
	}
	rows := st.res.Rows
	if st.limit >= 0 && len(rows) > st.limit {
		rows = rows[:st.limit]
	}
	writeJSON(w, f.chunkOf(id, st, rows, n))
}

func (f *Databricks) chunkOf(id string, st *dbxStatement, rows [][]any, n int) map[string]any {
	from, to := n*f.ChunkRows, min((n+1)*f.ChunkRows, len(rows))
	data := [][]any{}
	for _, row := range rows[min(from, to):to] {
		out := make([]any, len(row))
		for i, v := range row {
			out[i] = dbxValue(v, st.res.Columns[i].Type)
			if s, ok := v.(string); ok && st.res.Columns[i].Name == "data_type" {
				// information_schema.columns speaks Databricks' type names.
				_, out[i] = dbxType(s)
			}
		}
		data = append(data, out)
	}
	c := map[string]any{"chunk_index": n, "row_offset": from, "row_count": to - from, "data_array": data}
	if to < len(rows) {
		c["next_chunk_index"] = n + 1
		c["next_chunk_internal_link"] = fmt.Sprintf("/api/2.0/sql/statements/%s/result/chunks/%d", id, n+1)
	}
	return c
}

// dbxType spells a DuckDB type as Databricks' type_name and type_text.
func dbxType(duck string) (string, string) {
	t := strings.ToUpper(duck)
	switch {
	case t == "INTEGER":
		return "INT", "INT"
	case t == "BIGINT", t == "HUGEINT":
		return "LONG", "BIGINT"
	case t == "DOUBLE", t == "FLOAT":
		return "DOUBLE", "DOUBLE"
	case t == "BOOLEAN":
		return "BOOLEAN", "BOOLEAN"
	case t == "DATE":
		return "DATE", "DATE"
	case t == "TIMESTAMPTZ", t == "TIMESTAMP WITH TIME ZONE":
		return "TIMESTAMP", "TIMESTAMP"
	case strings.HasPrefix(t, "TIMESTAMP"):
		return "TIMESTAMP_NTZ", "TIMESTAMP_NTZ"
	case strings.HasPrefix(t, "DECIMAL"):
		return "DECIMAL", t
	}
	return "STRING", "STRING"
}

// dbxValue renders a value as JSON_ARRAY does: every value a string.
func dbxValue(v any, duck string) any {
	t := strings.ToUpper(duck)
	switch x := v.(type) {
	case nil:
		return nil
	case duckdbdrv.Decimal:
		return decimalString(x.Value, int(x.Scale))
	case time.Time:
		switch {
		case t == "DATE":
			return x.Format("2006-01-02")
		case t == "TIMESTAMPTZ":
			return x.UTC().Format("2006-01-02T15:04:05.999Z")
		}
		return x.Format("2006-01-02T15:04:05.999")
	case string:
		return x
	}
	return fmt.Sprint(v)
}
