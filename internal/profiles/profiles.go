// Package profiles reads dbt's profiles.yml the way dbt does, so Ripple
// connects to exactly the warehouse `dbt run` would, without Python.
package profiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// Target is one resolved output of a dbt profile.
type Target struct {
	Type string `json:"type"`
	Host string `json:"host,omitempty"`
	Port int    `json:"port,omitempty"`
	User string `json:"user,omitempty"`
	// Password is never printed: Target's String and MarshalJSON redact it.
	Password string `json:"-"`
	// Database is dbt's dbname/database (BigQuery: project; DuckDB: the
	// catalog name, by default the stem of Path).
	Database string `json:"database,omitempty"`
	// Schema is dbt's schema (BigQuery: dataset).
	Schema string `json:"schema,omitempty"`
	// Path is the DuckDB database file, resolved against the project dir.
	Path    string `json:"path,omitempty"`
	Threads int    `json:"threads,omitempty"`
	// Extra holds every other key of the output (account, warehouse, role,
	// http_path, extensions, ...), rendered.
	Extra map[string]any `json:"extra,omitempty"`

	// Where the target came from, for error messages.
	File    string `json:"file"`
	Profile string `json:"profile"`
	Name    string `json:"target"`

	// env maps each value rendered from env_var() to its variable's name,
	// for RedactEnv.
	env map[string]string
}

// Where names the file, profile and target for error messages.
func (t Target) Where() string {
	return fmt.Sprintf("%s (profile %q, target %q)", t.File, t.Profile, t.Name)
}

// String never includes secrets.
func (t Target) String() string {
	b, _ := json.Marshal(t)
	return string(b)
}

// MarshalJSON redacts Extra keys that look like secrets.
func (t Target) MarshalJSON() ([]byte, error) {
	type plain Target
	p := plain(t)
	if len(t.Extra) > 0 {
		p.Extra = make(map[string]any, len(t.Extra))
		for k, v := range t.Extra {
			if IsSecretKey(k) {
				v = "***"
			}
			p.Extra[k] = v
		}
	}
	return json.Marshal(p)
}

// IsSecretKey reports whether a profile field holds a secret (password,
// token, private key, keyfile, client secret): never printed.
func IsSecretKey(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"pass", "secret", "token", "private_key", "keyfile", "credential"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// LoadOptions mirror dbt's CLI flags and environment.
type LoadOptions struct {
	// ProfilesDir is --profiles-dir.
	ProfilesDir string
	// ProjectDir holds dbt_project.yml; also searched for profiles.yml.
	ProjectDir string
	// Profile overrides dbt_project.yml's profile: (dbt --profile).
	Profile string
	// Target overrides the profile's target: (dbt --target).
	Target string
	// LookupEnv defaults to os.LookupEnv; tests inject their own.
	LookupEnv func(string) (string, bool)
	// HomeDir defaults to os.UserHomeDir.
	HomeDir string
}

// FindFile returns the profiles.yml dbt would use: --profiles-dir, then
// DBT_PROFILES_DIR, then the project dir (if it has one), then ~/.dbt.
func FindFile(opts LoadOptions) (string, error) {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	if opts.ProfilesDir != "" {
		return existing(filepath.Join(opts.ProfilesDir, "profiles.yml"), "--profiles-dir")
	}
	if dir, ok := lookup("DBT_PROFILES_DIR"); ok && dir != "" {
		return existing(filepath.Join(dir, "profiles.yml"), "DBT_PROFILES_DIR")
	}
	var tried []string
	if opts.ProjectDir != "" {
		p := filepath.Join(opts.ProjectDir, "profiles.yml")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	home := opts.HomeDir
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("finding profiles.yml: no home directory (%w); pass --profiles-dir", err)
		}
		home = h
	}
	p := filepath.Join(home, ".dbt", "profiles.yml")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	tried = append(tried, p)
	return "", fmt.Errorf("no profiles.yml found (looked in %s); pass --profiles-dir or set DBT_PROFILES_DIR", strings.Join(tried, ", "))
}

