package ops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/dbtfixture"
	"github.com/ripple-data/ripple/internal/dbtfixture/pgmirror"
	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/duckdb"
	"github.com/ripple-data/ripple/internal/warehouse/postgres"
)

// env is one built scenario on one warehouse.
type env struct {
	session *Session
	built   *dbtfixture.Built
	// queries records every statement sent to the warehouse.
	queries *recorder
	// drop removes a relation of one side from the warehouse.
	drop func(side dbtfixture.Side, name string)
}

// recorder wraps a real connection and remembers the SQL it ran, so tests
// can assert what was (not) executed.
type recorder struct {
	warehouse.Conn
	mu  sync.Mutex
	sql []string
}

func (r *recorder) Query(ctx context.Context, q string, o warehouse.QueryOptions) (*warehouse.Result, error) {
	r.mu.Lock()
	r.sql = append(r.sql, q)
	r.mu.Unlock()
	return r.Conn.Query(ctx, q, o)
}

// onEveryWarehouse builds the scenario and runs check against DuckDB and
// against a real PostgreSQL holding the same data.
func onEveryWarehouse(t *testing.T, scenario func(p *dbtfixture.Project), check func(t *testing.T, e *env)) {
	t.Helper()
	t.Run("duckdb", func(t *testing.T) {
		p := dbtfixture.New(t)
		scenario(p)
		b := p.MustBuild(context.Background())
		rec := &recorder{}
		e := &env{built: b, queries: rec}
		e.session = NewSession(Config{Paths: b.Paths, OpenWarehouse: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			c, err := duckdb.Open(ctx, duckdb.Options{Path: b.DBPath, ReadOnly: true, Catalog: b.Database})
			rec.Conn = c
			return rec, err
		}})
		e.drop = func(side dbtfixture.Side, name string) {
			db, err := b.OpenDB()
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("drop table if exists " + b.Relation(side, name) + " cascade"); err != nil {
				if _, err2 := db.Exec("drop view if exists " + b.Relation(side, name)); err2 != nil {
					t.Fatal(err, err2)
				}
			}
		}
		t.Cleanup(func() { e.session.Close() })
		check(t, e)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := postgresDSN(t)
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		suffix := randomSuffix()
		p := dbtfixture.New(t).DatabaseFile(cfg.Database+".duckdb").Schemas("b_"+suffix, "c_"+suffix)
		scenario(p)
		ctx := context.Background()
		b := p.MustBuild(ctx)
		if err := pgmirror.Copy(ctx, b, dsn); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = pgmirror.Drop(context.Background(), dsn, b.BaseSchema, b.CurrentSchema) })
		rec := &recorder{}
		e := &env{built: b, queries: rec}
		e.session = NewSession(Config{Paths: b.Paths, OpenWarehouse: func(ctx context.Context, _ *dbt.Project) (warehouse.Conn, error) {
			c, err := postgres.Open(ctx, postgres.Options{DSN: dsn, ReadOnly: true})
			rec.Conn = c
			return rec, err
		}})
		e.drop = func(side dbtfixture.Side, name string) {
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, "drop table if exists "+pgx.Identifier{b.Schema(side), name}.Sanitize()+" cascade"); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() { e.session.Close() })
		check(t, e)
	})
}

func postgresDSN(t *testing.T) string {
	dsn := os.Getenv("RIPPLE_TEST_POSTGRES_DSN")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("RIPPLE_TEST_POSTGRES_DSN is not set: CI must start PostgreSQL (.ci/postgres.sh)")
		}
		t.Skip("RIPPLE_TEST_POSTGRES_DSN not set")
	}
	return dsn
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
