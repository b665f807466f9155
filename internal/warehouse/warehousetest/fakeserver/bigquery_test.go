package fakeserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	bqclient "cloud.google.com/go/bigquery"
	"golang.org/x/oauth2"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/ripple-data/ripple/internal/warehouse/warehousetest/fakeserver"
)

func bigQueryFake(t *testing.T) *fakeserver.BigQuery {
	e := fakeserver.NewEngine(t, "wire-proj")
	if err := e.Setup(context.Background(), "CREATE TABLE main.many AS SELECT i FROM range(2500) g(i)"); err != nil {
		t.Fatal(err)
	}
	f := fakeserver.NewBigQuery(e)
	t.Cleanup(f.Close)
	return f
}

// call sends one REST request with the fake's token and decodes the
// answer of status 200.
func call(t *testing.T, f *fakeserver.BigQuery, method, path string, body any, out any) {
	t.Helper()
	if status := callStatus(t, f, method, path, body, out); status != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d", method, path, status)
	}
}

func callStatus(t *testing.T, f *fakeserver.BigQuery, method, path string, body any, out any) int {
	t.Helper()
	var rd bytes.Buffer
	if body != nil {
		_ = json.NewEncoder(&rd).Encode(body)
	}
	req, _ := http.NewRequest(method, f.URL+"/bigquery/v2/projects/wire-proj/"+path, &rd)
	req.Header.Set("Authorization", "Bearer "+f.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

// Values on the wire as BigQuery sends them: all text, INT64 exact,
// NUMERIC canonical, TIMESTAMP as float seconds unless the request asks
// for int64 microseconds (which cloud.google.com/go/bigquery always does).
func TestBigQueryWireValues(t *testing.T) {
	f := bigQueryFake(t)
	q := `SELECT CAST(9007199254740993 AS BIGINT) AS big, CAST(12.50 AS DECIMAL(10,2)) AS d, TIMESTAMPTZ '2024-01-31 13:45:00.5+02:00' AS tz,
		TIMESTAMP '2024-01-31 13:45:00.5' AS dt, DATE '2024-01-31' AS day, CAST(1.5 AS DOUBLE) AS f, TRUE AS b, CAST(NULL AS VARCHAR) AS s`
	var job struct {
		JobReference struct{ JobID string }
		Status       struct{ State string }
	}
	call(t, f, "POST", "jobs", map[string]any{"jobReference": map[string]any{"jobId": "wire"},
		"configuration": map[string]any{"query": map[string]any{"query": q, "useLegacySql": false}}}, &job)
	if job.JobReference.JobID != "wire" || (job.Status.State != "RUNNING" && job.Status.State != "DONE") {
		t.Fatalf("inserted job = %+v", job)
	}
	type page struct {
		JobComplete bool
		TotalRows   string
		Schema      struct{ Fields []struct{ Name, Type string } }
		Rows        []struct{ F []struct{ V any } }
	}
	wantTypes := []string{"INTEGER", "NUMERIC", "TIMESTAMP", "DATETIME", "DATE", "FLOAT", "BOOLEAN", "STRING"}
	for _, tt := range []struct {
		query, tz string
	}{{"", "1.7067015005E9"}, {"&formatOptions.useInt64Timestamp=true", "1706701500500000"}} {
		var p page
		for !p.JobComplete {
			call(t, f, "GET", "queries/wire?timeoutMs=1000"+tt.query, nil, &p)
		}
		want := []any{"9007199254740993", "12.5", tt.tz, "2024-01-31T13:45:00.5", "2024-01-31", "1.5", "true", nil}
		if p.TotalRows != "1" || len(p.Rows) != 1 || len(p.Schema.Fields) != len(want) {
			t.Fatalf("page = %+v", p)
		}
		for i, w := range want {
			if got := p.Rows[0].F[i].V; got != w || p.Schema.Fields[i].Type != wantTypes[i] {
				t.Errorf("%s%s: %s = %s %#v, want %s %#v", "queries/wire", tt.query, p.Schema.Fields[i].Name, p.Schema.Fields[i].Type, got, wantTypes[i], w)
			}
		}
	}
	// A statement that does not plan still makes a job, DONE with the
	// error; its results answer the error.
	var failed struct {
		Status struct {
			State       string
			ErrorResult struct{ Reason string }
		}
	}
	call(t, f, "POST", "jobs", map[string]any{"jobReference": map[string]any{"jobId": "bad"},
		"configuration": map[string]any{"query": map[string]any{"query": "SELECT nope FROM main.many", "useLegacySql": false}}}, &failed)
	var apiErr struct {
		Error struct{ Errors []struct{ Reason string } }
	}
	if failed.Status.State != "DONE" || failed.Status.ErrorResult.Reason != "invalidQuery" ||
		callStatus(t, f, "GET", "queries/bad", nil, &apiErr) != http.StatusBadRequest || len(apiErr.Error.Errors) != 1 || apiErr.Error.Errors[0].Reason != "invalidQuery" {
		t.Errorf("failing job = %+v, its results = %+v", failed, apiErr)
	}
	// A dry run through jobs.query: the bytes, no job.
	var dry struct {
		JobComplete         bool
		TotalBytesProcessed string
		JobReference        struct{ JobID string }
	}
	call(t, f, "POST", "queries", map[string]any{"query": "SELECT i FROM main.many", "dryRun": true}, &dry)
	if !dry.JobComplete || dry.TotalBytesProcessed != "20000" || dry.JobReference.JobID != "" {
		t.Errorf("dry run = %+v", dry)
	}
}

// Query.Read takes the client's jobs.query fast path: the first page comes
// with the answer, the rest through getQueryResults pageTokens; when the
// job outlasts the wait (jobComplete=false) the client polls instead.
func TestBigQueryJobsQuery(t *testing.T) {
	ctx := context.Background()
	for _, wait := range []time.Duration{time.Second, 0} {
		f := bigQueryFake(t)
		f.MaxWait = wait
		client, err := bqclient.NewClient(ctx, "wire-proj", option.WithEndpoint(f.URL+"/bigquery/v2/"),
			option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: f.Token})))
		if err != nil {
			t.Fatal(err)
		}
		// The subquery keeps DuckDB busy for a moment, longer than a zero wait.
		it, err := client.Query("SELECT i FROM main.many WHERE (SELECT SUM(range) FROM range(30000000)) > 0 ORDER BY i").Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			var row []bqclient.Value
			err := it.Next(&row)
			if errors.Is(err, iterator.Done) {
				break
			}
			if err != nil || row[0] != int64(n) {
				t.Fatalf("row %d = %v, %v", n, row, err)
			}
			n++
		}
		methods := map[string]int{}
		for _, c := range f.Calls() {
			if c.PageToken != "" {
				methods[c.Method+" with pageToken"]++
			}
			methods[c.Method]++
		}
		// Polling adds getQueryResults without a pageToken: one to wait, one
		// for the first page.
		polls := methods["jobs.getQueryResults"] - methods["jobs.getQueryResults with pageToken"]
		if n != 2500 || methods["jobs.query"] != 1 || methods["jobs.getQueryResults with pageToken"] != 2 || methods["jobs.insert"] != 0 ||
			(wait > 0) != (polls == 0) {
			t.Errorf("wait %v: %d rows, calls %v", wait, n, methods)
		}
		client.Close()
	}
}
