package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/html"

	"github.com/ripple-data/ripple/internal/ops"
)

// appHost is what a host that renders MCP Apps declares.
var appHost = &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
	Extensions: map[string]any{appsExtension: map[string]any{"mimeTypes": []string{AppMIMEType}}},
}}

func TestReviewAppResource(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	for _, v := range append([]string{""}, protocolVersions...) {
		t.Run("v"+v, func(t *testing.T) {
			cs := h.connect(t, v, nil)
			list, err := cs.ListResources(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var found *mcp.Resource
			for _, r := range list.Resources {
				if r.URI == URIReviewApp {
					found = r
				}
			}
			if found == nil || found.MIMEType != AppMIMEType {
				t.Fatalf("resources/list: %s missing or with the wrong MIME type: %+v", URIReviewApp, found)
			}
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: URIReviewApp})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 {
				t.Fatalf("resources/read: %d contents, want 1", len(res.Contents))
			}
			c := res.Contents[0]
			if c.URI != URIReviewApp || c.MIMEType != AppMIMEType || c.Text != reviewHTML {
				t.Fatalf("resources/read: uri %q mime %q, %d bytes of text (want the embedded %d)", c.URI, c.MIMEType, len(c.Text), len(reviewHTML))
			}
			ui, _ := c.Meta["ui"].(map[string]any)
			csp, _ := ui["csp"].(map[string]any)
			if csp == nil || len(csp["connectDomains"].([]any)) != 0 || len(csp["resourceDomains"].([]any)) != 0 {
				t.Errorf("resources/read _meta.ui.csp = %v, want no domains", c.Meta)
			}
		})
	}
}

// TestReviewAppIsSelfContained: the embedded document loads nothing: no
// element points at a file or a URL, its CSP allows no origin, and the app
// is really in it (one inline module script, one inline stylesheet).
func TestReviewAppIsSelfContained(t *testing.T) {
	if len(reviewHTML) < 10_000 {
		t.Fatalf("the embedded app is %d bytes: rebuild it with bash scripts/web.sh --update", len(reviewHTML))
	}
	z := html.NewTokenizer(strings.NewReader(reviewHTML))
	var scripts, styles int
	var csp string
	inScript := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatal(z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			for _, a := range tok.Attr {
				switch a.Key {
				case "src", "href", "srcset", "action", "formaction", "poster", "data", "background", "xlink:href":
					t.Errorf("<%s %s=%q> loads a resource: the app must be self-contained", tok.Data, a.Key, a.Val)
				case "http-equiv":
					if strings.EqualFold(a.Val, "content-security-policy") {
						for _, b := range tok.Attr {
							if b.Key == "content" {
								csp = b.Val
							}
						}
					}
				}
			}
			switch tok.Data {
			case "script":
				scripts++
				inScript = true
			case "style":
				styles++
			case "link", "iframe", "object", "embed", "img", "base":
				t.Errorf("<%s> in the app: it must inline everything", tok.Data)
			}
		case html.EndTagToken:
			if tok.Data == "script" {
				inScript = false
			}
		case html.TextToken:
			if !inScript && strings.Contains(tok.Data, "@import") {
				t.Errorf("a stylesheet imports another: %.80s", tok.Data)
			}
		}
	}
	if scripts != 1 || styles != 1 {
		t.Errorf("%d scripts and %d stylesheets, want one of each, inline", scripts, styles)
	}
	for _, d := range []string{"default-src 'none'", "connect-src 'none'", "frame-src 'none'", "script-src 'unsafe-inline'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("CSP %q lacks %q", csp, d)
		}
	}
	if strings.Contains(csp, "http") || strings.Contains(csp, "*") {
		t.Errorf("CSP %q allows an origin", csp)
	}
}

// TestAppToolsLinkTheResource: the three tools open the app; the app-only
// tool is listed only to hosts that render apps, with visibility app.
func TestAppToolsLinkTheResource(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	for _, tc := range []struct {
		name string
		opts *mcp.ClientOptions
		want map[string]any // tool → its _meta.ui
	}{
		{"apps host", appHost, map[string]any{
			"impact_analysis":        map[string]any{"resourceUri": URIReviewApp},
			"lineage_diff":           map[string]any{"resourceUri": URIReviewApp},
			"render_lineage_mermaid": map[string]any{"resourceUri": URIReviewApp},
			"ui_lineage":             map[string]any{"resourceUri": URIReviewApp, "visibility": []any{"app"}},
		}},
		{"plain client", nil, map[string]any{
			"impact_analysis":        map[string]any{"resourceUri": URIReviewApp},
			"lineage_diff":           map[string]any{"resourceUri": URIReviewApp},
			"render_lineage_mermaid": map[string]any{"resourceUri": URIReviewApp},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{"", "2025-11-25"} {
				cs := h.connect(t, v, tc.opts)
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]any{}
				for _, tool := range res.Tools {
					if tool.Meta != nil {
						raw, _ := json.Marshal(tool.Meta["ui"])
						var ui any
						_ = json.Unmarshal(raw, &ui)
						got[tool.Name] = ui
					}
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("protocol %q: tools with _meta.ui = %v, want %v", v, got, tc.want)
				}
			}
		})
	}
}

// TestAppLineageIsUncapped: ui_lineage answers lineage_diff's shape with
// every node, and is callable by a client that was not listed it (the
// host's app calls it through the host).
func TestAppLineageIsUncapped(t *testing.T) {
	h := newHarness(t, ops.Default(), fixturePaths(t), ModeServer)
	cs := h.connect(t, "2025-11-25", nil)
	var ld, ui struct {
		Total    int  `json:"total_nodes"`
		Returned int  `json:"returned_nodes"`
		Trunc    bool `json:"truncated"`
		Nodes    struct {
			Data [][]any `json:"data"`
		} `json:"nodes"`
	}
	for _, c := range []struct {
		tool string
		out  any
	}{{"lineage_diff", &ld}, {"ui_lineage", &ui}} {
		res := call(t, cs, c.tool, map[string]any{"view_mode": "all"})
		if res.IsError {
			t.Fatalf("%s: %s", c.tool, text(res))
		}
		if err := json.Unmarshal([]byte(text(res)), c.out); err != nil {
			t.Fatal(err)
		}
	}
	if ui.Total != ld.Total || ui.Returned != ui.Total || len(ui.Nodes.Data) != ui.Total || ui.Trunc {
		t.Errorf("ui_lineage: %d of %d nodes (truncated %v), lineage_diff total %d", len(ui.Nodes.Data), ui.Total, ui.Trunc, ld.Total)
	}
}
