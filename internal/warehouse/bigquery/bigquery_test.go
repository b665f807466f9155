package bigquery_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bqclient "cloud.google.com/go/bigquery"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"

	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/bigquery"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest/fakeserver"
)

// The fake's project and the fixture's dataset (not DuckDB's "main", so
// the default dataset is exercised).
const project, dataset = "ripple-fake", "analytics"

// fake serves an engine with the suite's fixture in project.dataset.
func fake(t *testing.T) (*fakeserver.BigQuery, *fakeserver.Engine) {
	e := fakeserver.NewEngine(t, project)
	if err := e.Setup(context.Background(), "CREATE SCHEMA "+dataset); err != nil {
		t.Fatal(err)
	}
	f := fakeserver.NewBigQuery(e)
	t.Cleanup(f.Close)
	return f, e
}

// target is a dbt-bigquery profile pointing at the fake (oauth-secrets
// with an access token, api_endpoint = the fake's root).
func target(f *fakeserver.BigQuery, extra map[string]any) profiles.Target {
	e := map[string]any{"method": "oauth-secrets", "token": f.Token, "api_endpoint": f.URL, "location": "US"}
	for k, v := range extra {
		e[k] = v
	}
	return profiles.Target{Type: "bigquery", Database: project, Schema: dataset, Extra: e, File: "profiles.yml", Profile: "p", Name: "bq"}
}

func connect(t *testing.T, tg profiles.Target, s warehouse.Settings) *bigquery.Conn {
	t.Helper()
	c, err := bigquery.Connect(context.Background(), tg, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*bigquery.Conn)
}

