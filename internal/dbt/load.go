package dbt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Supported manifest schema versions.
const (
	MinManifestVersion = 7
	MaxManifestVersion = 12
)

// Artifact file names.
const (
	ManifestFile   = "manifest.json"
	CatalogFile    = "catalog.json"
	RunResultsFile = "run_results.json"
)

// ErrMissingArtifact is wrapped by errors about an artifact file that does not exist.
var ErrMissingArtifact = errors.New("missing dbt artifact")

// ErrUnsupportedVersion is wrapped when an artifact's schema is outside what Ripple reads.
var ErrUnsupportedVersion = errors.New("unsupported artifact version")

// UnmarshalJSON accepts dbt's {"name","checksum"} object and the bare
// string some node kinds (unit tests) carry.
func (c *Checksum) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		c.Name = ""
		return json.Unmarshal(b, &c.Checksum)
	}
	type plain Checksum
	return json.Unmarshal(b, (*plain)(c))
}

// StringOrList decodes a dbt config value that may be a string or a list of strings.
type StringOrList []string

// UnmarshalJSON accepts null, "a" or ["a","b"].
func (s *StringOrList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		*s = nil
		return nil
	}
	if b[0] == '"' {
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*s = StringOrList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		// Unknown shapes (numbers, objects) are ignored rather than failing the load.
		*s = nil
		return nil
	}
	*s = many
	return nil
}

var versionRe = regexp.MustCompile(`/v(\d+)(?:\.json)?$`)

