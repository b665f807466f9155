package dbtfixture

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	// The DuckDB driver registers database/sql driver "duckdb".
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/ripple-data/ripple/internal/dbt"
)

// Versions written into the artifacts' metadata.
const (
	DbtVersion        = "1.8.1"
	ManifestSchema    = "https://schemas.getdbt.com/dbt/manifest/v12.json"
	CatalogSchema     = "https://schemas.getdbt.com/dbt/catalog/v1.json"
	RunResultsSchema  = "https://schemas.getdbt.com/dbt/run-results/v6.json"
	testAuditSuffix   = "_dbt_test__audit"
	ephemeralCTEStart = "__dbt__cte__"
)

// Built is a built scenario: where its artifacts and database are.
type Built struct {
	// Dir is the absolute project directory (dbt_project.yml, profiles.yml).
	Dir string
	// DBPath is the absolute path of the DuckDB file holding both builds.
	DBPath string
	// Database is the dbt database name (the DuckDB file's stem).
	Database      string
	BaseSchema    string
	CurrentSchema string
	// ProjectName is the dbt project name.
	ProjectName string
	// Paths locate the two builds for dbt.LoadProject.
	Paths dbt.Paths
}

// Load reads the built artifacts with dbt.LoadProject.
func (b *Built) Load(ctx context.Context) (*dbt.Project, error) {
	return dbt.LoadProject(ctx, b.Paths)
}

// Schema returns the schema of a side's build.
func (b *Built) Schema(side Side) string {
	if side == Current {
		return b.CurrentSchema
	}
	return b.BaseSchema
}

// Relation is the quoted relation of name on a side: "db"."schema"."name".
func (b *Built) Relation(side Side, name string) string {
	return quoteRelation(b.Database, b.Schema(side), name)
}

// OpenDB opens the DuckDB database of the build. Close it when done.
func (b *Built) OpenDB() (*sql.DB, error) {
	db, err := sql.Open("duckdb", b.DBPath)
	if err != nil {
		return nil, fmt.Errorf("opening DuckDB %s: %w", b.DBPath, err)
	}
	return db, nil
}

// MustBuild builds the scenario in a fresh temporary directory of the TB
// given to New and fails the test on error.
func (p *Project) MustBuild(ctx context.Context) *Built {
	if p.tb == nil {
		panic("dbtfixture: MustBuild needs the TB given to New; use Build otherwise")
	}
	p.tb.Helper()
	b, err := p.Build(ctx, p.tb.TempDir())
	if err != nil {
		p.tb.Fatalf("dbtfixture: %v", err)
	}
	return b
}

// Build writes the scenario into dir — dbt_project.yml, profiles.yml, the
// models/seeds/macros of the current side, target-base/ and target/ with
// manifest.json, catalog.json and run_results.json, and the DuckDB file with
// a schema per side — replacing what a previous Build wrote there.
func (p *Project) Build(ctx context.Context, dir string) (*Built, error) {
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("dbtfixture: resolving %s: %w", dir, err)
	}
	out := &Built{
		Dir:           abs,
		DBPath:        filepath.Join(abs, p.dbFile),
		Database:      strings.TrimSuffix(p.dbFile, filepath.Ext(p.dbFile)),
		BaseSchema:    p.baseSchema,
		CurrentSchema: p.currentSchema,
		ProjectName:   p.name,
		Paths:         dbt.Paths{ProjectDir: abs, TargetPath: "target", TargetBasePath: "target-base"},
	}
	if p.baseSchema == p.currentSchema || p.baseSchema == "" || p.currentSchema == "" {
		return nil, fmt.Errorf("dbtfixture: base and current schemas must be distinct and non-empty, got %q and %q", p.baseSchema, p.currentSchema)
	}
	if err := p.clean(out); err != nil {
		return nil, err
	}
	g := &graphs{p: p, out: out}
	for i, side := range sidesInOrder {
		sg, err := g.plan(side)
		if err != nil {
			return nil, fmt.Errorf("dbtfixture: %s side: %w", side, err)
		}
		g.sides[i] = sg
	}
	db, err := sql.Open("duckdb", out.DBPath)
	if err != nil {
		return nil, fmt.Errorf("dbtfixture: opening DuckDB %s: %w", out.DBPath, err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("dbtfixture: connecting to DuckDB %s: %w", out.DBPath, err)
	}
	defer conn.Close()
	tmp, err := os.MkdirTemp("", "dbtfixture-")
	if err != nil {
		return nil, fmt.Errorf("dbtfixture: %w", err)
	}
	defer os.RemoveAll(tmp)
	ex := &executor{conn: conn, tmp: tmp}
	// One transaction for the whole build: DuckDB then syncs its file once
	// instead of after every statement.
	if err := ex.exec(ctx, "begin transaction"); err != nil {
		return nil, fmt.Errorf("dbtfixture: %w", err)
	}
	if err := g.loadSources(ctx, ex); err != nil {
		return nil, err
	}
	for i, side := range sidesInOrder {
		if err := g.execute(ctx, ex, g.sides[i]); err != nil {
			return nil, fmt.Errorf("dbtfixture: building the %s side: %w", side, err)
		}
		if err := g.catalog(ctx, ex, g.sides[i]); err != nil {
			return nil, fmt.Errorf("dbtfixture: cataloguing the %s side: %w", side, err)
		}
	}
	if err := ex.exec(ctx, "commit"); err != nil {
		return nil, fmt.Errorf("dbtfixture: %w", err)
	}
	for i := range sidesInOrder {
		if err := g.writeArtifacts(g.sides[i]); err != nil {
			return nil, err
		}
	}
	if err := p.writeProjectFiles(out); err != nil {
		return nil, err
	}
	return out, nil
}

// clean removes what a previous Build wrote so that rebuilding is idempotent.
func (p *Project) clean(out *Built) error {
	if err := os.MkdirAll(out.Dir, 0o755); err != nil {
		return fmt.Errorf("dbtfixture: creating %s: %w", out.Dir, err)
	}
	for _, name := range []string{"target", "target-base", "models", "seeds", "macros", "snapshots", "dbt_packages", p.dbFile, p.dbFile + ".wal"} {
		if err := os.RemoveAll(filepath.Join(out.Dir, name)); err != nil {
			return fmt.Errorf("dbtfixture: removing the previous build: %w", err)
		}
	}
	return nil
}

// executor runs statements on one DuckDB connection.
type executor struct {
	conn   *sql.Conn
	tmp    string
	n      int
	loaded map[string]string // CSV data → the relation already loaded from it
}

func (e *executor) exec(ctx context.Context, stmt string) error {
	if _, err := e.conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("%w\nSQL: %s", err, stmt)
	}
	return nil
}

// loadCSV creates table rel from CSV data.
func (e *executor) loadCSV(ctx context.Context, rel, data string) error {
	if prev, ok := e.loaded[data]; ok {
		return e.exec(ctx, fmt.Sprintf("create table %s as select * from %s", rel, prev))
	}
	if e.loaded == nil {
		e.loaded = map[string]string{}
	}
	e.loaded[data] = rel
	e.n++
	path := filepath.Join(e.tmp, fmt.Sprintf("data%d.csv", e.n))
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		return err
	}
	return e.exec(ctx, fmt.Sprintf("create table %s as select * from read_csv(%s, header = true, auto_detect = true)", rel, stringLiteral(path)))
}

func newInvocationID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }
