package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxReplyBytes caps one tool result on the wire: what an agent can
// read in one turn. The result's JSON travels twice (as text content and as
// structuredContent), and both count.
const DefaultMaxReplyBytes int64 = 1 << 20

// envelopeBytes covers the JSON-RPC envelope around a tool result
// ({"jsonrpc":"2.0","id":…,"result":…}) and the content's own keys.
const envelopeBytes = 256

// maxReply resolves Options.MaxReplyBytes (0 = default, <0 = none → -1).
func maxReply(n int64) int64 {
	switch {
	case n == 0:
		return DefaultMaxReplyBytes
	case n < 0:
		return -1
	}
	return n
}

// resultBudget is the row budget of each warehouse query under a reply cap:
// half of it, as the rows appear twice on the wire. A result with two
// frames (query_diff without keys) is cut further by boundReply.
func resultBudget(maxReply int64) int64 {
	if maxReply < 0 {
		return 0
	}
	return max(maxReply/2-envelopeBytes, 1)
}

// wireBytes is the size of a tool result carrying data as text and, for a
// JSON object, as structuredContent.
func wireBytes(data []byte) int64 {
	text, _ := json.Marshal(string(data))
	n := int64(len(text)) + envelopeBytes
	if len(data) > 0 && data[0] == '{' {
		n += int64(len(data))
	}
	return n
}

// boundReply returns data, or when its result would pass maxBytes on the
// wire, data with the rows of its frames (the peer's DataFrames: objects
// with columns, data and more) cut from the end, largest frame first, each
// cut frame saying so (more, truncated, hint). It works on the JSON, not on
// the operation's value, which may be shared with a cache. When cutting rows
// is not enough, it returns an error that says how big the result is and
// how to ask for less.
func boundReply(data []byte, maxBytes int64) ([]byte, error) {
	if maxBytes < 0 || wireBytes(data) <= maxBytes {
		return data, nil
	}
	full := wireBytes(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("reading the result to fit the reply cap: %w", err)
	}
	frames := findFrames(v, nil)
	hint := fmt.Sprintf("rows were cut to keep the reply within %d bytes (the MCP server's --max-reply-bytes); to see the rest, narrow the query: a WHERE on the rows you need, fewer or shorter columns, an aggregate, or ORDER BY … LIMIT/OFFSET pages", maxBytes)
	for range 32 {
		f := largestFrame(frames)
		if f == nil {
			break
		}
		rows := f["data"].([]any)
		size := wireBytes(data)
		keep := int(float64(len(rows)) * float64(maxBytes) / float64(size) * 0.95)
		keep = min(max(keep, 0), len(rows)-1)
		f["data"] = rows[:keep]
		f["more"], f["truncated"], f["hint"] = true, true, hint
		if b, err := json.Marshal(f["data"]); err == nil {
			f["bytes"] = len(b)
		}
		out, err := encodeJSON(v)
		if err != nil {
			return nil, err
		}
		data = out
		if wireBytes(data) <= maxBytes {
			return data, nil
		}
	}
	return nil, fmt.Errorf("the result is %d bytes on the wire, over the reply cap of %d bytes; ask for less (a narrower select, a smaller limit or fewer columns), or start the server with a larger --max-reply-bytes", full, maxBytes)
}

// findFrames collects every DataFrame-shaped object in v.
func findFrames(v any, acc []map[string]any) []map[string]any {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["data"].([]any); ok {
			if _, ok := x["columns"]; ok {
				if _, ok := x["more"]; ok {
					acc = append(acc, x)
				}
			}
		}
		for _, e := range x {
			acc = findFrames(e, acc)
		}
	case []any:
		for _, e := range x {
			acc = findFrames(e, acc)
		}
	}
	return acc
}

// largestFrame is the frame with the most rows left, nil when none has any.
func largestFrame(frames []map[string]any) map[string]any {
	var best map[string]any
	bestSize := 0
	for _, f := range frames {
		rows := f["data"].([]any)
		if len(rows) == 0 {
			continue
		}
		b, _ := json.Marshal(rows)
		if len(b) > bestSize {
			best, bestSize = f, len(b)
		}
	}
	return best
}

func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// structuredResult returns out as structuredContent plus the same compact
// JSON as text, for clients that read only content, within maxBytes on the
// wire (see boundReply).
func structuredResult(out any, maxBytes int64) (*mcp.CallToolResult, error) {
	data, err := encodeJSON(out)
	if err != nil {
		return nil, err
	}
	if data, err = boundReply(data, maxBytes); err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}
	if len(data) > 0 && data[0] == '{' {
		res.StructuredContent = json.RawMessage(data)
	}
	return res, nil
}