// schemaVersion extracts N from ".../manifest/vN.json"; 0 when absent.
func schemaVersion(url string) int {
	m := versionRe.FindStringSubmatch(url)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// DecodeManifest parses manifest bytes. name is used in error messages.
func DecodeManifest(data []byte, name string) (*Manifest, error) {
	return decodeManifest(data, name, false)
}

// decodeManifest is DecodeManifest; owned says that data is never modified
// afterwards, so the manifest's strings may share its bytes.
func decodeManifest(data []byte, name string, owned bool) (*Manifest, error) {
	m, err := decodeManifestJSON(data, owned)
	if err != nil {
		// An older schema does not decode into today's shape: say which
		// schema it is, not that the JSON is broken.
		var head struct {
			Metadata struct {
				SchemaVersion string `json:"dbt_schema_version"`
				DbtVersion    string `json:"dbt_version"`
			} `json:"metadata"`
		}
		if json.Unmarshal(data, &head) == nil {
			if v := schemaVersion(head.Metadata.SchemaVersion); v > 0 && v < MinManifestVersion {
				return nil, tooOld(name, v, head.Metadata.DbtVersion)
			}
		}
		return nil, fmt.Errorf("%s is not a valid dbt manifest: %w", name, describeJSONError(data, err))
	}
	v := schemaVersion(m.Metadata.SchemaVersion)
	if v == 0 {
		return nil, fmt.Errorf("%s is not a dbt manifest: metadata.dbt_schema_version is missing", name)
	}
	if v > MaxManifestVersion {
		return nil, fmt.Errorf("%s uses manifest schema v%d (dbt %s): %w; Ripple reads v%d–v%d (dbt Fusion / v2 artifacts are not supported yet)",
			name, v, m.Metadata.DbtVersion, ErrUnsupportedVersion, MinManifestVersion, MaxManifestVersion)
	}
	if v < MinManifestVersion {
		return nil, tooOld(name, v, m.Metadata.DbtVersion)
	}
	m.SchemaVersion = v
	if err := m.index(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// decodeManifestJSON decodes with the single-pass decoder, and with
// encoding/json whenever that one declines (see fastdecode.go).
func decodeManifestJSON(data []byte, owned bool) (*Manifest, error) {
	if m, ok := fastManifest(data, owned); ok {
		return m, nil
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// tooOld is the error for a manifest schema before v7 (dbt 1.3).
func tooOld(name string, v int, dbtVersion string) error {
	return &versionError{name: name, msg: fmt.Sprintf("manifest schema v%d (dbt %s) is not supported: Ripple reads v%d–v%d (dbt 1.3 and later); rebuild the artifacts with dbt 1.3 or newer",
		v, dbtMinor(dbtVersion), MinManifestVersion, MaxManifestVersion)}
}

// versionError names the file and wraps ErrUnsupportedVersion.
type versionError struct{ name, msg string }

func (e *versionError) Error() string { return e.name + ": " + e.msg }
func (e *versionError) Unwrap() error { return ErrUnsupportedVersion }

// dbtMinor shortens "0.21.1" to "0.21"; "" becomes "unknown".
func dbtMinor(v string) string {
	if v == "" {
		return "unknown"
	}
	parts := strings.SplitN(v, ".", 3)
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return v
}

// decodeCatalogJSON is decodeManifestJSON for catalogs.
func decodeCatalogJSON(data []byte, owned bool) (*Catalog, error) {
	if c, ok := fastCatalog(data, owned); ok {
		return c, nil
	}
	var c Catalog
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func (m *Manifest) index() error {
	sections := []map[string]*Node{m.Nodes, m.Sources, m.Exposures, m.Metrics, m.SemanticModels, m.SavedQueries, m.UnitTests}
	size := 0
	for _, s := range sections {
		size += len(s)
	}
	m.all = make(map[string]*Node, size)
	for _, s := range sections {
		for id, n := range s {
			if n == nil {
				delete(s, id)
				continue
			}
			if n.UniqueID == "" {
				n.UniqueID = id
			}
			if err := n.decodeConfig(); err != nil {
				return fmt.Errorf("node %s: %w", id, err)
			}
			if n.Enabled() {
				m.all[id] = n
			}
		}
	}
	for id, list := range m.Disabled {
		for _, n := range list {
			if n == nil {
				continue
			}
			if n.UniqueID == "" {
				n.UniqueID = id
			}
			n.Disabled = true
			_ = n.decodeConfig()
		}
	}
	if m.Macros == nil {
		m.Macros = map[string]*Macro{}
	}
	return nil
}

func (n *Node) decodeConfig() error {
	if len(n.ConfigRaw) == 0 || string(n.ConfigRaw) == "null" {
		return nil
	}
	if err := json.Unmarshal(n.ConfigRaw, &n.Config); err != nil {
		return fmt.Errorf("config: %s", plainJSONError(err))
	}
	return nil
}

// DecodeCatalog parses catalog bytes.
func DecodeCatalog(data []byte, name string) (*Catalog, error) {
	return decodeCatalog(data, name, false)
}

// decodeCatalog is DecodeCatalog; owned as for decodeManifest.
func decodeCatalog(data []byte, name string, owned bool) (*Catalog, error) {
	c, err := decodeCatalogJSON(data, owned)
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid dbt catalog: %w", name, describeJSONError(data, err))
	}
	if v := schemaVersion(c.Metadata.SchemaVersion); v > 1 {
		return nil, fmt.Errorf("%s uses catalog schema v%d: %w; Ripple reads catalog v1", name, v, ErrUnsupportedVersion)
	}
	for id, e := range c.Nodes {
		if e == nil {
			delete(c.Nodes, id)
		}
	}
	for id, e := range c.Sources {
		if e == nil {
			delete(c.Sources, id)
		}
	}
	return c, nil
}

// DecodeRunResults parses run_results bytes.
func DecodeRunResults(data []byte, name string) (*RunResults, error) {
	var r RunResults
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s is not valid dbt run_results: %w", name, describeJSONError(data, err))
	}
	return &r, nil
}

// describeJSONError turns an offset into a line:column so users can find
// problems such as git merge-conflict markers in a committed artifact.
func describeJSONError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return errors.New(plainJSONError(err))
	}
	// Offset counts the bytes read including the offending one.
	at := max(off-1, 0)
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := int(at) - bytes.LastIndexByte(data[:at], '\n')
	hint := ""
	if bytes.Contains(data, []byte("\n<<<<<<< ")) || bytes.HasPrefix(data, []byte("<<<<<<< ")) {
		hint = " (the file contains git merge-conflict markers; rebuild it with dbt instead of merging it)"
	}
	// encoding/json names Go types ("Go struct field Manifest.nodes... of
	// type []string"); plainJSONError says the JSON field and JSON types.
	msg := plainJSONError(err)
	if te != nil {
		if top, rest, ok := strings.Cut(te.Field, "."); ok {
			// An object with fixed fields (metadata) has its field as the
			// "entry": the path is then te.Field itself, printed once.
			first, _, _ := strings.Cut(rest, ".")
			if key := entryAt(data, top, off); key != "" && key != first {
				msg = fmt.Sprintf("field %s[%q].%s is a JSON %s where dbt writes %s", top, key, rest, te.Value, jsonKind(te.Type))
			} else {
				msg = fmt.Sprintf("field %s is a JSON %s where dbt writes %s", te.Field, te.Value, jsonKind(te.Type))
			}
		}
	}
	return fmt.Errorf("line %d, column %d: %s%s", line, col, msg, hint)
}

// entryAt names the entry of the top-level object field (e.g. the node of
// "nodes") whose value spans byte offset off, so an error names the node,
// which encoding/json's field path leaves out; "" when it cannot tell.
func entryAt(data []byte, field string, off int64) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		if k != field {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return ""
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return ""
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return ""
			}
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return ""
			}
			if dec.InputOffset() >= off {
				s, _ := key.(string)
				return s
			}
		}
		return ""
	}
	return ""
}

