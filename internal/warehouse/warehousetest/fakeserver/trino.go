package fakeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	duckdbdrv "github.com/duckdb/duckdb-go/v2"
)

// Trino is a coordinator speaking Trino's client protocol: POST
// /v1/statement answers QUEUED with a nextUri, the query runs on the engine
// while the client polls, results come back in pages linked by nextUri,
// and DELETE /v1/query/{id} kills the query.
type Trino struct {
	*httptest.Server
	RequestCounter
	Engine *Engine
	// PageRows is the page size (default 1000), so paging is exercised.
	PageRows int
	// Users records the X-Trino-User of each statement; Sessions the
	// X-Trino-Session headers.
	mu       sync.Mutex
	Users    []string
	Sessions []string
	queries  map[string]*trinoQuery
	next     atomic.Int64
}

type trinoQuery struct {
	done chan struct{}
	res  *Result
	err  error
}

// NewTrino starts the fake; its URL's host and port go in the profile.
func NewTrino(e *Engine) *Trino {
	f := &Trino{Engine: e, PageRows: 1000, queries: map[string]*trinoQuery{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/statement", f.statement)
	mux.HandleFunc("GET /v1/statement/executing/{id}/{page}", f.poll)
	mux.HandleFunc("DELETE /v1/query/{id}", f.kill)
	mux.HandleFunc("DELETE /v1/statement/executing/{id}/{page}", f.kill)
	f.Server = httptest.NewServer(f.count(mux))
	return f
}

func (f *Trino) statement(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id := fmt.Sprintf("q%d", f.next.Add(1))
	q := &trinoQuery{done: make(chan struct{})}
	f.mu.Lock()
	f.Users = append(f.Users, r.Header.Get("X-Trino-User"))
	f.Sessions = append(f.Sessions, strings.Join(r.Header.Values("X-Trino-Session"), ","))
	f.queries[id] = q
	f.mu.Unlock()
	go func() {
		defer close(q.done)
		q.res, q.err = f.Engine.Query(context.Background(), id, string(body))
	}()
	writeJSON(w, map[string]any{"id": id, "infoUri": f.URL + "/ui/" + id,
		"nextUri": f.URL + "/v1/statement/executing/" + id + "/0", "stats": map[string]any{"state": "QUEUED"}})
}

func (f *Trino) poll(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var page int
	fmt.Sscan(r.PathValue("page"), &page)
	f.mu.Lock()
	q := f.queries[id]
	f.mu.Unlock()
	if q == nil {
		http.Error(w, "no such query", http.StatusNotFound)
		return
	}
	select {
	case <-q.done:
	case <-time.After(100 * time.Millisecond):
		writeJSON(w, map[string]any{"id": id, "nextUri": f.URL + r.URL.Path, "stats": map[string]any{"state": "RUNNING"}})
		return
	}
	if q.err != nil {
		name, typ := "GENERIC_INTERNAL_ERROR", "INTERNAL_ERROR"
		switch KindOf(q.err) {
		case NotFound:
			name, typ = "TABLE_NOT_FOUND", "USER_ERROR"
		case Syntax:
			name, typ = "SYNTAX_ERROR", "USER_ERROR"
		case ReadOnly:
			name, typ = "PERMISSION_DENIED", "USER_ERROR"
		case Canceled:
			name, typ = "USER_CANCELED", "USER_ERROR"
		}
		writeJSON(w, map[string]any{"id": id, "stats": map[string]any{"state": "FAILED"},
			"error": map[string]any{"message": q.err.Error(), "errorName": name, "errorType": typ, "errorCode": 1}})
		return
	}
	cols := make([]map[string]any, len(q.res.Columns))
	for i, c := range q.res.Columns {
		cols[i] = trinoColumn(c)
	}
	from, to := page*f.PageRows, (page+1)*f.PageRows
	if to > len(q.res.Rows) {
		to = len(q.res.Rows)
	}
	data := [][]any{}
	for _, row := range q.res.Rows[min(from, to):to] {
		out := make([]any, len(row))
		for i, v := range row {
			out[i] = trinoValue(v, q.res.Columns[i].Type)
		}
		data = append(data, out)
	}
	resp := map[string]any{"id": id, "columns": cols, "data": data, "stats": map[string]any{"state": "RUNNING"}}
	if to < len(q.res.Rows) {
		resp["nextUri"] = fmt.Sprintf("%s/v1/statement/executing/%s/%d", f.URL, id, page+1)
	} else {
		resp["stats"] = map[string]any{"state": "FINISHED"}
	}
	writeJSON(w, resp)
}

func (f *Trino) kill(w http.ResponseWriter, r *http.Request) {
	f.Engine.Kill(r.PathValue("id"))
	w.WriteHeader(http.StatusNoContent)
}

// trinoColumn spells a DuckDB type the way Trino reports it.
func trinoColumn(c Column) map[string]any {
	t := strings.ToUpper(c.Type)
	long := func(n int64) map[string]any { return map[string]any{"kind": "LONG", "value": n} }
	raw, args := "varchar", []any{long(2147483647)}
	var p, s int64
	switch {
	case t == "INTEGER":
		raw, args = "integer", nil
	case t == "BIGINT" || t == "HUGEINT":
		raw, args = "bigint", nil
	case t == "DOUBLE" || t == "FLOAT":
		raw, args = "double", nil
	case t == "BOOLEAN":
		raw, args = "boolean", nil
	case t == "DATE":
		raw, args = "date", nil
	case t == "TIMESTAMPTZ" || t == "TIMESTAMP WITH TIME ZONE":
		raw, args = "timestamp with time zone", []any{long(6)}
	case strings.HasPrefix(t, "TIMESTAMP"):
		raw, args = "timestamp", []any{long(6)}
	case strings.HasPrefix(t, "DECIMAL"):
		fmt.Sscanf(t, "DECIMAL(%d,%d)", &p, &s)
		raw, args = "decimal", []any{long(p), long(s)}
	}
	name := raw
	switch raw {
	case "decimal":
		name = fmt.Sprintf("decimal(%d,%d)", p, s)
	case "timestamp":
		name = "timestamp(6)"
	case "timestamp with time zone":
		name = "timestamp(6) with time zone"
	}
	if args == nil {
		args = []any{}
	}
	return map[string]any{"name": c.Name, "type": name, "typeSignature": map[string]any{"rawType": raw, "arguments": args}}
}

// trinoValue renders a value as Trino's JSON does: decimals and temporal
// values as text, big integers as numbers.
func trinoValue(v any, typ string) any {
	t := strings.ToUpper(typ)
	switch x := v.(type) {
	case duckdbdrv.Decimal:
		return decimalString(x.Value, int(x.Scale))
	case *big.Int:
		return json.Number(x.String())
	case time.Time:
		switch {
		case t == "DATE":
			return x.Format("2006-01-02")
		case t == "TIMESTAMPTZ":
			return x.UTC().Format("2006-01-02 15:04:05.000000 -07:00")
		}
		return x.Format("2006-01-02 15:04:05.000000")
	}
	return v
}

func decimalString(u *big.Int, scale int) string {
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	for len(digits) <= scale {
		digits = "0" + digits
	}
	s := digits
	if scale > 0 {
		s = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
