// Package trino is the Trino warehouse adapter (Starburst and other engines
// speaking Trino's client protocol), built on trinodb/trino-go-client: the
// client posts each statement to /v1/statement, follows nextUri pages, and
// on cancellation sends DELETE /v1/query/{id} so the query stops on the
// coordinator.
package trino

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	trinodrv "github.com/trinodb/trino-go-client/trino"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Options configure Open; Config reads them from a dbt-trino profile.
type Options struct {
	// Method is dbt-trino's authentication method: none, ldap, jwt or certificate.
	Method   string
	Host     string
	Port     int
	User     string
	Password string // ldap
	JWT      string // jwt
	// ClientCert and ClientKey are PEM file paths (certificate); CACert
	// verifies the server (dbt's cert).
	ClientCert, ClientKey, CACert string
	// Scheme is http or https (dbt's http_scheme).
	Scheme            string
	Catalog, Schema   string
	SessionProperties map[string]string
	// Roles maps catalogs to roles (dbt's roles).
	Roles    map[string]string
	Settings warehouse.Settings
}

// Config reads a dbt-trino target: method, host, port, user, password,
// jwt_token, client_certificate, client_private_key, cert, http_scheme,
// database (the catalog), schema, session_properties, roles, threads.
func Config(t profiles.Target, s warehouse.Settings) (Options, error) {
	o := Options{
		Method: strings.ToLower(t.Text("method")), Host: t.Host, Port: t.Port, User: t.User, Password: t.Password,
		JWT: t.Text("jwt_token"), ClientCert: t.Text("client_certificate"), ClientKey: t.Text("client_private_key"),
		CACert: t.Text("cert"), Scheme: strings.ToLower(t.Text("http_scheme")), Catalog: t.Database, Schema: t.Schema, Settings: s,
	}
	if o.Method == "" {
		o.Method = "none"
	}
	var err error
	if o.SessionProperties, err = t.Map("session_properties"); err != nil {
		return o, err
	}
	if o.Roles, err = t.Map("roles"); err != nil {
		return o, err
	}
	switch o.Method {
	case "none", "ldap", "jwt", "certificate":
	case "kerberos", "oauth", "oauth_console":
		return o, fmt.Errorf("%s: trino method %q is not supported by Ripple yet; use ldap, jwt or certificate", t.Where(), o.Method)
	default:
		return o, fmt.Errorf("%s: unknown trino method %q (want none, ldap, jwt or certificate)", t.Where(), o.Method)
	}
	if o.Host == "" {
		return o, fmt.Errorf("%s: trino needs host", t.Where())
	}
	if o.Settings.MaxConns == 0 {
		o.Settings.MaxConns = t.Threads
	}
	return o, nil
}

// Conn is a bounded pool of Trino client connections.
type Conn struct {
	db   *sql.DB
	opts Options
	d    dialect.Dialect
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

// Open connects and runs SELECT 1, so bad settings fail here.
func Open(ctx context.Context, o Options) (*Conn, error) {
	scheme := o.Scheme
	if scheme == "" {
		scheme = "http"
		if o.Method != "none" {
			scheme = "https"
		}
	}
	port := o.Port
	if port == 0 {
		port = 8080
		if scheme == "https" {
			port = 443
		}
	}
	u := url.URL{Scheme: scheme, Host: o.Host + ":" + strconv.Itoa(port)}
	switch {
	case o.Method == "ldap":
		u.User = url.UserPassword(o.User, o.Password)
	case o.User != "":
		u.User = url.User(o.User)
	default:
		u.User = url.User("ripple")
	}
	props := map[string]string{}
	for k, v := range o.SessionProperties {
		props[k] = v
	}
	if o.Settings.QueryTimeout > 0 {
		// The coordinator itself stops a runaway query.
		props["query_max_execution_time"] = strconv.Itoa(int(o.Settings.QueryTimeout.Seconds()+0.5)) + "s"
	}
	retry := 10 * time.Second
	attempts := 3
	cfg := &trinodrv.Config{
		ServerURI: u.String(), Source: "ripple", Catalog: o.Catalog, Schema: o.Schema,
		SessionProperties: props, Roles: o.Roles, AccessToken: o.JWT,
		SSLCertPath: o.CACert, SSLClientCertPath: o.ClientCert, SSLClientKeyPath: o.ClientKey,
		DisableExplicitPrepare: true, RequestRetryTimeout: &retry, RequestRetryMaxAttempts: &attempts,
	}
	if o.Settings.QueryTimeout > 0 {
		qt := o.Settings.QueryTimeout
		cfg.QueryTimeout = &qt
	}
	dsn, err := cfg.FormatDSN()
	if err != nil {
		return nil, warehouse.VendorError("trino", "", "trino: invalid connection settings: "+redact(err.Error(), o), "", nil)
	}
	db, err := sql.Open("trino", dsn)
	if err != nil {
		return nil, warehouse.VendorError("trino", "", "trino: "+redact(err.Error(), o), "", nil)
	}
	db.SetMaxOpenConns(o.Settings.Conns())
	db.SetMaxIdleConns(o.Settings.Conns())
	c := &Conn{db: db, opts: o, d: dialect.Must("trino")}
	if _, err := c.Query(ctx, "SELECT 1", warehouse.QueryOptions{Limit: 1}); err != nil {
		db.Close()
		var we *warehouse.Error
		if errors.As(err, &we) {
			we.Message = fmt.Sprintf("trino: connecting to %s as %s: %s", u.Host, u.User.Username(), strings.TrimPrefix(we.Message, "trino: "))
		}
		return nil, err
	}
	return c, nil
}

func redact(msg string, o Options) string {
	for _, s := range []string{o.Password, o.JWT, url.QueryEscape(o.Password)} {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}

// Dialect implements warehouse.Conn.
func (c *Conn) Dialect() string { return "trino" }

// Close implements warehouse.Conn.
func (c *Conn) Close() error { return c.db.Close() }

// Query implements warehouse.Conn.
func (c *Conn) Query(ctx context.Context, query string, opts warehouse.QueryOptions) (*warehouse.Result, error) {
	qctx, cancel := c.opts.Settings.WithTimeout(ctx)
	defer cancel()
	res, err := warehouse.SQLQuery(qctx, c.db, c.d, query, opts, func(ct *sql.ColumnType) string {
		return strings.ToLower(ct.DatabaseTypeName())
	}, warehouse.DecimalText)
	if err != nil {
		return nil, c.wrapErr(qctx, err, query)
	}
	return res, nil
}

func (c *Conn) wrapErr(ctx context.Context, err error, query string) error {
	if ctx.Err() != nil {
		return &warehouse.Error{Class: warehouse.ClassCanceled, Message: "trino: query canceled: " + ctx.Err().Error(), SQL: query, Err: errors.Join(ctx.Err(), err)}
	}
	if errors.Is(err, trinodrv.ErrQueryCancelled) {
		return &warehouse.Error{Class: warehouse.ClassCanceled, Message: "trino: " + err.Error(), SQL: query, Err: err}
	}
	code := ""
	var te *trinodrv.ErrTrino
	var qf *trinodrv.ErrQueryFailed
	switch {
	case errors.As(err, &te):
		code = te.ErrorName
	case errors.As(err, &qf) && qf.StatusCode == 401:
		return &warehouse.Error{Class: warehouse.ClassAuth, Message: prefixed(redact(err.Error(), c.opts)), SQL: query, Err: err}
	}
	return warehouse.VendorError("trino", code, prefixed(redact(err.Error(), c.opts)), query, err)
}

// Columns implements warehouse.Conn from the catalog's information_schema.
func (c *Conn) Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error) {
	catalog := rel.Database
	if catalog == "" {
		catalog = c.opts.Catalog
	}
	return warehouse.CatalogColumns(ctx, c, c.d, catalog, rel, false)
}

// prefixed names the adapter once (the driver's own messages start with "trino: ").
func prefixed(msg string) string {
	if strings.HasPrefix(msg, "trino: ") {
		return msg
	}
	return "trino: " + msg
}