// plainJSONError words a decoding error without Go type names.
func plainJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Sprintf("field %s is a JSON %s where dbt writes %s", field, te.Value, jsonKind(te.Type))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// LoadEnv reads the artifacts in dir. The manifest is required; catalog and
// run_results are optional. what names the environment in errors ("current"
// or "base") and howTo says which dbt command produces the artifacts.
func LoadEnv(ctx context.Context, dir, what, howTo string) (*Env, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mpath := filepath.Join(dir, ManifestFile)
	st, err := os.Stat(mpath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			where := ""
			if what == "base" {
				where = " on the base branch"
			}
			return nil, fmt.Errorf("%w: the %s manifest %s does not exist; produce it with `%s`%s", ErrMissingArtifact, what, mpath, howTo, where)
		}
		return nil, fmt.Errorf("reading the %s manifest: %w", what, err)
	}
	data, err := os.ReadFile(mpath)
	if err != nil {
		return nil, fmt.Errorf("reading the %s manifest: %w", what, err)
	}
	m, err := decodeManifest(data, mpath, true) // data is ours and never written to
	if err != nil {
		return nil, err
	}
	env := &Env{Dir: dir, Manifest: m, ModTime: st.ModTime()}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if data, err := os.ReadFile(filepath.Join(dir, CatalogFile)); err == nil {
		// catalog.json is optional: a corrupt one is treated as a missing
		// one (columns come from the YAML), and said, rather than stopping
		// commands that never need it.
		if env.Catalog, err = decodeCatalog(data, filepath.Join(dir, CatalogFile), true); err != nil {
			env.Catalog = nil
			env.CatalogProblem = fmt.Errorf("%w; Ripple ignores it as if it were missing (schema diffs fall back to the YAML columns): regenerate it with `%s`", err, howTo)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the %s catalog: %w", what, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, RunResultsFile)); err == nil {
		if env.RunResults, err = DecodeRunResults(data, filepath.Join(dir, RunResultsFile)); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the %s run_results: %w", what, err)
	}
	return env, nil
}

func sortColumns(cols []*CatalogColumn) {
	sort.SliceStable(cols, func(i, j int) bool {
		if cols[i].Index != cols[j].Index {
			return cols[i].Index < cols[j].Index
		}
		return cols[i].Name < cols[j].Name
	})
}
