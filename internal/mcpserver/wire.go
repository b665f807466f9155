package mcpserver

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK decodes numeric JSON-RPC ids through float64, so an id above 2^53
// comes back rounded (9007199254740993 → …992) and the client cannot match
// the reply. Both transports hand the SDK such ids as strings carrying the
// exact literal, and turn them back into that number on the way out.

// bigIDPrefix starts the string a large numeric id travels as inside the
// server. Clients may not send string ids with it (checkID).
const bigIDPrefix = "\x00ripple-int-id:"

// bigIDMarker is how bigIDPrefix looks JSON-encoded, for a cheap scan.
var bigIDMarker = []byte(`"\u0000ripple-int-id:`)

// exactInt reports whether a numeric id survives the SDK's float64.
func exactInt(lit string) bool {
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return n >= -(1<<53) && n <= 1<<53
	}
	f, err := json.Number(lit).Float64()
	return err == nil && math.Abs(f) < 1<<53
}

// mapBigID returns raw with a large numeric id replaced by its marker
// string; other messages are returned unchanged.
func mapBigID(raw []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	id := strings.TrimSpace(string(m["id"]))
	if id == "" || id[0] == '"' || exactInt(id) {
		return raw
	}
	b, _ := json.Marshal(bigIDPrefix + id)
	m["id"] = b
	return encodeMessage(m)
}

// fixOutgoing corrects an outgoing message (or batch) of the SDK: marker ids
// become the client's exact numbers again, and error code 0 (what the SDK
// sends for requests before initialize and for plain handler errors) becomes
// a JSON-RPC code. Anything else passes through untouched; only messages
// that contain a marker or a code 0 are decoded.
func fixOutgoing(p []byte) []byte {
	if !bytes.Contains(p, bigIDMarker) && !bytes.Contains(p, []byte(`"code":0`)) {
		return p
	}
	body := bytes.TrimRight(p, "\r\n")
	tail := p[len(body):]
	trimmed := bytes.TrimSpace(body)
	var fixed []byte
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		var elems []json.RawMessage
		if json.Unmarshal(trimmed, &elems) != nil {
			return p
		}
		for i, e := range elems {
			elems[i] = fixMessage(e)
		}
		var err error
		if fixed, err = json.Marshal(elems); err != nil {
			return p
		}
	case len(trimmed) > 0 && trimmed[0] == '{':
		fixed = fixMessage(trimmed)
	default:
		return p
	}
	return append(fixed, tail...)
}

func fixMessage(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	changed := false
	var id string
	if json.Unmarshal(m["id"], &id) == nil && strings.HasPrefix(id, bigIDPrefix) {
		m["id"] = json.RawMessage(strings.TrimPrefix(id, bigIDPrefix))
		changed = true
	}
	if e, ok := m["error"]; ok {
		var we jsonrpc.Error
		if json.Unmarshal(e, &we) == nil && we.Code == 0 {
			we.Code = jsonrpc.CodeInternalError
			if strings.Contains(we.Message, "during session initialization") {
				// A request before initialize: the client's mistake.
				we.Code = jsonrpc.CodeInvalidRequest
				we.Message += "; send initialize (and notifications/initialized) first"
			}
			if b, err := json.Marshal(&we); err == nil {
				m["error"], changed = b, true
			}
		}
	}
	if !changed {
		return raw
	}
	return encodeMessage(m)
}

// encodeMessage writes jsonrpc and id first, as the SDK does (the stdio
// writer reads the id of a reply from its first keys), then the rest.
func encodeMessage(m map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "jsonrpc" && k != "id" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range append([]string{"jsonrpc", "id"}, keys...) {
		v, ok := m[k]
		if !ok {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// fixSSE applies fixOutgoing to each data line of server-sent events (or to
// a plain JSON body).
func fixSSE(p []byte) []byte {
	if !bytes.Contains(p, bigIDMarker) && !bytes.Contains(p, []byte(`"code":0`)) {
		return p
	}
	if t := bytes.TrimSpace(p); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return fixOutgoing(p)
	}
	lines := bytes.SplitAfter(p, []byte("\n"))
	for i, l := range lines {
		if rest, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
			lines[i] = append([]byte("data: "), fixOutgoing(rest)...)
		}
	}
	return bytes.Join(lines, nil)
}
