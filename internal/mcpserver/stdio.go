package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long the session waits for in-flight requests
// after stdin closes.
const drainTimeout = 30 * time.Second

// MaxMessageBytes caps one stdio message (as the SDK does).
const MaxMessageBytes = mcp.DefaultMaxLineLength

// ServeStdio serves one MCP session over newline-delimited JSON on in/out
// until in is closed or ctx is done. Only JSON-RPC messages are written to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcp.Run(ctx, NewStdioTransport(in, out))
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// NewStdioTransport returns a stdio transport that answers malformed input
// itself instead of ending the session, as the SDK's transport does: a line
// that is not valid UTF-8 or not valid JSON gets a -32700 reply, a message
// that is not a valid JSON-RPC request (bad version tag, an id that is not a
// string or an integer, an empty batch, a batch after 2025-03-26) gets
// -32600, and the session continues. Only well-formed lines reach the SDK.
func NewStdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	return &stdioTransport{in: in, out: out}
}

type stdioTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	w := &lineWriter{w: t.out, pending: map[string]bool{}}
	pr, pw := io.Pipe()
	go filterLines(t.in, pw, w)
	inner := &mcp.IOTransport{Reader: pr, Writer: w}
	return inner.Connect(ctx)
}

// lineWriter serializes whole-message writes (the SDK writes one message per
// Write call) and notes the negotiated protocol version from the
// initialize response, so that the filter knows whether batches are allowed.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	version string
	// pending holds the ids of forwarded requests not yet answered, so that
	// the session drains them before it ends on stdin EOF.
	pending map[string]bool
	drained chan struct{} // closed when pending empties while draining
}

func (l *lineWriter) addPending(ids []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		l.pending[normID(id)] = true
	}
}

// drain waits until every forwarded request is answered, or timeout.
func (l *lineWriter) drain(timeout time.Duration) {
	l.mu.Lock()
	if len(l.pending) == 0 {
		l.mu.Unlock()
		return
	}
	l.drained = make(chan struct{})
	ch := l.drained
	l.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(timeout):
	}
}

func (l *lineWriter) answered(p []byte) {
	ids := responseIDs(p)
	if len(ids) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		delete(l.pending, normID(id))
	}
	if len(l.pending) == 0 && l.drained != nil {
		close(l.drained)
		l.drained = nil
	}
}

// normID makes 1, 1.0 and 1e0 the same key (the SDK answers with an integer).
func normID(id string) string {
	if strings.HasPrefix(id, `"`) {
		return id
	}
	if f, err := json.Number(id).Float64(); err == nil {
		return fmt.Sprintf("%d", int64(f))
	}
	return id
}

// responseIDs returns the ids of the responses in an outgoing message,
// reading only the first tokens of single messages (the SDK writes
// "jsonrpc" then "id" then "method" or "result"/"error").
func responseIDs(p []byte) []string {
	p = bytes.TrimSpace(p)
	if len(p) == 0 {
		return nil
	}
	if p[0] == '[' {
		var elems []struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if json.Unmarshal(p, &elems) != nil {
			return nil
		}
		var ids []string
		for _, e := range elems {
			if e.Method == nil && len(e.ID) > 0 {
				ids = append(ids, string(e.ID))
			}
		}
		return ids
	}
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	id := ""
	for i := 0; i < 4 && dec.More(); i++ {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		switch k {
		case "id":
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return nil
			}
			id = string(raw)
		case "method":
			return nil
		case "result", "error":
			if id != "" {
				return []string{id}
			}
			return nil
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
		}
	}
	return nil
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	p = fixOutgoing(p)
	defer l.answered(p)
	if bytes.Contains(p, []byte(`"protocolVersion"`)) && bytes.Contains(p, []byte(`"result"`)) {
		var msg struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(p, &msg) == nil && msg.Result.ProtocolVersion != "" {
			l.mu.Lock()
			l.version = msg.Result.ProtocolVersion
			l.mu.Unlock()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

func (l *lineWriter) Close() error { return nil }

func (l *lineWriter) negotiated() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version
}

func (l *lineWriter) replyError(id json.RawMessage, code int64, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: message}})
	_, _ = l.Write(append(b, '\n'))
}

// filterLines reads in line by line and forwards valid messages to pw.
func filterLines(in io.Reader, pw *io.PipeWriter, w *lineWriter) {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(chunk) > 0 {
			if len(line)+len(chunk) > MaxMessageBytes {
				tooLong, line = true, line[:0]
			} else if !tooLong {
				line = append(line, chunk...)
			}
		}
		if err != nil {
			if len(line) > 0 {
				if fwd := checkLine(line, w); fwd != nil {
					_, _ = pw.Write(fwd)
				}
			}
			// Answer what was asked before ending the session: a client
			// that pipes requests and closes stdin still gets every reply.
			w.drain(drainTimeout)
			pw.CloseWithError(io.EOF)
			return
		}
		if isPrefix {
			continue
		}
		if tooLong {
			w.replyError(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: message longer than %d bytes", MaxMessageBytes))
		} else if fwd := checkLine(line, w); fwd != nil {
			if _, err := pw.Write(fwd); err != nil {
				return // the session is closed
			}
		}
		line, tooLong = line[:0], false
	}
}

