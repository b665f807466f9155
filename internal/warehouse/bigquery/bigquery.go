//lint:file-ignore SA1019 WithCredentialsJSON is how dbt's service-account methods map onto this client version; the key file is the user's own, named in profiles.yml.

// Package bigquery is the BigQuery adapter, built on cloud.google.com/go/
// bigquery. Every statement is dry-run first: BigQuery itself says what
// kind of statement it is (only SELECT runs: the connection is read-only
// at the source) and how many bytes it would scan, and a statement above
// maximum_bytes_billed or Ripple's --max-bytes is refused before anything
// is billed. The real run is a query job; on cancellation or timeout
// Ripple cancels the job so BigQuery stops it.
package bigquery

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strings"
	"time"

	bq "cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/impersonate"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Options configure Open; Config reads them from a dbt-bigquery profile.
type Options struct {
	// Project holds the data (dbt's project/database); ExecutionProject
	// runs and pays for the jobs (dbt's execution_project, default Project).
	Project, ExecutionProject string
	Dataset, Location         string
	// MaximumBytesBilled and JobTimeout are dbt's maximum_bytes_billed and
	// job_execution_timeout_seconds.
	MaximumBytesBilled int64
	JobTimeout         time.Duration
	// ClientOptions carry the credentials (and, in tests, the endpoint).
	ClientOptions []option.ClientOption
	Settings      warehouse.Settings
}

// Config reads a dbt-bigquery target: method (oauth = application default
// credentials, oauth-secrets, service-account with keyfile,
// service-account-json with keyfile_json), project, dataset/schema,
// execution_project, location, maximum_bytes_billed,
// job_execution_timeout_seconds, impersonate_service_account, api_endpoint,
// threads.
func Config(ctx context.Context, t profiles.Target, s warehouse.Settings) (Options, error) {
	o := Options{Project: t.Database, ExecutionProject: t.Text("execution_project"), Dataset: t.Schema, Location: t.Text("location"), Settings: s}
	if o.Project == "" {
		return o, fmt.Errorf("%s: bigquery needs project", t.Where())
	}
	var err error
	if o.MaximumBytesBilled, err = t.Int64("maximum_bytes_billed", 0); err != nil {
		return o, err
	}
	if o.JobTimeout, err = t.Seconds("job_execution_timeout_seconds"); err != nil {
		return o, err
	}
	scopes := []string{"https://www.googleapis.com/auth/bigquery", "https://www.googleapis.com/auth/cloud-platform"}
	switch m := strings.ToLower(t.Text("method")); m {
	case "", "oauth":
		// Application default credentials: the client finds them itself.
	case "service-account":
		path := t.Text("keyfile")
		if path == "" {
			return o, fmt.Errorf("%s: method service-account needs keyfile", t.Where())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return o, fmt.Errorf("%s: reading keyfile: %w", t.Where(), err)
		}
		if err := checkKey(b); err != nil {
			return o, fmt.Errorf("%s: keyfile %s %w", t.Where(), path, err)
		}
		o.ClientOptions = append(o.ClientOptions, option.WithCredentialsJSON(b))
	case "service-account-json":
		raw, ok := t.Raw("keyfile_json")
		if !ok {
			return o, fmt.Errorf("%s: method service-account-json needs keyfile_json", t.Where())
		}
		b, err := jsonOf(raw)
		if err != nil {
			return o, fmt.Errorf("%s: keyfile_json: %w", t.Where(), err)
		}
		if err := checkKey(b); err != nil {
			return o, fmt.Errorf("%s: keyfile_json %w", t.Where(), err)
		}
		o.ClientOptions = append(o.ClientOptions, option.WithCredentialsJSON(b))
	case "oauth-secrets":
		cred := map[string]any{"type": "authorized_user", "client_id": t.Text("client_id"), "client_secret": t.Text("client_secret"),
			"refresh_token": t.Text("refresh_token")}
		if tok := t.Text("token"); tok != "" && t.Text("refresh_token") == "" {
			o.ClientOptions = append(o.ClientOptions, option.WithTokenSource(staticToken(tok)))
			break
		}
		b, _ := jsonOf(cred)
		o.ClientOptions = append(o.ClientOptions, option.WithCredentialsJSON(b))
	default:
		return o, fmt.Errorf("%s: unknown bigquery method %q (want oauth, oauth-secrets, service-account or service-account-json)", t.Where(), m)
	}
	if sa := t.Text("impersonate_service_account"); sa != "" {
		ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{TargetPrincipal: sa, Scopes: scopes}, o.ClientOptions...)
		if err != nil {
			return o, warehouse.VendorError("bigquery", "", fmt.Sprintf("bigquery: impersonating %s: %v", sa, err), "", err)
		}
		o.ClientOptions = []option.ClientOption{option.WithTokenSource(ts)}
	}
	if ep := t.Text("api_endpoint"); ep != "" {
		// dbt's api_endpoint is the service root (a private endpoint, an
		// emulator); the client wants the REST base path under it.
		o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(strings.TrimRight(ep, "/")+"/bigquery/v2/"))
	}
	if o.Settings.MaxConns == 0 {
		o.Settings.MaxConns = t.Threads
	}
	return o, nil
}