// The shared suite through cloud.google.com/go/bigquery against the fake
// REST API: every statement dry-run first, jobs.insert, getQueryResults
// polling and pageToken paging, jobs.cancel on a canceled context.
func TestSuiteAgainstFake(t *testing.T) {
	var f *fakeserver.BigQuery
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		var e *fakeserver.Engine
		f, e = fake(t)
		f.PageRows = 700
		return warehousetest.Target{
			Schema:            dataset,
			SlowQuery:         "SELECT SUM(a.range * b.range) FROM range(10000000) a, range(10000000) b",
			Setup:             e.Setup,
			Killed:            e.Killed,
			CanonicalDecimals: true,
			Skip: map[string]string{
				"Expressions": "BigQuery's APPROX_QUANTILES(x, n)[OFFSET(k)] and TO_HEX(MD5(...)) over BYTES have no same-meaning DuckDB spelling; " +
					"pinned by internal/dialect and internal/diff goldens, runs in TestLive",
				"DialectRoundTrip": "BigQuery's TIMESTAMP_TRUNC(CAST(x AS TIMESTAMP), MONTH) has no DuckDB spelling, and CAST AS TIMESTAMP means an instant " +
					"on BigQuery but a naive timestamp on DuckDB; pinned by goldens, runs in TestLive",
			},
			Open: func(t *testing.T) warehouse.Conn {
				c, err := bigquery.Connect(context.Background(), target(f, nil), warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
	// Rows came over REST, page by page; nothing else was called.
	var paged, canceled int
	for _, c := range f.Calls() {
		switch {
		case strings.HasPrefix(c.Method, "unknown"):
			t.Errorf("unexpected call: %s", c.Method)
		case c.Method == "jobs.getQueryResults" && c.PageToken != "":
			paged++
		case c.Method == "jobs.cancel":
			canceled++
		}
	}
	if paged == 0 || canceled < 2 {
		t.Errorf("getQueryResults with a pageToken: %d calls, jobs.cancel: %d (want > 0 and >= 2)", paged, canceled)
	}
}

// Every job is dry-run first, and a statement the dry run refuses never
// becomes a job: writes and scripts (BigQuery's statement type), and
// queries above maximum_bytes_billed or --max-bytes.
func TestDryRunGuard(t *testing.T) {
	ctx := context.Background()
	f, e := fake(t)
	if err := e.Setup(ctx, "CREATE TABLE analytics.ripple_many AS SELECT i FROM range(2500) g(i)",
		"CREATE TABLE analytics.ripple_text (s VARCHAR, n INTEGER)", "INSERT INTO analytics.ripple_text VALUES ('hello', 1), (NULL, 2), ('it''s', NULL)"); err != nil {
		t.Fatal(err)
	}
	c := connect(t, target(f, map[string]any{"maximum_bytes_billed": 30000, "job_execution_timeout_seconds": 120}), warehouse.Settings{})
	jobs := func() map[string]bool {
		ran := map[string]bool{}
		for _, call := range f.Calls() {
			if call.Method == "jobs.insert" && !call.DryRun {
				ran[call.Query] = true
			}
		}
		return ran
	}
	for _, tt := range []struct{ sql, stmtType string }{
		{"CREATE TABLE analytics.x (x INT64)", "CREATE_TABLE"},
		{"CREATE OR REPLACE TABLE analytics.x AS SELECT 1 AS x", "CREATE_TABLE_AS_SELECT"},
		{"INSERT INTO analytics.ripple_text (n) VALUES (3)", "INSERT"},
		{"CREATE VIEW analytics.v AS SELECT 1 AS x", "CREATE_VIEW"},
		{"DROP TABLE analytics.ripple_text", "DROP_TABLE"},
		{"SELECT 1; DROP TABLE analytics.ripple_many", "SCRIPT"},
	} {
		_, err := c.Query(ctx, tt.sql, warehouse.QueryOptions{})
		if warehouse.Classify(err) != warehouse.ClassPermissionDenied || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), tt.stmtType) {
			t.Errorf("%s: %v (class %s), want permission_denied naming %s", tt.sql, err, warehouse.Classify(err), tt.stmtType)
		}
		if jobs()[tt.sql] {
			t.Errorf("%s reached the fake as a job", tt.sql)
		}
	}
	// Bytes are BigQuery's logical bytes of the columns read: 2500 INT64
	// values; 'hello' and 'it''s' at 2 bytes + their length, NULL free.
	for _, tt := range []struct {
		sql   string
		bytes int64
	}{{"SELECT i FROM ripple_many WHERE i > 10 LIMIT 5", 20000}, {"SELECT s FROM ripple_text", 13}, {"SELECT COUNT(*) FROM ripple_text", 0}} {
		res, err := c.Query(ctx, tt.sql, warehouse.QueryOptions{})
		if err != nil || res.BytesProcessed == nil || *res.BytesProcessed != tt.bytes {
			t.Errorf("%s: bytes %v, %v; want %d", tt.sql, res, err, tt.bytes)
		}
		if !jobs()[tt.sql] {
			t.Errorf("%s: no job ran", tt.sql)
		}
	}
	for _, call := range f.Calls() {
		if call.Method != "jobs.insert" {
			continue
		}
		q := call.Config.Query
		if q.MaximumBytesBilled != 30000 || q.DefaultDataset == nil || q.DefaultDataset.ProjectId != project || q.DefaultDataset.DatasetId != dataset ||
			q.UseLegacySql == nil || *q.UseLegacySql || call.Config.Labels["client"] != "ripple" || (!call.DryRun && call.Config.JobTimeoutMs != 120000) {
			t.Errorf("job configuration of %q: %+v %+v", call.Query, call.Config, q)
		}
	}
	for _, tt := range []struct {
		extra map[string]any
		s     warehouse.Settings
		limit string
	}{
		{map[string]any{"maximum_bytes_billed": 19999}, warehouse.Settings{}, "maximum_bytes_billed"},
		{nil, warehouse.Settings{MaxBytes: 19999}, "--max-bytes"},
	} {
		c := connect(t, target(f, tt.extra), tt.s)
		q := "SELECT i + 1 FROM ripple_many"
		_, err := c.Query(ctx, q, warehouse.QueryOptions{})
		if err == nil || !strings.Contains(err.Error(), "20.0 KB") || !strings.Contains(err.Error(), tt.limit) || !strings.Contains(err.Error(), "nothing was run") {
			t.Errorf("%s over %s: %v", q, tt.limit, err)
		}
		if jobs()[q] {
			t.Errorf("%s ran above %s", q, tt.limit)
		}
	}
	c = connect(t, target(f, nil), warehouse.Settings{MaxBytes: 20000})
	if _, err := c.Query(ctx, "SELECT i FROM ripple_many", warehouse.QueryOptions{}); err != nil {
		t.Errorf("at exactly --max-bytes: %v", err)
	}
}

// Errors are classified from BigQuery's error reasons through its record.
func TestErrorReasons(t *testing.T) {
	ctx := context.Background()
	f, e := fake(t)
	if err := e.Setup(ctx, "CREATE TABLE analytics.secret (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	f.Deny(dataset, "secret")
	c := connect(t, target(f, nil), warehouse.Settings{})
	for _, tt := range []struct {
		sql, reason string
		class       warehouse.ErrorClass
	}{
		{"SELECT x FROM `analytics`.`secret`", "accessDenied", warehouse.ClassPermissionDenied},
		{"SELECT x FROM analytics.missing", "notFound", warehouse.ClassTableNotFound},
		{"SELECT x FROM nowhere.secret", "notFound", warehouse.ClassTableNotFound},
		{"SELECT FROM WHERE", "invalidQuery", warehouse.ClassSyntaxError},
		{"SELECT y FROM analytics.secret", "invalidQuery", warehouse.ClassSyntaxError},
	} {
		_, err := c.Query(ctx, tt.sql, warehouse.QueryOptions{})
		var we *warehouse.Error
		if !errors.As(err, &we) || we.Code != tt.reason || we.Class != tt.class || we.SQL != tt.sql {
			t.Errorf("%s: %#v, want reason %s, class %s", tt.sql, err, tt.reason, tt.class)
		}
	}
	_, err := bigquery.Connect(ctx, target(f, map[string]any{"token": "ya29.expired"}), warehouse.Settings{})
	if warehouse.Classify(err) != warehouse.ClassAuth {
		t.Errorf("bad token: %v (class %s)", err, warehouse.Classify(err))
	}
}

// Jobs run in execution_project, tables are read from project, and a
// canceled job is stopped on the server: jobs.get (through the client's
// own JobFromIDLocation and Status) reports it DONE with reason "stopped".
func TestExecutionProjectAndCancel(t *testing.T) {
	ctx := context.Background()
	f, _ := fake(t)
	c := connect(t, target(f, map[string]any{"execution_project": "billing-proj"}), warehouse.Settings{})
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Query(cctx, "SELECT SUM(a.range * b.range) FROM range(10000000) a, range(10000000) b", warehouse.QueryOptions{})
		done <- err
	}()
	// Cancel once the job runs (the client polls its results).
	var job string
	for job == "" {
		time.Sleep(10 * time.Millisecond)
		for _, call := range f.Calls() {
			if call.Method == "jobs.getQueryResults" {
				job = call.Job
			}
		}
	}
	cancel()
	if err := <-done; warehouse.Classify(err) != warehouse.ClassCanceled {
		t.Fatalf("canceled query: %v", err)
	}
	for _, call := range f.Calls() {
		if call.Project != "billing-proj" {
			t.Errorf("%s ran in project %q, want the execution project", call.Method, call.Project)
		}
	}
	client, err := bqclient.NewClient(ctx, "billing-proj", option.WithEndpoint(f.URL+"/bigquery/v2/"), option.WithTokenSource(staticToken(f.Token)))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	j, err := client.JobFromIDLocation(ctx, job, "US")
	if err != nil {
		t.Fatal(err)
	}
	// jobs.cancel returns at once; the job stops a moment later.
	st, err := j.Status(ctx)
	for deadline := time.Now().Add(2 * time.Second); err == nil && !st.Done() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		st, err = j.Status(ctx)
	}
	var be *bqclient.Error
	if err != nil || !st.Done() || !errors.As(st.Err(), &be) || be.Reason != "stopped" {
		t.Errorf("job %s after cancel: %+v %v", job, st, err)
	}
}