// checkLine validates one line; it returns the bytes to forward (with a
// newline) or nil after replying with an error.
func checkLine(line []byte, w *lineWriter) []byte {
	fwd, ids := checkLineIDs(line, w)
	if fwd != nil {
		w.addPending(ids)
	}
	return fwd
}

func checkLineIDs(line []byte, w *lineWriter) ([]byte, []string) {
	var ids []string
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	if !utf8.Valid(line) {
		w.replyError(nil, jsonrpc.CodeParseError, "Parse error: message is not valid UTF-8")
		return nil, nil
	}
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		w.replyError(nil, jsonrpc.CodeParseError, "Parse error: "+errString(err))
		return nil, nil
	}
	switch line[0] {
	case '{':
		id, fwd, err := checkMessage(line)
		if err == nil && fwd && isRequest(line) {
			ids = append(ids, string(id))
		}
		if err != nil {
			w.replyError(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
			return nil, nil
		}
		if !fwd {
			return nil, nil
		}
		line = mapBigID(line)
	case '[':
		var elems []json.RawMessage
		_ = json.Unmarshal(line, &elems)
		if len(elems) == 0 {
			w.replyError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
			return nil, nil
		}
		if v := w.negotiated(); v >= "2025-06-18" {
			w.replyError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
				"Invalid Request: JSON-RPC batches are not supported in protocol version %s; send one message per line", v))
			return nil, nil
		}
		for i, e := range elems {
			id, fwd, err := checkMessage(e)
			if err == nil && fwd && isRequest(e) {
				ids = append(ids, string(id))
			}
			if err != nil || !fwd {
				if err == nil {
					err = errors.New("responses cannot be batched to the server")
				}
				w.replyError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: batch element %d: %v", i, err))
				return nil, nil
			}
		}
		// Notifications go ahead as single lines: the SDK never answers a
		// batch that mixes them with requests.
		var out, calls []byte
		var n int
		for _, e := range elems {
			e = mapBigID(e)
			if isRequest(e) {
				if n > 0 {
					calls = append(calls, ',')
				}
				calls = append(calls, e...)
				n++
				continue
			}
			out = append(append(out, e...), '\n')
		}
		if n > 0 {
			out = append(append(append(append(out, '['), calls...), ']'), '\n')
		}
		return out, ids
	default:
		w.replyError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be an object")
		return nil, nil
	}
	return append(append([]byte(nil), line...), '\n'), ids
}

// isRequest reports whether a valid message is a call expecting a reply.
func isRequest(raw []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	return json.Unmarshal(raw, &m) == nil && m.Method != nil && len(m.ID) > 0
}

func errString(err error) string {
	if err == nil {
		return "invalid JSON"
	}
	return err.Error()
}

// checkMessage validates one JSON-RPC object. It returns the id to use in an
// error reply, whether to forward the message, and what is wrong with it.
// Responses with an unusable id are dropped silently (nothing waits for them).
func checkMessage(raw []byte) (replyID json.RawMessage, forward bool, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false, errors.New("a JSON-RPC message must be an object")
	}
	idRaw, hasID := m["id"]
	idErr := checkID(idRaw, hasID)
	if idErr == nil && hasID {
		replyID = idRaw
	}
	var version string
	if err := json.Unmarshal(m["jsonrpc"], &version); err != nil || version != "2.0" {
		return replyID, false, errors.New(`"jsonrpc" must be "2.0"`)
	}
	if methodRaw, ok := m["method"]; ok {
		var method string
		if err := json.Unmarshal(methodRaw, &method); err != nil || method == "" {
			return replyID, false, errors.New(`"method" must be a non-empty string`)
		}
		if idErr != nil {
			return nil, false, idErr
		}
	} else {
		_, hasResult := m["result"]
		_, hasError := m["error"]
		if !hasResult && !hasError {
			return replyID, false, errors.New(`a message needs "method" (request) or "result"/"error" (response)`)
		}
		if idErr != nil || !hasID {
			return nil, false, nil // an unanswerable response: ignore it
		}
	}
	if _, err := jsonrpc.DecodeMessage(raw); err != nil {
		return replyID, false, err
	}
	return replyID, true, nil
}

// checkID accepts an absent id (notification), a string or an integer of
// any size (see mapBigID).
func checkID(raw json.RawMessage, present bool) error {
	if !present {
		return nil
	}
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "null":
		return errors.New(`"id" must be a string or a number, not null`)
	case strings.HasPrefix(s, `"`):
		var str string
		if json.Unmarshal(raw, &str) == nil && strings.HasPrefix(str, bigIDPrefix) {
			return errors.New(`"id" must not start with a NUL byte`)
		}
		return nil
	case s == "true" || s == "false" || strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
		return errors.New(`"id" must be a string or a number`)
	}
	if exactInt(s) {
		if f, _ := json.Number(s).Float64(); f != math.Trunc(f) {
			return errors.New(`"id" must be a string or an integer`)
		}
		return nil
	}
	// Beyond 2^53: only a plain integer literal (it is echoed exactly).
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return errors.New(`"id" must be a string or an integer`)
	}
	return nil
}
