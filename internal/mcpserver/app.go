package mcpserver

import (
	"context"
	_ "embed"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ripple-data/ripple/internal/lineage"
	"github.com/ripple-data/ripple/internal/ops"
)

// The MCP App (the io.modelcontextprotocol/ui extension): one self-contained
// HTML document built from web/ (review.html, src/app-review/) by
// `bash scripts/web.sh --update`. Hosts that render MCP Apps show it beside
// the chat when a tool that links it returns.
const (
	// URIReviewApp is the app's resource.
	URIReviewApp = "ui://ripple/review"
	// AppMIMEType is the MIME type of an MCP App resource.
	AppMIMEType = "text/html;profile=mcp-app"
	// appLineageTool is the app-only tool behind the app's graph.
	appLineageTool = "ui_lineage"
	// appsExtension is the key a host that renders MCP Apps sets in its
	// client capabilities' extensions.
	appsExtension = "io.modelcontextprotocol/ui"
)

//go:embed app/review.html
var reviewHTML string

// appTools are the tools whose result the app renders: their tools/list
// entry carries _meta.ui.resourceUri.
var appTools = map[string]bool{"impact_analysis": true, "lineage_diff": true, "render_lineage_mermaid": true}

// toolMeta is the _meta of a tool in tools/list: the app it opens, or for an
// app-only tool, the visibility that keeps it out of the model's tool list.
func toolMeta(name string) mcp.Meta {
	switch {
	case appTools[name]:
		return mcp.Meta{"ui": map[string]any{"resourceUri": URIReviewApp}}
	case appOnly(name):
		return mcp.Meta{"ui": map[string]any{"resourceUri": URIReviewApp, "visibility": []string{"app"}}}
	}
	return nil
}

// appOnly reports whether a tool is meant only for the app (hidden from the
// model by hosts that render MCP Apps).
func appOnly(name string) bool { return name == appLineageTool }

// clientRendersApps reports whether the client declared the MCP Apps
// extension. Only such a host can run the app, so only it is shown the
// app-only tools; every other client (and its model) never sees them, and
// the tool list an agent reads stays as it was.
func clientRendersApps(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[appsExtension]
	return ok
}

// withoutAppOnly drops the app-only tools from a tools/list answer for a
// client that does not render apps.
func withoutAppOnly(req mcp.Request, res mcp.Result) {
	lr, ok := res.(*mcp.ListToolsResult)
	r, rok := req.(*mcp.ListToolsRequest)
	if !ok || !rok || clientRendersApps(r.ClientCapabilities()) {
		return
	}
	kept := lr.Tools[:0:0]
	for _, t := range lr.Tools {
		if !appOnly(t.Name) {
			kept = append(kept, t)
		}
	}
	lr.Tools = kept
}

// appResourceMeta tells the host how to sandbox the app: no network origin
// at all (every script and style is inline) and no border of its own.
func appResourceMeta() mcp.Meta {
	return mcp.Meta{"ui": map[string]any{
		"csp":           map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}},
		"prefersBorder": false,
	}}
}

func (s *Server) registerApp() {
	s.mcp.AddResource(&mcp.Resource{
		URI: URIReviewApp, Name: "review_app", Title: "Ripple review",
		Description: "The review as an MCP App: impact triage, lineage diff graph and model detail, for hosts that render ui:// resources.",
		MIMEType:    AppMIMEType,
		Meta:        appResourceMeta(),
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: URIReviewApp, MIMEType: AppMIMEType, Text: reviewHTML, Meta: appResourceMeta(),
		}}}, nil
	})
}

// addAppOps adds the app-only tools to the MCP-only registry.
func addAppOps(r *ops.Registry) {
	ops.Add(r, ops.Spec{
		Name:  appLineageTool,
		Title: "Review app lineage",
		Description: "For the review app (ui://ripple/review) only: lineage_diff without its 300-node cap, for the app to draw " +
			"the whole graph. Agents: use lineage_diff.",
	}, func(ctx context.Context, sess *ops.Session, in *lineage.DiffInput) (*lineage.DiffResult, error) {
		return ops.LineageDiffUncapped(ctx, sess, in)
	})
}

// modelTools leaves the app-only tools out of a list of tool names meant
// for the model (get_server_info's tools).
func modelTools(names []string) []string {
	out := names[:0:0]
	for _, n := range names {
		if !appOnly(n) {
			out = append(out, n)
		}
	}
	return out
}