// checkKey reads a credentials file as Google's client will, so that a bad
// one is reported in the profile's terms: the client's own error names Go
// types (credsfile.fileTypeChecker). The message completes "keyfile X ...".
func checkKey(b []byte) error {
	var key struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(b, &key); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("is not valid JSON (at byte %d); download the service account's key again (IAM > Service accounts > Keys > Add key > JSON)", se.Offset)
		}
		return errors.New("is not a JSON object; download the service account's key again (IAM > Service accounts > Keys > Add key > JSON)")
	}
	typ, isString := key.Type.(string)
	if key.Type != nil && !isString {
		return errors.New(`has a "type" that is not a string, so it is not a Google credentials type (want "service_account" for method service-account)`)
	}
	switch typ {
	case "service_account", "authorized_user", "external_account", "impersonated_service_account", "external_account_authorized_user":
		return nil
	case "":
		return errors.New(`has no "type" field (a service account key has "type": "service_account"); download the key again`)
	}
	return fmt.Errorf(`has "type": %q, which is not a Google credentials type (want "service_account" for method service-account)`, typ)
}

// Conn runs query jobs, at most Settings.Conns() at a time.
type Conn struct {
	client *bq.Client
	opts   Options
	gate   warehouse.Gate
	d      dialect.Dialect
}

var _ warehouse.Conn = (*Conn)(nil)

// Connect opens the target (the registration in internal/warehouse/open).
func Connect(ctx context.Context, t profiles.Target, s warehouse.Settings) (warehouse.Conn, error) {
	o, err := Config(ctx, t, s)
	if err != nil {
		return nil, err
	}
	return Open(ctx, o)
}

// Open creates the client and dry-runs SELECT 1, which checks the
// credentials and the project without running anything. The client stays
// on the REST API: it reads rows through the Storage Read API (gRPC) only
// after Client.EnableStorageReadClient, which Ripple never calls, since
// results are capped and jobs.getQueryResults pages serve them without
// another API to enable and grant (bigquery.readsessions.*).
func Open(ctx context.Context, o Options) (*Conn, error) {
	project := o.ExecutionProject
	if project == "" {
		project = o.Project
	}
	client, err := bq.NewClient(ctx, project, o.ClientOptions...)
	if err != nil {
		return nil, wrapErr(err, "")
	}
	if o.Location != "" {
		client.Location = o.Location
	}
	c := &Conn{client: client, opts: o, gate: warehouse.NewGate(o.Settings.Conns()), d: dialect.Must("bigquery")}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := c.dryRun(cctx, "SELECT 1"); err != nil {
		client.Close()
		return nil, err
	}
	return c, nil
}

// Dialect implements warehouse.Conn.
func (c *Conn) Dialect() string { return "bigquery" }

// Close implements warehouse.Conn.
func (c *Conn) Close() error { return c.client.Close() }

func (c *Conn) query(sql string) *bq.Query {
	q := c.client.Query(sql)
	if c.opts.Dataset != "" {
		q.DefaultProjectID, q.DefaultDatasetID = c.opts.Project, c.opts.Dataset
	}
	q.MaxBytesBilled = c.opts.MaximumBytesBilled
	q.JobTimeout = c.opts.JobTimeout
	if c.opts.Settings.QueryTimeout > 0 && (q.JobTimeout == 0 || c.opts.Settings.QueryTimeout < q.JobTimeout) {
		q.JobTimeout = c.opts.Settings.QueryTimeout
	}
	q.Labels = map[string]string{"client": "ripple"}
	return q
}