func TestConfig(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		tg      profiles.Target
		wantErr string
	}{
		{profiles.Target{Type: "bigquery"}, "needs project"},
		{profiles.Target{Type: "bigquery", Database: "p", Extra: map[string]any{"method": "service-account"}}, "needs keyfile"},
		{profiles.Target{Type: "bigquery", Database: "p", Extra: map[string]any{"method": "service-account-json"}}, "needs keyfile_json"},
		{profiles.Target{Type: "bigquery", Database: "p", Extra: map[string]any{"method": "magic"}}, "unknown bigquery method"},
		{profiles.Target{Type: "bigquery", Database: "p", Extra: map[string]any{"maximum_bytes_billed": "lots"}}, "maximum_bytes_billed must be a whole number"},
	} {
		tt.tg.File = "profiles.yml"
		_, err := bigquery.Config(ctx, tt.tg, warehouse.Settings{})
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%v: %v, want %q", tt.tg.Extra, err, tt.wantErr)
		}
	}
	o, err := bigquery.Config(ctx, profiles.Target{Type: "bigquery", Database: "data", Schema: "ds", Threads: 6,
		Extra: map[string]any{"execution_project": "billing", "location": "EU", "maximum_bytes_billed": 1000, "job_execution_timeout_seconds": 30}}, warehouse.Settings{})
	if err != nil || o.Project != "data" || o.ExecutionProject != "billing" || o.Dataset != "ds" || o.Location != "EU" ||
		o.MaximumBytesBilled != 1000 || o.JobTimeout.Seconds() != 30 || o.Settings.MaxConns != 6 {
		t.Errorf("%+v %v", o, err)
	}
}

