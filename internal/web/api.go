package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/ops"
	"github.com/ripple-data/ripple/internal/static"
	"github.com/ripple-data/ripple/internal/warehouse"
)

// APIError is the body of every failed API call.
type APIError struct {
	Error struct {
		// Kind is input, unknown_operation, not_found, ambiguous, read_only,
		// no_warehouse, operation_failed, internal, unauthorized or forbidden.
		Kind    string `json:"kind"`
		Message string `json:"message"`
		// WarehouseClass is the classified warehouse error (table_not_found,
		// permission_denied, …) when the warehouse refused the query.
		WarehouseClass string `json:"warehouse_class,omitempty"`
	} `json:"error"`
}

// handleOp is POST /api/ops/{name}: the JSON body is the operation's
// arguments, the response its result, exactly as `ripple <op> --json`.
func (s *Server) handleOp(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	op, ok := s.o.Registry.Get(name)
	if !ok {
		names := make([]string, 0, len(s.o.Registry.Ops()))
		for _, o := range s.o.Registry.Ops() {
			names = append(names, o.Name)
		}
		msg := fmt.Sprintf("unknown operation %q", name)
		if m := static.ClosestMatches(name, names, 3); len(m) > 0 {
			msg += "; did you mean " + strings.Join(m, ", ") + "?"
		}
		writeError(w, http.StatusNotFound, "unknown_operation", msg)
		return
	}
	if s.o.ReadOnly && op.WritesState {
		writeError(w, http.StatusForbidden, "read_only", op.Name+" writes the checks state, and this server runs with --read-only")
		return
	}
	raw, ok := readArgs(w, r)
	if !ok {
		return
	}
	out, err := op.CallJSON(r.Context(), s.o.Session, raw)
	if err != nil {
		s.writeOpError(w, op.Name, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// handleLineage is the lineage screen's graph: lineage_diff without the
// node cap agents get (ops.LineageDiffUncapped), same input and result.
func (s *Server) handleLineage(w http.ResponseWriter, r *http.Request) {
	raw, ok := readArgs(w, r)
	if !ok {
		return
	}
	op, ok := s.o.Registry.Get("lineage_diff")
	if !ok {
		writeError(w, http.StatusNotFound, "unknown_operation", "lineage_diff is not registered")
		return
	}
	// Decode validates against the operation's own schema.
	in, err := op.Decode(raw)
	if err != nil {
		s.writeOpError(w, op.Name, err)
		return
	}
	// Memoized per loaded project, as lineage_diff is (ops.Spec.Memoize).
	key, _ := json.Marshal(in)
	out, err := s.o.Session.Cached(r.Context(), "web:lineage:"+string(key), func(*dbt.Project) (any, error) {
		return ops.LineageDiffUncapped(r.Context(), s.o.Session, in.(*lineage.DiffInput))
	})
	if err != nil {
		s.writeOpError(w, op.Name, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// readArgs reads a JSON body; an empty body means no arguments. Requiring
// application/json keeps plain HTML forms (which cannot send it without a
// CORS preflight) from calling operations.
func readArgs(w http.ResponseWriter, r *http.Request) (json.RawMessage, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" || r.ContentLength != 0 {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, "input", "send the arguments as Content-Type: application/json")
			return nil, false
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, "input", fmt.Sprintf("request body larger than %d bytes", mbe.Limit))
			return nil, false
		}
		writeError(w, http.StatusBadRequest, "input", "reading the request: "+err.Error())
		return nil, false
	}
	return body, true
}

// apiErrors is the web API's row of the caller-error table (ops.Classify):
// the caller's mistakes are 400 (an argument that names nothing included: it
// is the request that is wrong, not the URL), a missing warehouse 503, a
// failed operation 422 (with the warehouse's error class when it refused a
// query) and a bug 500.
var apiErrors = map[ops.ErrorClass]struct {
	status int
	kind   string
}{
	ops.ClassNotFound:         {http.StatusBadRequest, "not_found"},
	ops.ClassAmbiguous:        {http.StatusBadRequest, "ambiguous"},
	ops.ClassInvalidParameter: {http.StatusBadRequest, "input"},
	ops.ClassUsage:            {http.StatusBadRequest, "input"},
	ops.ClassNoWarehouse:      {http.StatusServiceUnavailable, "no_warehouse"},
	ops.ClassDataStepFailed:   {http.StatusUnprocessableEntity, "operation_failed"},
	ops.ClassInternal:         {http.StatusInternalServerError, "internal"},
}

// writeOpError answers an operation error with its class's status.
func (s *Server) writeOpError(w http.ResponseWriter, op string, err error) {
	status, kind := http.StatusUnprocessableEntity, "operation_failed"
	if e, ok := apiErrors[ops.Classify(err)]; ok {
		status, kind = e.status, e.kind
	}
	s.o.Logger.Info("operation failed", "op", op, "status", status, "error", err)
	body := APIError{}
	body.Error.Kind, body.Error.Message = kind, err.Error()
	if kind == "operation_failed" {
		if c := warehouse.Classify(err); c != warehouse.ClassUnclassified {
			body.Error.WarehouseClass = string(c)
		}
	}
	writeJSON(w, status, body)
}

func writeError(w http.ResponseWriter, status int, kind, msg string) {
	body := APIError{}
	body.Error.Kind, body.Error.Message = kind, msg
	writeJSON(w, status, body)
}

// writeJSON encodes like the CLI's --json (no HTML escaping), so the bytes
// a browser gets parse to the same value as the CLI's output.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
