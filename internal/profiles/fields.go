package profiles

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Adapter-specific profile fields (account, http_path, method, keyfile,
// session_properties, ...) stay in Target.Extra, already rendered
// ({{ env_var() }} works in every field). The accessors below read them
// with dbt's types and name the field in errors, never its value.

// Text returns the first of keys that is set, as text.
func (t Target) Text(keys ...string) string {
	for _, k := range keys {
		if v, ok := t.lookup(k); ok && v != nil {
			return strings.TrimSpace(scalar(v))
		}
	}
	return ""
}

// Int reads an integer field; def when unset.
func (t Target) Int(key string, def int) (int, error) {
	v, ok := t.lookup(key)
	if !ok || v == nil || scalar(v) == "" {
		return def, nil
	}
	n, err := toInt(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %s must be a whole number: %w", t.Where(), key, err)
	}
	return n, nil
}

// Int64 reads a large integer field (bytes); def when unset.
func (t Target) Int64(key string, def int64) (int64, error) {
	v, ok := t.lookup(key)
	if !ok || v == nil || scalar(v) == "" {
		return def, nil
	}
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case uint64:
		return int64(x), nil
	case float64:
		if x == float64(int64(x)) {
			return int64(x), nil
		}
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%s: %s must be a whole number, got a %T that is not one", t.Where(), key, v)
}

// Bool reads a boolean field (true/false, yes/no, 1/0); def when unset.
func (t Target) Bool(key string, def bool) (bool, error) {
	v, ok := t.lookup(key)
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case int:
		return x != 0, nil
	}
	switch strings.ToLower(strings.TrimSpace(scalar(v))) {
	case "true", "yes", "1", "on":
		return true, nil
	case "false", "no", "0", "off":
		return false, nil
	case "":
		return def, nil
	}
	return false, fmt.Errorf("%s: %s must be true or false", t.Where(), key)
}

// Seconds reads a duration given in seconds (dbt's *_timeout fields).
func (t Target) Seconds(key string) (time.Duration, error) {
	v, ok := t.lookup(key)
	if !ok || v == nil || scalar(v) == "" {
		return 0, nil
	}
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case float64:
		f = x
	default:
		p, err := strconv.ParseFloat(strings.TrimSpace(scalar(v)), 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %s must be a number of seconds", t.Where(), key)
		}
		f = p
	}
	if f < 0 {
		return 0, fmt.Errorf("%s: %s must not be negative", t.Where(), key)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// Map reads a mapping field (session_properties, keyfile_json) with its
// values as text.
func (t Target) Map(key string) (map[string]string, error) {
	v, ok := t.lookup(key)
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: %s must be a mapping", t.Where(), key)
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		out[k] = scalar(e)
	}
	return out, nil
}

// Raw returns a field as parsed (for nested values such as keyfile_json).
func (t Target) Raw(key string) (any, bool) { return t.lookup(key) }

// lookup finds a field among the typed ones and Extra, case-insensitively.
func (t Target) lookup(key string) (any, bool) {
	switch strings.ToLower(key) {
	case "host":
		return t.Host, t.Host != ""
	case "port":
		return t.Port, t.Port != 0
	case "user":
		return t.User, t.User != ""
	case "password":
		return t.Password, t.Password != ""
	case "database":
		return t.Database, t.Database != ""
	case "schema":
		return t.Schema, t.Schema != ""
	case "threads":
		return t.Threads, t.Threads != 0
	}
	for k, v := range t.Extra {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}
