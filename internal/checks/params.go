package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ParamError is a validation failure of one parameter (Param is "" when the whole params value is wrong).
type ParamError struct {
	Type  string
	Param string
	Msg   string
}

func (e *ParamError) Error() string {
	if e.Param == "" {
		return fmt.Sprintf("%s: %s", e.Type, e.Msg)
	}
	return fmt.Sprintf("%s: param %q %s", e.Type, e.Param, e.Msg)
}

// ErrUnknownType is wrapped by errors for run types that cannot back a check.
var ErrUnknownType = errors.New("unknown check type")

// ValidateParams checks that params is a JSON object (null/empty = {}) and, when the store's
// Runner is a Catalog, that typ is a check type whose operation accepts params. It returns the
// canonical params (deprecated names folded, keys sorted).
func (s *Store) ValidateParams(typ string, params json.RawMessage) (json.RawMessage, error) {
	if typ == "" {
		return nil, fmt.Errorf("%w: the type is required", ErrUnknownType)
	}
	if _, err := paramsObject(params); err != nil {
		return nil, &ParamError{Type: typ, Msg: err.Error()}
	}
	if cat, ok := s.cfg.Runner.(Catalog); ok {
		p, err := cat.CheckParams(typ, params)
		if err != nil {
			return nil, err
		}
		params = p
	}
	return CanonicalParams(params)
}

// verdict is the CI verdict of a finished run, when the Runner is a Catalog that can judge it.
func (s *Store) verdict(r Run) (mismatch, ok bool) {
	cat, isCat := s.cfg.Runner.(Catalog)
	if !isCat || !r.Succeeded() {
		return false, false
	}
	m, err := cat.Mismatch(r.Type, r.Result)
	return m, err == nil
}

func paramsObject(params json.RawMessage) (map[string]json.RawMessage, error) {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return map[string]json.RawMessage{}, nil
	}
	if t[0] != '{' {
		return nil, errors.New("params must be a JSON object, e.g. {\"model\": \"orders\"}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t, &obj); err != nil {
		return nil, fmt.Errorf("params are not valid JSON: %w", err)
	}
	return obj, nil
}

// CanonicalParams returns params as compact JSON with object keys sorted at every level and
// null/empty input as {}. Numbers keep their literal text. Two params values that are equal as
// JSON produce identical bytes, which is what makes check creation idempotent.
func CanonicalParams(params json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(t))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("params are not valid JSON: %w", err)
	}
	// d.More is false before a stray '}' or ']': look at the bytes left.
	if len(bytes.TrimSpace(t[d.InputOffset():])) > 0 {
		return nil, errors.New("params contain trailing data after the JSON value")
	}
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	// encoding/json sorts map keys and writes json.Number verbatim; HTML escaping is off so SQL
	// templates stay readable in the state file.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("canonicalising params: %w", err)
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
