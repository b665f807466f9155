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

// Snowflake speaks the REST protocol gosnowflake uses: login-request
// (password or key-pair JWT), query-request answering in the JSON result
// format, "in progress" answers with a getResultUrl the driver polls,
// abort-request that kills the query by request id, and session delete.
type Snowflake struct {
	*httptest.Server
	RequestCounter
	Engine   *Engine
	Password string

	mu      sync.Mutex
	queries map[string]*sfQuery // by query id
	// Logins records each login request's data (LOGIN_NAME, ACCOUNT_NAME,
	// AUTHENTICATOR, SESSION_PARAMETERS...); Params each query's parameters.
	Logins []map[string]any
	Params []map[string]any
	next   atomic.Int64
}

// snowflakeSpelling: Snowflake's string literals take backslash escapes.
var snowflakeSpelling = Spelling{BackslashEscapes: true}

type sfQuery struct {
	done chan struct{}
	res  *Result
	err  error
}

// NewSnowflake starts the fake; password is the accepted one.
func NewSnowflake(e *Engine, password string) *Snowflake {
	f := &Snowflake{Engine: e, Password: password, queries: map[string]*sfQuery{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session/v1/login-request", f.login)
	mux.HandleFunc("POST /queries/v1/query-request", f.query)
	mux.HandleFunc("GET /queries/{qid}/result", f.result)
	mux.HandleFunc("POST /queries/v1/abort-request", f.abort)
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]any{"success": true}) })
	mux.HandleFunc("POST /session/heartbeat", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]any{"success": true}) })
	mux.HandleFunc("POST /telemetry/send", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]any{"success": true}) })
	f.Server = httptest.NewServer(f.count(mux))
	return f
}

func (f *Snowflake) login(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Data map[string]any `json:"data"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.Logins = append(f.Logins, body.Data)
	f.mu.Unlock()
	pw, _ := body.Data["PASSWORD"].(string)
	_, jwt := body.Data["TOKEN"].(string)
	if pw != f.Password && !jwt {
		writeJSON(w, map[string]any{"success": false, "code": "390100", "message": "Incorrect username or password was specified.", "data": nil})
		return
	}
	writeJSON(w, map[string]any{"success": true, "data": map[string]any{
		"token": "session-token", "masterToken": "master-token", "validityInSeconds": 3600, "masterValidityInSeconds": 14400,
		"sessionId": 1, "serverVersion": "fake", "parameters": []any{}, "sessionInfo": map[string]any{"databaseName": "ANALYTICS", "schemaName": "MAIN"},
	}})
}

func (f *Snowflake) query(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != `Snowflake Token="session-token"` {
		writeJSON(w, map[string]any{"success": false, "code": "390104", "message": "User must login again to access the service."})
		return
	}
	var body struct {
		SQLText    string         `json:"sqlText"`
		Parameters map[string]any `json:"parameters"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	requestID := r.URL.Query().Get("requestId")
	qid := fmt.Sprintf("01b2-%04d", f.next.Add(1))
	q := &sfQuery{done: make(chan struct{})}
	f.mu.Lock()
	f.queries[qid] = q
	f.Params = append(f.Params, body.Parameters)
	f.mu.Unlock()
	go func() {
		defer close(q.done)
		// The engine knows the query by request id: abort-request names it so.
		q.res, q.err = f.Engine.Query(context.Background(), requestID, snowflakeSpelling.ToDuckDB(body.SQLText))
	}()
	f.answer(w, qid, q)
}

func (f *Snowflake) result(w http.ResponseWriter, r *http.Request) {
	qid := r.PathValue("qid")
	f.mu.Lock()
	q := f.queries[qid]
	f.mu.Unlock()
	if q == nil {
		writeJSON(w, map[string]any{"success": false, "code": "000709", "message": "Statement " + qid + " not found"})
		return
	}
	f.answer(w, qid, q)
}

