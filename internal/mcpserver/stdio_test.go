package mcpserver

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ripple-data/ripple/internal/ops"
)

func TestStdioSurvivesMalformedInput(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	rc := h.rawStdio(t)
	rc.initialize("2025-11-25")
	for _, tc := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"not json", `hello`, -32700, nil},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, nil},
		{"two objects on a line", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, -32700, nil},
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"a\xff\xfeb\"}}", -32700, nil},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, nil},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, 7.0},
		{"no method", `{"jsonrpc":"2.0","id":8}`, -32600, 8.0},
		{"number", `42`, -32600, nil},
		{"empty batch", `[]`, -32600, nil},
		{"batch after 2025-06-18", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, -32600, nil},
	} {
		rc.send(tc.line)
		m := rc.recv()
		if errCode(m) != tc.code || m["id"] != tc.id {
			t.Errorf("%s: got %v, want code %v id %v", tc.name, m, tc.code, tc.id)
		}
	}
	// A response sent to the server is ignored; the session continues.
	rc.send(`{"jsonrpc":"2.0","id":"never-asked","result":{}}`)
	rc.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"client could not parse"}}`)
	rc.send("")
	rc.send(`{"jsonrpc":"2.0","id":"s-1","method":"ping"}` + "\r")
	if m := rc.recv(); m["id"] != "s-1" || m["error"] != nil {
		t.Fatalf("ping after garbage: %v", m)
	}
	rc.send(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo_flag","arguments":{"flag":"false"}}}`)
	m := rc.recv()
	res := m["result"].(map[string]any)
	if res["isError"] != true || !strings.Contains(res["content"].([]any)[0].(map[string]any)["text"].(string), "Input validation error: ") {
		t.Errorf("validation over stdio: %v", m)
	}
	rc.send(`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"boom","arguments":{}}}`)
	if m := rc.recv(); m["id"] != 13.0 || m["result"].(map[string]any)["isError"] != true {
		t.Errorf("panic over stdio: %v", m)
	}
	rc.send(`{"jsonrpc":"2.0","id":"unknown","method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	if m := rc.recv(); errCode(m) != -32602 {
		t.Errorf("unknown tool over stdio: %v", m)
	}
	rc.send(`{"jsonrpc":"2.0","id":"m","method":"no/such/method"}`)
	if m := rc.recv(); errCode(m) != -32601 {
		t.Errorf("unknown method: %v", m)
	}
}

func TestStdioBatchesBeforeJune2025(t *testing.T) {
	h := newHarness(t, testRegistry(nil), fixturePaths(t), ModeServer)
	rc := h.rawStdio(t)
	rc.initialize("2025-03-26")
	rc.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo_flag","arguments":{"flag":true}}}]`)
	m := rc.recv()
	batch, ok := m["batch"].([]any)
	if !ok || len(batch) != 2 {
		t.Fatalf("batch reply = %v", m)
	}
	rc.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":true,"method":"ping"}]`)
	if m := rc.recv(); errCode(m) != -32600 {
		t.Errorf("batch with a bad id: %v", m)
	}
	rc.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := rc.recv(); m["id"] != 2.0 {
		t.Errorf("ping: %v", m)
	}
}

// TestStdioAnswersBeforeEOF pipes requests and closes stdin at once, as a
// shell script would: every request is still answered.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lineage_diff","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := h.srv.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d replies:\n%s", len(lines), out.String())
	}
	for _, id := range []string{`"id":1,`, `"id":2,`, `"id":3,`} {
		if !strings.Contains(out.String(), id) {
			t.Errorf("no reply with %s", id)
		}
	}
	if !strings.Contains(out.String(), `\"change_status\"`) && !strings.Contains(out.String(), `"change_status"`) {
		t.Error("lineage_diff reply lacks change_status")
	}
}