// Estimate is what a dry run says about a statement.
type Estimate struct {
	StatementType string
	Bytes         int64
}

// dryRun asks BigQuery what sql is and what it would scan, and refuses
// anything but a SELECT, or a SELECT over the byte limits.
func (c *Conn) dryRun(ctx context.Context, sql string) (Estimate, error) {
	q := c.query(sql)
	q.DryRun = true
	job, err := q.Run(ctx)
	if err != nil {
		return Estimate{}, wrapErr(err, sql)
	}
	st := job.LastStatus()
	if st == nil || st.Statistics == nil {
		return Estimate{}, &warehouse.Error{Class: warehouse.ClassUnclassified, Message: "bigquery: the dry run returned no statistics", SQL: sql}
	}
	if err := st.Err(); err != nil {
		return Estimate{}, wrapErr(err, sql)
	}
	e := Estimate{Bytes: st.Statistics.TotalBytesProcessed}
	if qs, ok := st.Statistics.Details.(*bq.QueryStatistics); ok {
		e.StatementType = qs.StatementType
	}
	if e.StatementType != "SELECT" {
		return e, &warehouse.Error{Class: warehouse.ClassPermissionDenied, SQL: sql,
			Message: fmt.Sprintf("bigquery: the dry run says this is a %s statement; the connection is read-only and runs SELECT only", e.StatementType)}
	}
	for _, lim := range []struct {
		n    int64
		name string
	}{{c.opts.MaximumBytesBilled, "maximum_bytes_billed"}, {c.opts.Settings.MaxBytes, "--max-bytes"}} {
		if lim.n > 0 && e.Bytes > lim.n {
			return e, &warehouse.Error{Class: warehouse.ClassUnclassified, SQL: sql,
				Message: fmt.Sprintf("bigquery: the query would scan %s, above %s (%s); nothing was run or billed: narrow the query (partition filters, fewer columns) or raise the limit", bytesText(e.Bytes), lim.name, bytesText(lim.n))}
		}
	}
	return e, nil
}

func bytesText(n int64) string {
	f := float64(n)
	for _, u := range []string{"B", "KB", "MB", "GB", "TB"} {
		if f < 1000 || u == "TB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.1f %s", f, u)
		}
		f /= 1000
	}
	return ""
}

// Query implements warehouse.Conn: dry run, then a job whose rows are read
// up to the cap; the job is canceled when ctx ends first.
func (c *Conn) Query(ctx context.Context, sql string, opts warehouse.QueryOptions) (*warehouse.Result, error) {
	qctx, cancel := c.opts.Settings.WithTimeout(ctx)
	defer cancel()
	leave, err := c.gate.Enter(qctx)
	if err != nil {
		return nil, canceled(qctx, err, sql)
	}
	defer leave()
	est, err := c.dryRun(qctx, sql)
	if err != nil {
		return nil, c.orCanceled(qctx, err, sql)
	}
	// Ripple names the job so that it can cancel it even when ctx ends
	// while jobs.insert is in flight: the job may exist although Run failed.
	q := c.query(sql)
	q.JobID = "ripple_" + rand.Text()
	stop := context.AfterFunc(qctx, func() { c.cancelJob(q.JobID) })
	defer stop()
	job, err := q.Run(qctx)
	if err != nil {
		return nil, c.orCanceled(qctx, wrapErr(err, sql), sql)
	}
	it, err := job.Read(qctx)
	if err != nil {
		return nil, c.orCanceled(qctx, wrapErr(err, sql), sql)
	}
	var cols []warehouse.Column
	var kinds []warehouse.Kind
	first := true
	res, err := warehouse.Collect(nil, opts, func() ([]any, bool, error) {
		var row []bq.Value
		err := it.Next(&row)
		if first {
			first = false
			for _, f := range it.Schema {
				typ := string(f.Type)
				if f.Repeated {
					typ = "ARRAY"
				}
				cols = append(cols, warehouse.Column{Name: f.Name, Type: typ})
				kinds = append(kinds, c.d.KindOf(typ))
			}
		}
		if errors.Is(err, iterator.Done) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		out := make([]any, len(row))
		for i, v := range row {
			out[i] = warehouse.Normalize(fromClient(v), kinds[i])
		}
		return out, true, nil
	})
	if err != nil {
		return nil, c.orCanceled(qctx, wrapErr(err, sql), sql)
	}
	res.Columns = cols
	b := est.Bytes
	res.BytesProcessed = &b
	return res, nil
}

