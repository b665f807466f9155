package impacttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DeriveProject writes a dbt project directory whose target-base/ holds the
// artifacts of the real build in srcDir and whose target/ holds the same
// artifacts with one model's SQL edited: old replaced by new in its
// compiled code (nothing when old is ""), a line added to its raw code and
// a new checksum. It stands for a pull request changing one column of a
// real project whose second build is not available. It returns the
// project directory.
func DeriveProject(t testing.TB, srcDir, model, old, new string) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"target", "target-base"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"manifest.json", "catalog.json", "run_results.json"} {
			data, err := os.ReadFile(filepath.Join(srcDir, f))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if sub == "target" && f == "manifest.json" {
				data = editModel(t, data, model, old, new)
			}
			if err := os.WriteFile(filepath.Join(dir, sub, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func editModel(t testing.TB, data []byte, model, old, new string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var nodes map[string]map[string]any
	if err := json.Unmarshal(m["nodes"], &nodes); err != nil {
		t.Fatal(err)
	}
	n, ok := nodes[model]
	if !ok {
		t.Fatalf("%s is not in the manifest", model)
	}
	// The edit goes into the compiled SQL, or into the raw code of a
	// parse-only manifest: a comment alone would be a cosmetic edit, which
	// impacts nothing.
	raw, _ := n["raw_code"].(string)
	if old != "" {
		code, _ := n["compiled_code"].(string)
		switch {
		case strings.Contains(code, old):
			n["compiled_code"] = strings.Replace(code, old, new, 1)
		case code == "" && strings.Contains(raw, old):
			raw = strings.Replace(raw, old, new, 1)
		default:
			t.Fatalf("%s's SQL has no %q", model, old)
		}
	}
	n["raw_code"] = raw + "\n-- changed"
	if cs, ok := n["checksum"].(map[string]any); ok {
		cs["checksum"] = "changed-" + cs["checksum"].(string)
	}
	b, err := json.Marshal(nodes)
	if err != nil {
		t.Fatal(err)
	}
	m["nodes"] = b
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