func existing(p, from string) (string, error) {
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("profiles.yml from %s: %w", from, err)
	}
	return p, nil
}

// Load finds profiles.yml and resolves the profile and target.
func Load(opts LoadOptions) (Target, error) {
	file, err := FindFile(opts)
	if err != nil {
		return Target{}, err
	}
	profile := opts.Profile
	if profile == "" {
		if opts.ProjectDir == "" {
			return Target{}, errors.New("no dbt profile name: pass --profile or a project dir whose dbt_project.yml sets a profile key")
		}
		profile, err = projectProfile(filepath.Join(opts.ProjectDir, "dbt_project.yml"))
		if err != nil {
			return Target{}, err
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Target{}, fmt.Errorf("reading %s: %w", file, err)
	}
	t, err := Parse(data, file, profile, opts.Target, opts.LookupEnv)
	if err != nil {
		return Target{}, err
	}
	if t.Type == "duckdb" && t.Path != "" && t.Path != ":memory:" && !filepath.IsAbs(t.Path) && opts.ProjectDir != "" {
		// dbt-duckdb opens relative paths from the directory dbt runs in,
		// which is the project directory.
		t.Path = filepath.Join(opts.ProjectDir, t.Path)
	}
	return t, nil
}

func projectProfile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the profile name from %s: %w; pass --profile", path, err)
	}
	var proj struct {
		Profile any `yaml:"profile"`
	}
	if err := yaml.Unmarshal(data, &proj); err != nil {
		return "", fmt.Errorf("%s: %s", path, yamlError(err))
	}
	name, ok := proj.Profile.(string)
	if !ok || name == "" {
		return "", fmt.Errorf("%s has no profile: key; add one or pass --profile", path)
	}
	return name, nil
}