// fromClient converts the client's values into ones Normalize knows.
// NUMERIC and BIGNUMERIC arrive as *big.Rat from BigQuery's canonical text
// (a query result's schema has no NUMERIC(P,S) parameters, so 12.50 is
// sent as 12.5): 38 digits keep BIGNUMERIC exact, and the trailing zeros
// go again. Civil dates and times become time.Time for Normalize to print.
func fromClient(v bq.Value) any {
	switch x := v.(type) {
	case *big.Rat:
		return exact(strings.TrimRight(strings.TrimRight(x.FloatString(38), "0"), "."))
	case civil.Date:
		return x.In(time.UTC)
	case civil.DateTime:
		return x.In(time.UTC)
	case civil.Time:
		return time.Date(0, 1, 1, x.Hour, x.Minute, x.Second, x.Nanosecond, time.UTC)
	case []bq.Value:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromClient(e)
		}
		return out
	}
	return v
}

// cancelJob asks BigQuery to stop job id (jobs.get, then jobs.cancel).
func (c *Conn) cancelJob(id string) {
	ctx, done := context.WithTimeout(context.Background(), 10*time.Second)
	defer done()
	if job, err := c.client.JobFromIDLocation(ctx, id, c.client.Location); err == nil {
		_ = job.Cancel(ctx)
	}
}

func (c *Conn) orCanceled(ctx context.Context, err error, sql string) error {
	if ctx.Err() != nil {
		return canceled(ctx, err, sql)
	}
	return err
}

func canceled(ctx context.Context, err error, sql string) error {
	return &warehouse.Error{Class: warehouse.ClassCanceled, Message: "bigquery: query canceled: " + ctx.Err().Error(), SQL: sql, Err: errors.Join(ctx.Err(), err)}
}

// wrapErr classifies an API error by its reason through BigQuery's record.
func wrapErr(err error, sql string) error {
	var we *warehouse.Error
	if errors.As(err, &we) {
		return err
	}
	code := ""
	var ge *googleapi.Error
	var be *bq.Error
	switch {
	case errors.As(err, &ge):
		if len(ge.Errors) > 0 {
			code = ge.Errors[0].Reason
		}
		if ge.Code == http.StatusUnauthorized {
			return &warehouse.Error{Class: warehouse.ClassAuth, Code: code, Message: "bigquery: " + err.Error(), SQL: sql, Err: err}
		}
	case errors.As(err, &be):
		code = be.Reason
	}
	return warehouse.VendorError("bigquery", code, "bigquery: "+strings.TrimPrefix(err.Error(), "bigquery: "), sql, err)
}

// Columns implements warehouse.Conn from the dataset's INFORMATION_SCHEMA.
func (c *Conn) Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error) {
	project, dataset := rel.Database, rel.Schema
	if project == "" {
		project = c.opts.Project
	}
	if dataset == "" {
		dataset = c.opts.Dataset
	}
	q := "SELECT column_name, data_type FROM " + c.d.QuoteIdent(project) + "." + c.d.QuoteIdent(dataset) +
		".INFORMATION_SCHEMA.COLUMNS WHERE table_name = " + c.d.StringLiteral(rel.Name) + " ORDER BY ordinal_position"
	res, err := c.Query(ctx, q, warehouse.QueryOptions{Limit: -1})
	if err != nil {
		return nil, err
	}
	cols := make([]warehouse.Column, 0, len(res.Rows))
	for _, r := range res.Rows {
		name, _ := r[0].(string)
		typ, _ := r[1].(string)
		cols = append(cols, warehouse.Column{Name: name, Type: typ})
	}
	if len(cols) == 0 {
		return nil, &warehouse.Error{Class: warehouse.ClassTableNotFound, SQL: q,
			Message: fmt.Sprintf("bigquery: table %s.%s.%s does not exist, or the credentials cannot see it", project, dataset, rel.Name)}
	}
	return cols, nil
}