// TestLive runs the suite against BigQuery when RIPPLE_TEST_BIGQUERY_PROJECT
// and _DATASET (writable, for the fixture) are set, with application
// default credentials.
func TestLive(t *testing.T) {
	project := warehousetest.LiveEnv(t, "RIPPLE_TEST_BIGQUERY_PROJECT")
	tg := profiles.Target{Type: "bigquery", Database: project, Schema: warehousetest.Getenv("RIPPLE_TEST_BIGQUERY_DATASET", "ripple_test")}
	warehousetest.RunSuite(t, func(t *testing.T) warehousetest.Target {
		return warehousetest.Target{
			Dialect:   "bigquery",
			Schema:    tg.Schema,
			SlowQuery: "SELECT COUNT(*) FROM UNNEST(GENERATE_ARRAY(1, 1000000)) a, UNNEST(GENERATE_ARRAY(1, 1000000)) b",
			Setup: warehousetest.SetupThrough(func(ctx context.Context) (warehouse.Conn, error) {
				return bigquery.Connect(ctx, tg, warehouse.Settings{})
			}),
			Open: func(t *testing.T) warehouse.Conn {
				c, err := bigquery.Connect(context.Background(), tg, warehouse.Settings{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				return c
			},
		}
	})
}

func staticToken(tok string) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok})
}

// TestKeyfileErrorsInProfileTerms is issue #27 item 10: a bad key file is
// reported with the file and what is wrong with it, never Google's client's
// Go type names (credsfile.fileTypeChecker).
func TestKeyfileErrorsInProfileTerms(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{`[1, 2]`, "is not a JSON object"},
		{`{"type": 5}`, "is not a Google credentials type"},
		{`{"type": "service_account"`, "is not valid JSON"},
		{`{"client_email": "x@y"}`, `has no "type" field`},
		{`{"type": "nonsense"}`, `"nonsense", which is not a Google credentials type`},
	} {
		path := filepath.Join(dir, "key.json")
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		targets := []profiles.Target{{Type: "bigquery", Database: "p", File: "profiles.yml", Extra: map[string]any{"method": "service-account", "keyfile": path}}}
		var parsed any
		if json.Unmarshal([]byte(tc.body), &parsed) == nil {
			// keyfile_json is a mapping in the profile.
			targets = append(targets, profiles.Target{Type: "bigquery", Database: "p", File: "profiles.yml", Extra: map[string]any{"method": "service-account-json", "keyfile_json": parsed}})
		}
		for _, tg := range targets {
			_, err := bigquery.Connect(ctx, tg, warehouse.Settings{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "credsfile") || strings.Contains(err.Error(), "Go ") {
				t.Errorf("%s %s: %v; want %q and no Go type names", tg.Extra["method"], tc.body, err, tc.want)
			}
		}
	}
}
