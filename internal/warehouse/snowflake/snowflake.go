//lint:file-ignore SA1019 gosnowflake v1 (the version served here) has no replacement for its deprecated timeout and telemetry fields yet.

// Package snowflake is the Snowflake adapter, built on snowflakedb/
// gosnowflake v1. The driver logs in over Snowflake's REST protocol, posts
// each statement to /queries/v1/query-request, polls long ones, and on
// cancellation posts /queries/v1/abort-request so the warehouse stops the
// query (and stops billing for it).
package snowflake

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"database/sql"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	sf "github.com/snowflakedb/gosnowflake"

	"github.com/ripple-data/ripple/internal/dialect"
	"github.com/ripple-data/ripple/internal/profiles"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// Config builds the driver configuration from a dbt-snowflake target:
// account, user, password, authenticator (snowflake, externalbrowser,
// oauth + token, jwt / snowflake_jwt with private_key_path or private_key
// and private_key_passphrase, username_password_mfa), role, database,
// warehouse, schema, host, port, protocol, query_tag, connect_retries,
// connect_timeout, threads.
func Config(t profiles.Target, s warehouse.Settings) (*sf.Config, error) {
	cfg := &sf.Config{
		Account: t.Text("account"), User: t.User, Password: t.Password, Role: t.Text("role"),
		Database: t.Database, Schema: t.Schema, Warehouse: t.Text("warehouse"),
		Host: t.Host, Port: t.Port, Protocol: strings.ToLower(t.Text("protocol")),
		Application: "ripple", Params: map[string]*string{},
		// Ripple is one process talking to one account: the driver's
		// telemetry and its query-context cache add round trips only.
		DisableTelemetry: true, DisableQueryContextCache: true,
	}
	if cfg.Account == "" && cfg.Host == "" {
		return nil, fmt.Errorf("%s: snowflake needs account (or host)", t.Where())
	}
	switch a := strings.ToLower(t.Text("authenticator")); a {
	case "", "snowflake":
		cfg.Authenticator = sf.AuthTypeSnowflake
	case "externalbrowser":
		cfg.Authenticator = sf.AuthTypeExternalBrowser
	case "oauth":
		cfg.Authenticator, cfg.Token = sf.AuthTypeOAuth, t.Text("token")
		if cfg.Token == "" {
			return nil, fmt.Errorf("%s: authenticator oauth needs token", t.Where())
		}
	case "jwt", "snowflake_jwt":
		cfg.Authenticator = sf.AuthTypeJwt
		key, err := privateKey(t)
		if err != nil {
			return nil, err
		}
		cfg.PrivateKey = key
	case "username_password_mfa":
		cfg.Authenticator = sf.AuthTypeUsernamePasswordMFA
	default:
		if strings.HasPrefix(a, "https://") {
			return nil, fmt.Errorf("%s: Okta authenticator URLs are not supported by Ripple; use externalbrowser, oauth or a key pair", t.Where())
		}
		return nil, fmt.Errorf("%s: unknown snowflake authenticator %q", t.Where(), a)
	}
	if t.Text("authenticator") == "" && t.Text("private_key_path", "private_key") != "" {
		// dbt-snowflake uses a key pair when one is given without an authenticator.
		key, err := privateKey(t)
		if err != nil {
			return nil, err
		}
		cfg.Authenticator, cfg.PrivateKey = sf.AuthTypeJwt, key
	}
	if tag := t.Text("query_tag"); tag != "" {
		cfg.Params["query_tag"] = &tag
	}
	if s.QueryTimeout > 0 {
		// The warehouse itself stops a runaway statement.
		secs := strconv.Itoa(int(s.QueryTimeout.Seconds() + 0.5))
		cfg.Params["statement_timeout_in_seconds"] = &secs
	}
	retries, err := t.Int("connect_retries", 1)
	if err != nil {
		return nil, err
	}
	cfg.MaxRetryCount = max(retries, 1)
	timeout, err := t.Seconds("connect_timeout")
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	cfg.LoginTimeout, cfg.ClientTimeout, cfg.JWTClientTimeout = timeout, timeout+5*time.Second, timeout
	cfg.RequestTimeout = 0
	return cfg, nil
}

// privateKey reads private_key_path (a PEM file) or private_key (PEM text
// or base64 DER), decrypting legacy PEM encryption with
// private_key_passphrase. Encrypted PKCS#8 needs a library this build
// does not have: such a key must be decrypted first (openssl pkcs8).
func privateKey(t profiles.Target) (*rsa.PrivateKey, error) {
	var data []byte
	switch {
	case t.Text("private_key_path") != "":
		b, err := os.ReadFile(t.Text("private_key_path"))
		if err != nil {
			return nil, fmt.Errorf("%s: reading private_key_path: %w", t.Where(), err)
		}
		data = b
	case t.Text("private_key") != "":
		data = []byte(t.Text("private_key"))
	default:
		return nil, fmt.Errorf("%s: key pair authentication needs private_key_path or private_key", t.Where())
	}
	der := data
	if block, _ := pem.Decode(data); block != nil {
		der = block.Bytes
		if block.Type == "ENCRYPTED PRIVATE KEY" {
			return nil, fmt.Errorf("%s: encrypted PKCS#8 private keys are not supported by Ripple yet; decrypt it (openssl pkcs8 -in key.p8 -out key.pem) and keep it private", t.Where())
		}
		if x509.IsEncryptedPEMBlock(block) {
			var err error
			der, err = x509.DecryptPEMBlock(block, []byte(t.Text("private_key_passphrase")))
			if err != nil {
				return nil, fmt.Errorf("%s: private_key_passphrase does not decrypt the private key", t.Where())
			}
		}
	} else if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data))); err == nil {
		der = b
	}
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if rk, ok := k.(*rsa.PrivateKey); ok {
			return rk, nil
		}
		return nil, fmt.Errorf("%s: the private key is not an RSA key (Snowflake key pairs are RSA)", t.Where())
	}
	if rk, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return rk, nil
	}
	return nil, fmt.Errorf("%s: the private key is not a PEM or DER RSA private key", t.Where())
}

