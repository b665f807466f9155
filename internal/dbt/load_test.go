package dbt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/testfixtures"
)

// sharedRealFixtures is the vendored corpus of real dbt artifacts (testdata/real).
func sharedRealFixtures(t testing.TB) string {
	return testfixtures.RealRoot(t)
}

func TestEveryRealManifestLoads(t *testing.T) {
	root := sharedRealFixtures(t)
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == ManifestFile {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 20 {
		t.Fatalf("found only %d manifests under %s", len(dirs), root)
	}
	for _, dir := range dirs {
		t.Run(strings.TrimPrefix(dir, root), func(t *testing.T) {
			env, err := LoadEnv(context.Background(), dir, "current", "dbt docs generate")
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			m := env.Manifest
			if m.SchemaVersion < MinManifestVersion || m.SchemaVersion > MaxManifestVersion {
				t.Fatalf("schema version %d", m.SchemaVersion)
			}
			if m.Metadata.DbtVersion == "" {
				t.Fatal("no dbt_version")
			}
			for id, n := range m.AllNodes() {
				if n.UniqueID != id || n.ResourceType == "" {
					t.Fatalf("node %s decoded as id=%q type=%q", id, n.UniqueID, n.ResourceType)
				}
			}
		})
	}
}

func TestRealPairCounts(t *testing.T) {
	root := sharedRealFixtures(t)
	p, err := LoadProject(context.Background(), Paths{
		ProjectDir: filepath.Join(root, "mrkidbk_test_dbt_jaffle_shop"), TargetPath: "current", TargetBasePath: "base",
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.SingleEnv {
		t.Fatal("expected two environments")
	}
	models := 0
	for _, n := range p.Current.Manifest.AllNodes() {
		if n.ResourceType == Model {
			models++
		}
	}
	// 3 staging views + customers + orders.
	if models != 5 {
		t.Fatalf("models = %d, want 5", models)
	}
	if p.Current.Catalog == nil || p.Current.RunResults == nil {
		t.Fatal("catalog and run_results should load")
	}
	cols := p.Current.Columns("model.jaffle_shop.customers")
	if len(cols) != 7 || cols[0].Name != "customer_id" {
		t.Fatalf("customers columns = %d, first %v", len(cols), cols[0])
	}
	pk := p.Current.Manifest.PrimaryKeyOf("model.jaffle_shop.customers")
	if pk == nil || pk.Basis != KeyTested || len(pk.Columns) != 1 || pk.Columns[0] != "customer_id" {
		t.Fatalf("primary key = %+v", pk)
	}
}

func TestMergeConflictManifestIsAClearError(t *testing.T) {
	root := sharedRealFixtures(t)
	data, err := os.ReadFile(filepath.Join(root, "summer_camp_recce_jaffle_shop", "negative", "manifest_with_merge_conflict_markers.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = DecodeManifest(data, "target-base/manifest.json")
	if err == nil {
		t.Fatal("expected an error")
	}
	for _, want := range []string{"target-base/manifest.json", "line 1, column 1", "merge-conflict markers"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("missing current manifest names the file and the command", func(t *testing.T) {
		dir := t.TempDir()
		_, err := LoadProject(ctx, Paths{ProjectDir: dir})
		if !errors.Is(err, ErrMissingArtifact) {
			t.Fatalf("err = %v", err)
		}
		for _, want := range []string{filepath.Join(dir, "target", "manifest.json"), "dbt docs generate"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	})
	t.Run("missing base means single-environment mode", func(t *testing.T) {
		dir := t.TempDir()
		writeManifest(t, filepath.Join(dir, "target"), 12)
		p, err := LoadProject(ctx, Paths{ProjectDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if !p.SingleEnv || p.Base != p.Current {
			t.Fatalf("single env = %v", p.SingleEnv)
		}
	})
	t.Run("newer than v12 is unsupported", func(t *testing.T) {
		dir := t.TempDir()
		writeManifest(t, filepath.Join(dir, "target"), 13)
		_, err := LoadProject(ctx, Paths{ProjectDir: dir})
		if !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), "v13") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("older than v7 is unsupported", func(t *testing.T) {
		const want = "m.json: manifest schema v%d (dbt %s) is not supported: Ripple reads v7–v12 (dbt 1.3 and later); rebuild the artifacts with dbt 1.3 or newer"
		for _, tt := range []struct {
			doc, dbt string
			v        int
		}{
			{`{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v4.json","dbt_version":"1.0.1"}}`, "1.0", 4},
			// dbt 0.21's v3 does not decode into today's shape (its
			// fields differ): the version is still what the user hears.
			{`{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v3.json","dbt_version":"0.21.0"},"nodes":{"model.a.b":{"config":"x"}},"child_map":[]}`, "0.21", 3},
			{`{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v6.json"}}`, "unknown", 6},
		} {
			_, err := DecodeManifest([]byte(tt.doc), "m.json")
			if !errors.Is(err, ErrUnsupportedVersion) || err.Error() != fmt.Sprintf(want, tt.v, tt.dbt) {
				t.Errorf("v%d: err = %v", tt.v, err)
			}
		}
	})
	t.Run("not a manifest", func(t *testing.T) {
		_, err := DecodeManifest([]byte(`{"nodes":{}}`), "m.json")
		if err == nil || !strings.Contains(err.Error(), "dbt_schema_version") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		dir := t.TempDir()
		writeManifest(t, filepath.Join(dir, "target"), 12)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := LoadProject(cctx, Paths{ProjectDir: dir}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDisabledNodesAreNotIndexed(t *testing.T) {
	m, err := DecodeManifest([]byte(`{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v12.json","project_name":"p"},
	 "nodes":{"model.p.a":{"name":"a","resource_type":"model","package_name":"p","config":{"enabled":true,"materialized":"table","unique_key":["x","y"]}}},
	 "disabled":{"model.p.b":[{"name":"b","resource_type":"model","package_name":"p","config":{"enabled":false}}]}}`), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Node("model.p.b"); ok {
		t.Fatal("disabled node indexed")
	}
	if d, ok := m.DisabledNode("model.p.b"); !ok || d.Enabled() {
		t.Fatal("disabled node lost")
	}
	a, _ := m.Node("model.p.a")
	if got := strings.Join(a.Config.UniqueKey, ","); got != "x,y" || a.Materialized() != "table" {
		t.Fatalf("config decoded as %+v", a.Config)
	}
	if _, err := m.Lookup("aa"); err == nil || !strings.Contains(err.Error(), `did you mean "a"`) {
		t.Fatalf("lookup error = %v", err)
	}
}

func writeManifest(t *testing.T, dir string, version int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := `{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v` +
		itoa(version) + `.json","dbt_version":"1.9.0","project_name":"p"},"nodes":{},"sources":{}}`
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func FuzzDecodeManifest(f *testing.F) {
	f.Add([]byte(`{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v12.json"},"nodes":{"model.p.a":{"name":"a","config":{"unique_key":"id","tags":"x"}}}}`))
	f.Add([]byte(`{"metadata":{"dbt_schema_version":"v9"},"disabled":{"x":[null]},"nodes":{"a":null}}`))
	f.Add([]byte("<<<<<<< HEAD\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeManifest(data, "fuzz.json")
		if err == nil {
			for id := range m.AllNodes() {
				_, _ = m.Lookup(id)
				_ = m.PrimaryKeyOf(id)
			}
		}
	})
}

func FuzzDecodeCatalog(f *testing.F) {
	f.Add([]byte(`{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/catalog/v1.json"},"nodes":{"a":{"columns":{"x":{"name":"x","type":"INT","index":1}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeCatalog(data, "fuzz.json")
		if err == nil {
			for id := range c.Nodes {
				e, _ := c.Entry(id)
				_ = e.SortedColumns()
			}
		}
	})
}

func FuzzDecodeRunResults(f *testing.F) {
	f.Add([]byte(`{"results":[{"unique_id":"a","status":"success","failures":0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = DecodeRunResults(data, "fuzz.json")
	})
}

// A manifest with a value of the wrong type names the file, the node and
// the field in JSON terms, never Go's types.
func TestManifestTypeErrorIsWordedInJSON(t *testing.T) {
	data := []byte(`{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"},
"nodes": {"model.p.a": {"unique_id": "model.p.a", "name": "a"},
"model.p.b": {"unique_id": "model.p.b", "name": 42}}}`)
	_, err := DecodeManifest(data, "target/manifest.json")
	if err == nil {
		t.Fatal("expected an error")
	}
	want := `target/manifest.json is not a valid dbt manifest: line 3, column 50: field nodes["model.p.b"].name is a JSON number where dbt writes a string`
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
}

// Issue #27 item 10: a field of an object with fixed fields (metadata) is
// named once, not as metadata["dbt_schema_version"].dbt_schema_version.
func TestManifestMetadataTypeErrorPathOnce(t *testing.T) {
	data := []byte(`{"metadata": {"dbt_schema_version": 12}, "nodes": {}}`)
	_, err := DecodeManifest(data, "target/manifest.json")
	want := `target/manifest.json is not a valid dbt manifest: line 1, column 38: field metadata.dbt_schema_version is a JSON number where dbt writes a string`
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

// A corrupt catalog.json is read as a missing one, and the problem is kept
// for surfaces to warn about.
func TestCorruptCatalogIsTreatedAsMissing(t *testing.T) {
	dir := t.TempDir()
	manifest := `{"metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json"}, "nodes": {}}`
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, CatalogFile), []byte(`{"nodes": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	env, err := LoadEnv(context.Background(), dir, "current", "dbt docs generate")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, CatalogFile) + " is not a valid dbt catalog: line 1, column 11: unexpected end of JSON input; " +
		"Ripple ignores it as if it were missing (schema diffs fall back to the YAML columns): regenerate it with `dbt docs generate`"
	if env.Catalog != nil || env.CatalogProblem == nil || env.CatalogProblem.Error() != want {
		t.Errorf("catalog %v, problem\n%v\nwant\n%s", env.Catalog, env.CatalogProblem, want)
	}
}