func (f *Snowflake) abort(w http.ResponseWriter, r *http.Request) {
	var body struct {
		RequestID string `json:"requestId"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.Engine.Kill(body.RequestID)
	writeJSON(w, map[string]any{"success": true})
}

func (f *Snowflake) answer(w http.ResponseWriter, qid string, q *sfQuery) {
	select {
	case <-q.done:
	case <-time.After(100 * time.Millisecond):
		writeJSON(w, map[string]any{"success": true, "code": "333333", "message": "Query execution in progress",
			"data": map[string]any{"queryId": qid, "getResultUrl": "/queries/" + qid + "/result"}})
		return
	}
	if q.err != nil {
		code, msg := "000603", q.err.Error()
		switch KindOf(q.err) {
		case NotFound:
			code, msg = "002003", "SQL compilation error:\nObject does not exist or not authorized. "+msg
		case Syntax:
			code, msg = "001003", "SQL compilation error:\nsyntax error "+msg
		case ReadOnly:
			code, msg = "003001", "SQL access control error:\nInsufficient privileges to operate on schema (read-only role): "+msg
		case Canceled:
			code, msg = "000604", "SQL execution canceled"
		}
		writeJSON(w, map[string]any{"success": false, "code": code, "message": msg, "data": map[string]any{"queryId": qid, "sqlState": "42000"}})
		return
	}
	rowtype := make([]map[string]any, len(q.res.Columns))
	for i, c := range q.res.Columns {
		rowtype[i] = sfRowType(c)
	}
	rowset := make([][]*string, len(q.res.Rows))
	for i, row := range q.res.Rows {
		rowset[i] = make([]*string, len(row))
		for j, v := range row {
			rowset[i][j] = sfValue(v, q.res.Columns[j])
		}
	}
	writeJSON(w, map[string]any{"success": true, "data": map[string]any{
		"rowtype": rowtype, "rowset": rowset, "total": len(rowset), "returned": len(rowset), "queryId": qid,
		"queryResultFormat": "json", "parameters": []any{},
	}})
}

func sfRowType(c Column) map[string]any {
	t := strings.ToUpper(c.Type)
	rt := map[string]any{"name": c.Name, "nullable": true, "type": "text", "length": 16777216, "precision": 0, "scale": 0, "byteLength": 16777216}
	switch {
	case t == "INTEGER", t == "BIGINT", t == "HUGEINT", t == "SMALLINT":
		rt["type"], rt["precision"], rt["scale"] = "fixed", 38, 0
	case strings.HasPrefix(t, "DECIMAL"):
		var p, s int
		fmt.Sscanf(t, "DECIMAL(%d,%d)", &p, &s)
		rt["type"], rt["precision"], rt["scale"] = "fixed", p, s
	case t == "DOUBLE", t == "FLOAT":
		rt["type"] = "real"
	case t == "BOOLEAN":
		rt["type"] = "boolean"
	case t == "DATE":
		rt["type"] = "date"
	case t == "TIMESTAMPTZ":
		rt["type"], rt["scale"] = "timestamp_tz", 9
	case strings.HasPrefix(t, "TIMESTAMP"):
		rt["type"], rt["scale"] = "timestamp_ntz", 9
	}
	return rt
}

// sfValue renders a value as Snowflake's JSON result format: text, with
// dates as days and timestamps as seconds.nanoseconds since the epoch.
func sfValue(v any, c Column) *string {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case duckdbdrv.Decimal:
		s = decimalString(x.Value, int(x.Scale))
	case bool:
		s = "0"
		if x {
			s = "1"
		}
	case time.Time:
		switch strings.ToUpper(c.Type) {
		case "DATE":
			s = fmt.Sprint(x.Unix() / 86400)
		case "TIMESTAMPTZ":
			_, off := x.Zone()
			s = fmt.Sprintf("%d.%09d %d", x.Unix(), x.Nanosecond(), off/60+1440)
		default:
			s = fmt.Sprintf("%d.%09d", x.Unix(), x.Nanosecond())
		}
	case string:
		s = x
		if c.Name == "data_type" {
			s = sfTypeName(x)
		}
	default:
		s = fmt.Sprint(v)
	}
	return &s
}

// sfTypeName is information_schema's spelling of a DuckDB type on Snowflake.
func sfTypeName(duck string) string {
	t := strings.ToUpper(duck)
	switch {
	case t == "INTEGER", t == "BIGINT", strings.HasPrefix(t, "DECIMAL"):
		return "NUMBER"
	case t == "DOUBLE":
		return "FLOAT"
	case t == "VARCHAR":
		return "TEXT"
	case t == "TIMESTAMP WITH TIME ZONE":
		return "TIMESTAMP_TZ"
	case t == "TIMESTAMP":
		return "TIMESTAMP_NTZ"
	}
	return t
}