// Conn is a bounded pool of Snowflake sessions.
type Conn struct {
	db       *sql.DB
	d        dialect.Dialect
	settings warehouse.Settings
	database string
	secrets  []string
}

var _ warehouse.Conn = (*Conn)(nil)

// Connect opens the target (the registration in internal/warehouse/open).
func Connect(ctx context.Context, t profiles.Target, s warehouse.Settings) (warehouse.Conn, error) {
	cfg, err := Config(t, s)
	if err != nil {
		return nil, err
	}
	if s.MaxConns == 0 {
		s.MaxConns = t.Threads
	}
	return Open(ctx, cfg, s)
}

// Open logs in (a ping) so bad settings fail here.
func Open(ctx context.Context, cfg *sf.Config, s warehouse.Settings) (*Conn, error) {
	// The driver logs every failed statement to stderr; Ripple reports
	// errors itself, classified, once. (The logger is the driver's own
	// process-wide one: there is no per-connection setting.)
	_ = sf.GetLogger().SetLogLevel("off")
	sf.GetLogger().SetOutput(io.Discard)
	c := &Conn{db: sql.OpenDB(sf.NewConnector(sf.SnowflakeDriver{}, *cfg)), d: dialect.Must("snowflake"), settings: s,
		database: cfg.Database, secrets: []string{cfg.Password, cfg.Token}}
	c.db.SetMaxOpenConns(s.Conns())
	c.db.SetMaxIdleConns(s.Conns())
	pctx, cancel := context.WithTimeout(ctx, cfg.LoginTimeout+cfg.ClientTimeout)
	defer cancel()
	if err := c.db.PingContext(pctx); err != nil {
		c.db.Close()
		e := c.wrapErr(pctx, err, "")
		var we *warehouse.Error
		if errors.As(e, &we) && we.Class == warehouse.ClassCanceled && ctx.Err() == nil {
			// Our own login deadline, not the caller's cancel: the account
			// did not answer.
			we.Class = warehouse.ClassConnection
			we.Message = fmt.Sprintf("snowflake: no answer from account %s within %s", cfg.Account, cfg.LoginTimeout)
		}
		return nil, e
	}
	return c, nil
}

// Dialect implements warehouse.Conn.
func (c *Conn) Dialect() string { return "snowflake" }

// Close implements warehouse.Conn.
func (c *Conn) Close() error { return c.db.Close() }

// Query implements warehouse.Conn.
func (c *Conn) Query(ctx context.Context, query string, opts warehouse.QueryOptions) (*warehouse.Result, error) {
	qctx, cancel := c.settings.WithTimeout(ctx)
	defer cancel()
	res, err := warehouse.SQLQuery(qctx, c.db, c.d, query, opts, typeName, fromDriver)
	if err != nil {
		return nil, c.wrapErr(qctx, err, query)
	}
	return res, nil
}

// typeName spells a result column's type as Snowflake's catalog does:
// FIXED with its scale is NUMBER(p,s), so NUMBER(38,0) is an integer.
func typeName(ct *sql.ColumnType) string {
	t := ct.DatabaseTypeName()
	if t == "FIXED" {
		if p, s, ok := ct.DecimalSize(); ok {
			return fmt.Sprintf("NUMBER(%d,%d)", p, s)
		}
		return "NUMBER"
	}
	return t
}

// fromDriver reads the text the driver hands back for NUMBER and BOOLEAN.
func fromDriver(v any, kind warehouse.Kind) any {
	if s, ok := v.(string); ok {
		switch kind {
		case warehouse.KindInteger, warehouse.KindDecimal, warehouse.KindFloat, warehouse.KindBoolean:
			if x, err := warehouse.ParseText(s, kind); err == nil {
				return x
			}
		}
	}
	return v
}

func (c *Conn) wrapErr(ctx context.Context, err error, query string) error {
	msg := err.Error()
	for _, s := range c.secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	if ctx.Err() != nil {
		return &warehouse.Error{Class: warehouse.ClassCanceled, Message: "snowflake: query canceled: " + ctx.Err().Error(), SQL: query, Err: errors.Join(ctx.Err(), err)}
	}
	code := ""
	var se *sf.SnowflakeError
	if errors.As(err, &se) {
		code = fmt.Sprintf("%06d", se.Number)
		// The driver's own numbers (2xxxxx) are client-side failures such
		// as an unreachable account; the message tells which.
		if se.Number >= 260000 && se.Number < 270000 && code != "260008" {
			code = ""
		}
	}
	return warehouse.VendorError("snowflake", code, "snowflake: "+msg, query, err)
}

// Columns implements warehouse.Conn from the database's information_schema,
// which shows only what the role may read.
func (c *Conn) Columns(ctx context.Context, rel warehouse.Relation) ([]warehouse.Column, error) {
	db := rel.Database
	if db == "" {
		db = c.database
	}
	return warehouse.CatalogColumns(ctx, c, c.d, db, rel, true)
}
