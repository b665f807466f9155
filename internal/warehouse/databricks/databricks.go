// Package databricks is the Databricks SQL warehouse adapter. The Go SQL
// driver and SDK are not served to this build, so it calls the SQL
// Statement Execution API (/api/2.0/sql/statements) with net/http: it
// submits a statement, polls until it finishes, follows result chunks, and
// on cancellation (or the per-query timeout) posts .../cancel so the
// warehouse stops the statement.
package databricks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Options configure Open; Config reads them from a dbt-databricks profile.
type Options struct {
	// BaseURL is https://<host> (a scheme given in host is kept, for tests).
	BaseURL string
	// WarehouseID comes from http_path /sql/1.0/warehouses/<id>.
	WarehouseID string
	// Token is a personal access token; ClientID/ClientSecret use OAuth
	// machine-to-machine instead.
	Token                  string
	ClientID, ClientSecret string
	Catalog, Schema        string
	// ConnectTimeout bounds each HTTP request's connection (default 10s).
	ConnectTimeout time.Duration
	// PollInterval is the first wait between status polls (default 200ms,
	// doubling to 2s).
	PollInterval time.Duration
	Settings     warehouse.Settings
	// Client overrides the HTTP client (tests).
	Client *http.Client
}

var warehousePathRe = regexp.MustCompile(`^/?sql/(?:1\.0|protocolv1)/warehouses/([A-Za-z0-9]+)/?$`)

// Config reads a dbt-databricks target: host, http_path, token or
// client_id + client_secret (auth_type oauth), catalog, schema,
// connect_timeout, threads.
func Config(t profiles.Target, s warehouse.Settings) (Options, error) {
	o := Options{Token: t.Text("token", "password"), ClientID: t.Text("client_id"), ClientSecret: t.Text("client_secret"),
		Catalog: t.Database, Schema: t.Schema, Settings: s}
	host := strings.TrimRight(t.Host, "/")
	if host == "" {
		return o, fmt.Errorf("%s: databricks needs host (e.g. dbc-123.cloud.databricks.com)", t.Where())
	}
	if !strings.HasPrefix(host, "http://") && !strings.HasPrefix(host, "https://") {
		host = "https://" + host
	}
	o.BaseURL = host
	m := warehousePathRe.FindStringSubmatch(t.Text("http_path"))
	if m == nil {
		return o, fmt.Errorf("%s: databricks http_path must name a SQL warehouse (/sql/1.0/warehouses/<id>); the Statement Execution API Ripple uses does not run on all-purpose clusters", t.Where())
	}
	o.WarehouseID = m[1]
	if o.Token == "" && (o.ClientID == "" || o.ClientSecret == "") {
		return o, fmt.Errorf("%s: databricks needs token, or client_id and client_secret (OAuth machine-to-machine)", t.Where())
	}
	var err error
	if o.ConnectTimeout, err = t.Seconds("connect_timeout"); err != nil {
		return o, err
	}
	if o.Settings.MaxConns == 0 {
		o.Settings.MaxConns = t.Threads
	}
	return o, nil
}

// Conn talks to one SQL warehouse; Gate bounds concurrent statements.
type Conn struct {
	opts   Options
	client *http.Client
	gate   warehouse.Gate
	d      dialect.Dialect

	mu      sync.Mutex
	token   string
	expires time.Time
}

var _ warehouse.Conn = (*Conn)(nil)

// Connect opens the target (the registration in internal/warehouse/open).
func Connect(ctx context.Context, t profiles.Target, s warehouse.Settings) (warehouse.Conn, error) {
	o, err := Config(t, s)
	if err != nil {
		return nil, err
	}
	return Open(ctx, o)
}

// Open checks the settings with SELECT 1.
func Open(ctx context.Context, o Options) (*Conn, error) {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 200 * time.Millisecond
	}
	client := o.Client
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = 2 * time.Minute
		tr.TLSHandshakeTimeout = o.ConnectTimeout
		client = &http.Client{Transport: tr, Timeout: 0}
	}
	c := &Conn{opts: o, client: client, gate: warehouse.NewGate(o.Settings.Conns()), d: dialect.Must("databricks")}
	cctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout+20*time.Second)
	defer cancel()
	if _, err := c.Query(cctx, "SELECT 1", warehouse.QueryOptions{Limit: 1}); err != nil {
		return nil, err
	}
	return c, nil
}

// Dialect implements warehouse.Conn.
func (c *Conn) Dialect() string { return "databricks" }

// Close implements warehouse.Conn; statements hold no connection.
func (c *Conn) Close() error {
	c.client.CloseIdleConnections()
	return nil
}

// Columns implements warehouse.Conn from Unity Catalog's information_schema.
func (c *Conn) Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error) {
	catalog := rel.Database
	if catalog == "" {
		catalog = c.opts.Catalog
	}
	return warehouse.CatalogColumns(ctx, c, c.d, catalog, rel, false)
}