// yamlError keeps the position and reason of a YAML error but not the
// source snippet goccy/go-yaml appends, which could show a password.
func yamlError(err error) string {
	var ye yaml.Error
	if errors.As(err, &ye) {
		msg := scrubQuoted(ye.GetMessage())
		if tok := ye.GetToken(); tok != nil && tok.Position != nil {
			return fmt.Sprintf("invalid YAML at line %d, column %d: %s", tok.Position.Line, tok.Position.Column, msg)
		}
		return "invalid YAML: " + msg
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	return "invalid YAML: " + scrubQuoted(line)
}

var quotedRe = regexp.MustCompile(`"[^"]*"|'[^']*'|` + "`[^`]*`")

func scrubQuoted(s string) string { return quotedRe.ReplaceAllString(s, `"…"`) }

// Parse resolves profile and target (empty target = the profile's
// target:, else "default") from profiles.yml contents. file only labels errors.
//
// An error never holds a value rendered from env_var(): each is replaced by
// <env_var NAME>.
func Parse(data []byte, file, profile, target string, lookupEnv func(string) (string, bool)) (Target, error) {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	env := map[string]string{}
	record := func(name string) (string, bool) {
		v, ok := lookupEnv(name)
		if ok {
			for _, s := range []string{v, strings.TrimSpace(v), strings.ToLower(v), strings.ToUpper(v)} {
				if len(strings.TrimSpace(s)) >= minRedacted {
					env[s] = name
				}
			}
		}
		return v, ok
	}
	t, err := parse(data, file, profile, target, record)
	if len(env) > 0 {
		t.env = env
	}
	if err != nil {
		return Target{}, t.RedactEnv(err)
	}
	return t, nil
}

// minRedacted is the shortest env_var() value RedactEnv replaces: shorter
// ones ("5", "dev") are no secret and would garble every message.
const minRedacted = 3

// RedactEnv returns err with every value this target rendered from
// env_var() replaced by <env_var NAME>, longest first. It keeps err's chain
// (errors.Is, errors.As) and changes only the message.
func (t Target) RedactEnv(err error) error {
	if err == nil || len(t.env) == 0 {
		return err
	}
	vals := make([]string, 0, len(t.env))
	for v := range t.env {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	msg := err.Error()
	for _, v := range vals {
		msg = strings.ReplaceAll(msg, v, "<env_var "+t.env[v]+">")
	}
	if msg == err.Error() {
		return err
	}
	return redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

func parse(data []byte, file, profile, target string, lookupEnv func(string) (string, bool)) (Target, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Target{}, fmt.Errorf("%s: %s", file, yamlError(err))
	}
	raw, ok := doc[profile]
	if !ok || profile == "config" {
		return Target{}, fmt.Errorf("%s has no profile %q (profiles: %s); check profile: in dbt_project.yml or pass --profile", file, profile, strings.Join(profileNames(doc), ", "))
	}
	prof, ok := raw.(map[string]any)
	if !ok {
		return Target{}, fmt.Errorf("%s: profile %q is not a mapping", file, profile)
	}
	outputs, _ := prof["outputs"].(map[string]any)
	if target == "" {
		if s, ok := prof["target"].(string); ok && s != "" {
			r, err := Render(s, lookupEnv)
			if err != nil {
				return Target{}, fmt.Errorf("%s, profile %q, target: %w", file, profile, err)
			}
			target = r
		} else {
			target = "default"
		}
	}
	t := Target{File: file, Profile: profile, Name: target}
	out, ok := outputs[target].(map[string]any)
	if !ok {
		names := make([]string, 0, len(outputs))
		for n := range outputs {
			names = append(names, n)
		}
		sort.Strings(names)
		return Target{}, fmt.Errorf("%s: no output for target %q in profile %q (outputs: %s); pass --target or fix the profile's target key", file, target, profile, strings.Join(names, ", "))
	}
	if err := t.fill(out, lookupEnv); err != nil {
		return Target{}, err
	}
	return t, nil
}

func profileNames(doc map[string]any) []string {
	var names []string
	for n := range doc {
		if n != "config" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func (t *Target) fill(out map[string]any, lookupEnv func(string) (string, bool)) error {
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := renderValue(out[k], lookupEnv)
		if err != nil {
			return fmt.Errorf("%s: key %s: %w", t.Where(), k, err)
		}
		switch strings.ToLower(k) {
		case "type":
			t.Type = strings.ToLower(scalar(v))
		case "host", "server":
			t.Host = scalar(v)
		case "port":
			n, err := toInt(v)
			if err != nil {
				return fmt.Errorf("%s: port must be a number: %w", t.Where(), err)
			}
			t.Port = n
		case "user", "username":
			t.User = scalar(v)
		case "password", "pass":
			t.Password = scalar(v)
		case "dbname", "database", "project", "catalog":
			t.Database = scalar(v)
		case "schema", "dataset":
			t.Schema = scalar(v)
		case "path":
			t.Path = scalar(v)
		case "threads":
			n, err := toInt(v)
			if err != nil {
				return fmt.Errorf("%s: threads must be a number: %w", t.Where(), err)
			}
			t.Threads = n
		default:
			if t.Extra == nil {
				t.Extra = map[string]any{}
			}
			t.Extra[k] = v
		}
	}
	if t.Type == "" {
		return fmt.Errorf("%s: output has no type: (e.g. duckdb, postgres, snowflake)", t.Where())
	}
	if t.Type == "duckdb" {
		if t.Path == "" {
			t.Path = ":memory:"
		}
		if t.Database == "" && t.Path != ":memory:" {
			base := filepath.Base(t.Path)
			t.Database = strings.TrimSuffix(base, filepath.Ext(base))
		}
	}
	return nil
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// toInt never echoes the value: a mis-keyed password must not show up here.
func toInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case uint64:
		return int(x), nil
	case float64:
		if x == float64(int(x)) {
			return int(x), nil
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("got a %T that is not an integer", v)
}

func renderValue(v any, lookupEnv func(string) (string, bool)) (any, error) {
	switch x := v.(type) {
	case string:
		return renderTyped(x, lookupEnv)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := renderValue(e, lookupEnv)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := renderValue(e, lookupEnv)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case uint64:
		if x <= 1<<62 {
			return int(x), nil
		}
	case int64:
		return int(x), nil
	}
	return v, nil
}
