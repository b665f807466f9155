package dbt

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ripple-data/ripple/internal/synth"
)

// sameAsEncodingJSON fails when the single-pass decoder accepts data and
// decodes it differently from encoding/json (or accepts what it rejects).
func sameAsEncodingJSON(t testing.TB, data []byte) (manifestOK, catalogOK bool) {
	t.Helper()
	// Owned: the decoded strings share data's bytes, as when LoadEnv decodes.
	if got, ok := fastManifest(data, true); ok {
		var want Manifest
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("fast manifest decoder accepted what encoding/json rejects (%v): %q", err, data)
		}
		if !reflect.DeepEqual(got, &want) {
			t.Fatalf("manifest decoded differently from encoding/json:\nfast %+v\njson %+v\ninput %q", got, &want, data)
		}
		manifestOK = true
	}
	if got, ok := fastCatalog(data, true); ok {
		var want Catalog
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("fast catalog decoder accepted what encoding/json rejects (%v): %q", err, data)
		}
		if !reflect.DeepEqual(got, &want) {
			t.Fatalf("catalog decoded differently from encoding/json:\nfast %+v\njson %+v\ninput %q", got, &want, data)
		}
		catalogOK = true
	}
	return manifestOK, catalogOK
}

// TestFastDecodeCases: what the single-pass decoder takes it decodes as
// encoding/json does, and what it declines goes to encoding/json.
func TestFastDecodeCases(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         string
		manifestOK bool // the fast path takes it (else encoding/json decides)
	}{
		{"every node field", `{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/manifest/v12.json","env":{"a":"b"},"send_anonymous_usage_stats":true},
		  "nodes":{"model.p.a":{"unique_id":"model.p.a","name":"a","resource_type":"model","package_name":"p","path":"a.sql","original_file_path":"models/a.sql",
		    "fqn":["p","a"],"alias":"a","database":"d","schema":"s","identifier":"i","source_name":"sn","relation_name":"\"d\".\"s\".\"a\"",
		    "checksum":{"name":"sha256","checksum":"ab"},"config":{"materialized":"table","tags":["x"]},"unrendered_config":{"x":1},"tags":["t"],
		    "description":"d\u00e9j\u00e0 vu \"quoted\"","columns":{"id":{"name":"id","description":"","data_type":null,"constraints":[{"type":"not_null","columns":null,"warn_unenforced":true}],"tags":[],"meta":{"k":[1,2.5e3,-0]}},"x":null},
		    "raw_code":"select 1","raw_sql":"","compiled_code":"select 1\n","language":"sql","depends_on":{"macros":[],"nodes":["source.p.r.t"]},
		    "constraints":[],"contract":{"enforced":true,"checksum":"c","alias_types":true},"test_metadata":{"name":"unique","namespace":null,"kwargs":{"column_name":"id","model":"{{ x }}"}},
		    "column_name":"id","attached_node":"model.p.b","version":2,"meta":null,"refs":[{"name":"b","package":null,"version":null}]},
		   "model.p.b":null},
		  "sources":{},"macros":{"macro.p.m":{"unique_id":"macro.p.m","name":"m","package_name":"p","macro_sql":"{% macro m() %}{% endmacro %}","depends_on":{"macros":["macro.dbt.x"]}}},
		  "exposures":null,"metrics":{},"semantic_models":{},"saved_queries":{},"unit_tests":{"u":{"checksum":"bare"}},
		  "disabled":{"model.p.c":[{"name":"c"},null]},"parent_map":{"a":[]},"child_map":{"a":["b",null]}}`, true},
		{"escapes in SQL", `{"nodes":{"a":{"compiled_code":"select \"x\"\n\tfrom t -- \u00e9 \ud83d\ude00 \ud800 \\ \/ \b\f\r"}}}`, true},
		{"invalid UTF-8 in a string", "{\"metadata\":{\"dbt_version\":\"a\xffb\"}}", true},
		{"escaped key goes to encoding/json", `{"metadata":{"dbt_version":"1"},"no\u0064es":{}}`, false},
		{"case-folded key goes to encoding/json", `{"Nodes":{"a":{"name":"a"}}}`, false},
		{"duplicate field goes to encoding/json", `{"nodes":{"a":{"name":"a","name":"b"}}}`, false},
		{"null checksum goes to encoding/json", `{"nodes":{"a":{"checksum":null}}}`, false},
		{"trailing data", `{} {}`, false},
		{"trailing comma", `{"nodes":{"a":{"tags":["x",]}}}`, false},
		{"wrong type", `{"nodes":{"a":{"name":1}}}`, false},
		{"control character in a string", "{\"metadata\":{\"dbt_version\":\"a\x01\"}}", false},
		{"bad number", `{"x":01}`, false},
		{"not an object", `[]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := sameAsEncodingJSON(t, []byte(tc.in))
			if got != tc.manifestOK {
				t.Fatalf("fast path took it: %v, want %v", got, tc.manifestOK)
			}
		})
	}
	catalog := `{"metadata":{"dbt_schema_version":"https://schemas.getdbt.com/dbt/catalog/v1.json"},
	  "nodes":{"model.p.a":{"unique_id":"model.p.a","metadata":{"type":"BASE TABLE","database":"d","schema":"s","name":"a","comment":null,"owner":"o"},
	    "columns":{"ID":{"type":"INTEGER","index":1,"name":"ID","comment":null},"x":null},"stats":{"has_stats":{"id":"has_stats","value":false}}}},
	  "sources":{"s":null},"errors":null}`
	if _, ok := sameAsEncodingJSON(t, []byte(catalog)); !ok {
		t.Fatal("fast path declined a plain catalog")
	}
	if _, ok := sameAsEncodingJSON(t, []byte(`{"nodes":{"a":{"columns":{"x":{"index":1.5}}}}}`)); ok {
		t.Fatal("fast path took a fractional index")
	}
}

// TestFastDecodeSynthProject: a generated project decodes on the fast path,
// identically to encoding/json.
func TestFastDecodeSynthProject(t *testing.T) {
	p := synth.Generate(synth.Options{Models: 60, Seed: 3})
	for name, data := range map[string][]byte{"manifest": p.CurrentManifest, "catalog": p.BaseCatalog} {
		m, c := sameAsEncodingJSON(t, data)
		if (name == "manifest" && !m) || (name == "catalog" && !c) {
			t.Fatalf("%s: fast path declined it", name)
		}
	}
}

// TestFastDecodeRealArtifacts: every real manifest and catalog of the shared
// corpus decodes on the fast path, identically to encoding/json.
func TestFastDecodeRealArtifacts(t *testing.T) {
	root := sharedRealFixtures(t)
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (d.Name() != ManifestFile && d.Name() != CatalogFile) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m, c := sameAsEncodingJSON(t, data)
		if (d.Name() == ManifestFile && !m) || (d.Name() == CatalogFile && !c) {
			t.Errorf("%s: fast path declined it", p)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d artifacts under %s", n, root)
	}
}

// FuzzFastDecode: whatever the single-pass decoder accepts, encoding/json
// accepts and decodes to the same value.
func FuzzFastDecode(f *testing.F) {
	f.Add([]byte(`{"metadata":{"dbt_schema_version":"v12","env":{}},"nodes":{"a":{"name":"a","columns":{"c":{"name":"c","meta":{}}},"checksum":"x","tags":[null]}},"disabled":{"b":[null]}}`))
	f.Add([]byte(`{"nodes":{"a":{"columns":{"x":{"type":"INT","index":-0}}},"b":{"metadata":{"comment":"\u00e9"}}}}`))
	f.Add([]byte(`{"macros":{"m":{"depends_on":{"macros":["a"]}}},"parent_map":{"a":["b"]},"x":[1,true,false,null,"s",{"k":-1.5e-3}]}`))
	f.Add([]byte(`{"nodes":{"a":{"compiled_code":"select \"x\"\n\tfrom t -- \u00e9\ud83d\ude00\ud800 \\ \/ \b\f\r"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsEncodingJSON(t, data)
	})
}

// TestHasSpecial: the eight-byte test finds every special byte at every
// position, and nothing in plain text.
func TestHasSpecial(t *testing.T) {
	plain := []byte("abcdefgh")
	if hasSpecial(binary.LittleEndian.Uint64(plain)) {
		t.Fatal("plain ASCII flagged")
	}
	for c := 0; c < 256; c++ {
		for pos := range 8 {
			w := []byte("zzzzzzzz")
			w[pos] = byte(c)
			if got := hasSpecial(binary.LittleEndian.Uint64(w)); got != special[c] {
				t.Fatalf("byte %#x at %d: hasSpecial = %v, want %v", c, pos, got, special[c])
			}
		}
	}
}