// statement is the API's statement response (and, for chunks, result).
type statement struct {
	StatementID string `json:"statement_id"`
	Status      struct {
		State string    `json:"state"`
		Error *apiError `json:"error"`
	} `json:"status"`
	Manifest *struct {
		Schema struct {
			Columns []apiColumn `json:"columns"`
		} `json:"schema"`
		TotalRowCount int64 `json:"total_row_count"`
		Truncated     bool  `json:"truncated"`
	} `json:"manifest"`
	Result *Chunk `json:"result"`
}

type apiColumn struct {
	Name     string `json:"name"`
	TypeName string `json:"type_name"`
	TypeText string `json:"type_text"`
}

// Chunk is one block of a result in JSON_ARRAY format.
type Chunk struct {
	ChunkIndex     int         `json:"chunk_index"`
	DataArray      [][]*string `json:"data_array"`
	NextChunkIndex *int        `json:"next_chunk_index"`
	NextChunkLink  string      `json:"next_chunk_internal_link"`
}

type apiError struct {
	ErrorCode string `json:"error_code"`
	Message   string `json:"message"`
}

// Query implements warehouse.Conn.
func (c *Conn) Query(ctx context.Context, query string, opts warehouse.QueryOptions) (*warehouse.Result, error) {
	qctx, cancel := c.opts.Settings.WithTimeout(ctx)
	defer cancel()
	leave, err := c.gate.Enter(qctx)
	if err != nil {
		return nil, c.canceled(qctx, err, query)
	}
	defer leave()
	body := map[string]any{
		"statement": query, "warehouse_id": c.opts.WarehouseID, "wait_timeout": "5s", "on_wait_timeout": "CONTINUE",
		"disposition": "INLINE", "format": "JSON_ARRAY",
	}
	if c.opts.Catalog != "" {
		body["catalog"] = c.opts.Catalog
	}
	if c.opts.Schema != "" {
		body["schema"] = c.opts.Schema
	}
	limit := warehouse.EffectiveLimit(opts)
	if limit >= 0 {
		// One row past the cap tells whether there were more; the
		// warehouse stops there, so nothing big crosses the network.
		body["row_limit"] = limit + 1
	}
	var st statement
	if err := c.call(qctx, http.MethodPost, "/api/2.0/sql/statements", body, &st, query); err != nil {
		return nil, err
	}
	wait := c.opts.PollInterval
	for st.Status.State == "PENDING" || st.Status.State == "RUNNING" {
		select {
		case <-qctx.Done():
			c.cancel(st.StatementID)
			return nil, c.canceled(qctx, qctx.Err(), query)
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
		if err := c.call(qctx, http.MethodGet, "/api/2.0/sql/statements/"+url.PathEscape(st.StatementID), nil, &st, query); err != nil {
			if qctx.Err() != nil {
				c.cancel(st.StatementID)
			}
			return nil, err
		}
	}
	switch st.Status.State {
	case "SUCCEEDED":
	case "CANCELED", "CLOSED":
		return nil, &warehouse.Error{Class: warehouse.ClassCanceled, Message: "databricks: statement " + strings.ToLower(st.Status.State), SQL: query}
	default:
		e := st.Status.Error
		if e == nil {
			e = &apiError{Message: "statement ended in state " + st.Status.State}
		}
		return nil, c.vendorError(e, query)
	}
	if st.Manifest == nil {
		return nil, &warehouse.Error{Class: warehouse.ClassUnclassified, Message: "databricks: the statement succeeded without a result manifest", SQL: query}
	}
	cols := make([]warehouse.Column, len(st.Manifest.Schema.Columns))
	kinds := make([]warehouse.Kind, len(cols))
	for i, col := range st.Manifest.Schema.Columns {
		typ := col.TypeText
		if typ == "" {
			typ = col.TypeName
		}
		cols[i] = warehouse.Column{Name: col.Name, Type: typ}
		kinds[i] = c.d.KindOf(typ)
	}
	chunk := st.Result
	row := 0
	res, err := warehouse.Collect(cols, opts, func() ([]any, bool, error) {
		for chunk != nil && row >= len(chunk.DataArray) {
			if chunk.NextChunkLink == "" && chunk.NextChunkIndex == nil {
				chunk = nil
				break
			}
			link := chunk.NextChunkLink
			if link == "" {
				link = fmt.Sprintf("/api/2.0/sql/statements/%s/result/chunks/%d", url.PathEscape(st.StatementID), *chunk.NextChunkIndex)
			}
			next := &Chunk{}
			if err := c.call(qctx, http.MethodGet, link, nil, next, query); err != nil {
				return nil, false, err
			}
			chunk, row = next, 0
		}
		if chunk == nil {
			return nil, false, nil
		}
		vals, err := DecodeRow(chunk.DataArray[row], kinds)
		row++
		return vals, err == nil, err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// DecodeRow turns one JSON_ARRAY row (every value a string or null) into
// normalised values by column kind.
func DecodeRow(raw []*string, kinds []warehouse.Kind) ([]any, error) {
	if len(raw) != len(kinds) {
		return nil, fmt.Errorf("databricks: a result row has %d values for %d columns", len(raw), len(kinds))
	}
	out := make([]any, len(raw))
	for i, p := range raw {
		if p == nil {
			continue
		}
		v, err := warehouse.ParseText(*p, kinds[i])
		if err != nil {
			return nil, fmt.Errorf("databricks: column %d: %w", i+1, err)
		}
		out[i] = warehouse.Normalize(v, kinds[i])
	}
	return out, nil
}

// call sends one API request and decodes the answer into out.
func (c *Conn) call(ctx context.Context, method, path string, body, out any, query string) error {
	token, err := c.bearer(ctx)
	if err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.opts.BaseURL+path, rd)
	if err != nil {
		return c.transportError(ctx, err, query)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "ripple")
	resp, err := c.client.Do(req)
	if err != nil {
		return c.transportError(ctx, err, query)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return c.transportError(ctx, err, query)
	}
	if resp.StatusCode != http.StatusOK {
		return c.httpError(resp.StatusCode, b, query)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return &warehouse.Error{Class: warehouse.ClassUnclassified, Message: "databricks: unreadable API answer: " + err.Error(), SQL: query}
	}
	return nil
}

func (c *Conn) httpError(status int, body []byte, query string) error {
	var e apiError
	_ = json.Unmarshal(body, &e)
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body))
	}
	msg := fmt.Sprintf("HTTP %d: %s", status, e.Message)
	switch status {
	case http.StatusUnauthorized:
		return &warehouse.Error{Class: warehouse.ClassAuth, Code: e.ErrorCode, Message: "databricks: " + c.redact(msg), SQL: query}
	case http.StatusForbidden:
		return &warehouse.Error{Class: warehouse.ClassPermissionDenied, Code: e.ErrorCode, Message: "databricks: " + c.redact(msg), SQL: query}
	}
	e.Message = msg
	return c.vendorError(&e, query)
}

// errorClassRe finds the [ERROR_CLASS] Databricks puts in front of SQL errors.
var errorClassRe = regexp.MustCompile(`\[([A-Z_]+)(?:\.[A-Z_]+)?\]`)

func (c *Conn) vendorError(e *apiError, query string) error {
	code := e.ErrorCode
	if m := errorClassRe.FindStringSubmatch(e.Message); m != nil {
		code = m[1]
	}
	return warehouse.VendorError("databricks", code, "databricks: "+c.redact(e.Message), query, nil)
}

func (c *Conn) transportError(ctx context.Context, err error, query string) error {
	if ctx.Err() != nil {
		return c.canceled(ctx, err, query)
	}
	return warehouse.VendorError("databricks", "", "databricks: "+c.redact(err.Error()), query, err)
}

func (c *Conn) canceled(ctx context.Context, err error, query string) error {
	return &warehouse.Error{Class: warehouse.ClassCanceled, Message: "databricks: statement canceled: " + ctx.Err().Error(), SQL: query, Err: errors.Join(ctx.Err(), err)}
}

// cancel asks the warehouse to stop a statement; it outlives the caller's
// canceled context on purpose.
func (c *Conn) cancel(id string) {
	if id == "" {
		return
	}
	ctx, done := context.WithTimeout(context.Background(), 10*time.Second)
	defer done()
	var ignored map[string]any
	_ = c.call(ctx, http.MethodPost, "/api/2.0/sql/statements/"+url.PathEscape(id)+"/cancel", map[string]any{}, &ignored, "")
}

func (c *Conn) redact(msg string) string {
	for _, s := range []string{c.opts.Token, c.opts.ClientSecret} {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}

// bearer returns the token: the personal access token, or an OAuth M2M
// access token fetched from /oidc/v1/token and reused until shortly
// before it expires.
func (c *Conn) bearer(ctx context.Context) (string, error) {
	if c.opts.Token != "" {
		return c.opts.Token, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && time.Now().Before(c.expires) {
		return c.token, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {"all-apis"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.opts.BaseURL+"/oidc/v1/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", c.transportError(ctx, err, "")
	}
	req.SetBasicAuth(c.opts.ClientID, c.opts.ClientSecret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.client.Do(req)
	if err != nil {
		return "", c.transportError(ctx, err, "")
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
		Error       string `json:"error_description"`
	}
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tok)
	if resp.StatusCode != http.StatusOK || tok.AccessToken == "" {
		return "", &warehouse.Error{Class: warehouse.ClassAuth, Message: fmt.Sprintf("databricks: OAuth token request for client %s failed (HTTP %d) %s", c.opts.ClientID, resp.StatusCode, c.redact(tok.Error))}
	}
	c.token = tok.AccessToken
	c.expires = time.Now().Add(time.Duration(max(tok.ExpiresIn-60, 30)) * time.Second)
	return c.token, nil
}
