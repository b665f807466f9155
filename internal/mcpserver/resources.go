package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource URIs.
const (
	URIProjectSummary = "ripple://project/summary"
	URILineageGraph   = "ripple://lineage/graph"
	URIERD            = "ripple://erd"
	URINodeTemplate   = "ripple://node/{id}"
	uriNodePrefix     = "ripple://node/"
)

// resource maps a URI to the registry operation that backs it. The
// operation is looked up at read time, so resources start working as soon
// as the operation is registered.
type resource struct {
	uri, name, title, desc, op string
	args                       map[string]any
}

var staticResources = []resource{
	{URIProjectSummary, "project_summary", "Project summary", "Counts of models, sources, tests and changes in both builds (the project_summary operation).", "project_summary", nil},
	{URILineageGraph, "lineage_graph", "Lineage graph", "The whole model graph with change status and impact (lineage_diff with view_mode all; capped, see truncated).", "lineage_diff", map[string]any{"view_mode": "all"}},
	{URIERD, "erd", "Entity-relationship diagram", "Entities and relationships inferred from the project (the erd operation).", "erd", nil},
}

func (s *Server) registerResources() {
	for _, r := range staticResources {
		s.mcp.AddResource(&mcp.Resource{URI: r.uri, Name: r.name, Title: r.title, Description: r.desc, MIMEType: "application/json"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return s.readOp(ctx, req.Params.URI, r.op, r.args)
			})
	}
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: URINodeTemplate, Name: "node", Title: "Node",
		Description: "One node (model, source, seed, snapshot, test…) by unique id, e.g. ripple://node/model.jaffle_shop.orders (the get_node operation).",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id, err := url.PathUnescape(strings.TrimPrefix(req.Params.URI, uriNodePrefix))
		if err != nil || id == "" || !strings.HasPrefix(req.Params.URI, uriNodePrefix) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		op, ok := s.reg.Get("get_node")
		if !ok {
			return nil, missingOp(req.Params.URI, "get_node")
		}
		return s.readOp(ctx, req.Params.URI, "get_node", map[string]any{idField(op.InputSchema().Properties, op.InputSchema().Required): id})
	})
}

// idField picks the input field of get_node that takes the node id.
func idField[T any](props map[string]T, required []string) string {
	for _, k := range []string{"unique_id", "id", "node_id", "node", "model", "name"} {
		if _, ok := props[k]; ok {
			return k
		}
	}
	if len(required) > 0 {
		return required[0]
	}
	return "unique_id"
}

func missingOp(uri, op string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
		"resource %s is backed by the %s operation, which this build of Ripple does not provide", uri, op)}
}

func (s *Server) readOp(ctx context.Context, uri, name string, args map[string]any) (*mcp.ReadResourceResult, error) {
	op, ok := s.reg.Get(name)
	if !ok {
		return nil, missingOp(uri, name)
	}
	// Resources do not depend on the toolsets served, only on the mode.
	if !s.modeAllows(op) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"resource %s needs the %s operation, which is not available in %s mode", uri, name, s.mode)}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out, err := op.CallJSON(ctx, s.sess, raw)
	if err != nil {
		msg := err.Error()
		if _, perr := s.sess.Project(ctx); perr != nil {
			msg = unconfiguredMessage(perr)
		}
		s.log.Warn("resource read failed", "uri", uri, "error", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %s", uri, msg)}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: uri, MIMEType: "application/json", Text: strings.TrimRight(buf.String(), "\n"),
	}}}, nil
}

type prompt struct {
	name, title, desc string
	args              []*mcp.PromptArgument
	text              func(args map[string]string) string
}

func argOr(args map[string]string, k, def string) string {
	if v := strings.TrimSpace(args[k]); v != "" {
		return v
	}
	return def
}

var prompts = []prompt{
	{
		name: "review_pull_request", title: "Review a pull request",
		desc: "Review what a dbt change does to the data: impact analysis, follow-up checks, and a summary with the lineage graph.",
		args: []*mcp.PromptArgument{{Name: "select", Description: "optional dbt selector to focus on (default: everything modified)"}},
		text: func(a map[string]string) string {
			focus := ""
			if sel := argOr(a, "select", ""); sel != "" {
				focus = fmt.Sprintf(" Focus on the selector `%s` (pass it as select).", sel)
			}
			return "Review this dbt pull request with Ripple." + focus + "\n" +
				"1. Call get_server_info; if single_env is true, say that base equals current and no diff is meaningful.\n" +
				"2. Call impact_analysis. Read its data_impact and follow its next_action: run the tools it names " +
				"(row_count_diff, value_diff, profile_diff, query_diff …) with the arguments it gives, until next_action says you are done.\n" +
				"3. If impact_analysis is not available (preview or read-only mode), use lineage_diff (view_mode changed_models) and schema_diff instead.\n" +
				"4. Summarize for the reviewer: which models changed and how (modifications), which downstream models are impacted, " +
				"what the data checks found (numbers, not adjectives), and what still needs a human look. " +
				"Include the lineage as a Mermaid graph (flowchart LR, changed nodes highlighted) and list the checks you ran with their results."
		},
	},
	{
		name: "assess_change_impact", title: "Assess the impact of a change",
		desc: "Explain what changing one model does downstream, using lineage and column-level lineage.",
		args: []*mcp.PromptArgument{{Name: "model", Description: "model name or unique id", Required: true}},
		text: func(a map[string]string) string {
			m := argOr(a, "model", "<model>")
			return fmt.Sprintf("Assess the impact of changing the dbt model `%s`.\n"+
				"1. Call select_nodes with select `%s+` to list everything downstream.\n"+
				"2. Call lineage_diff with select `%s+` and view_mode all to see change status and which nodes are impacted.\n"+
				"3. If get_cll is available, trace the changed columns to their downstream columns.\n"+
				"4. In server mode, check the data: row_count_diff on the impacted models, then value_diff or profile_diff where counts moved.\n"+
				"Report the impacted models and columns, the evidence for each, and your confidence.", m, m, m)
		},
	},
	{
		name: "add_missing_tests", title: "Add missing tests",
		desc: "Find models and columns without dbt tests and propose schema.yml additions.",
		args: []*mcp.PromptArgument{{Name: "select", Description: "optional dbt selector (default: state:modified+)"}},
		text: func(a map[string]string) string {
			sel := argOr(a, "select", "state:modified+")
			return fmt.Sprintf("Find the dbt models in `%s` that lack tests and propose them.\n"+
				"1. Call select_nodes with select `%s` for the models, and with select `%s,resource_type:test` for their existing tests.\n"+
				"2. For each model, read its columns (get_node or get_model) and decide which need unique, not_null, "+
				"accepted_values or relationships tests; primary keys need unique + not_null.\n"+
				"3. In server mode, verify each proposed test against the data with query (a count of violating rows) before recommending it.\n"+
				"Output the schema.yml additions per model and the evidence for each test.", sel, sel, sel)
		},
	},
	{
		name: "answer_data_question", title: "Answer a data question",
		desc: "Answer a business question from the dbt project: find the right models, describe them, plan, then write SQL.",
		args: []*mcp.PromptArgument{{Name: "question", Description: "the question to answer", Required: true}},
		text: func(a map[string]string) string {
			q := argOr(a, "question", "<question>")
			return "Answer this data question using the dbt project: " + q + "\n" +
				"(project_summary and get_node are in the static and lineage toolsets: `ripple mcp --toolsets recce,static,lineage`.)\n" +
				"1. Find: use select_nodes (e.g. by name wildcard or tag) and project_summary to find candidate models; prefer marts over staging.\n" +
				"2. Describe: read each candidate's columns and description (get_node / get_model) and state its grain (one row per what).\n" +
				"3. Plan: say which model(s) and columns answer the question, the joins and filters, and every assumption you make.\n" +
				"4. SQL: write the query against the dbt relations; in server mode run it with query and report the result.\n" +
				"Always state the grain of the answer and the assumptions explicitly."
		},
	},
}

func (s *Server) registerPrompts() {
	for _, p := range prompts {
		s.mcp.AddPrompt(&mcp.Prompt{Name: p.name, Title: p.title, Description: p.desc, Arguments: p.args},
			func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				for _, a := range p.args {
					if a.Required && strings.TrimSpace(req.Params.Arguments[a.Name]) == "" {
						return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s needs the argument %q", p.name, a.Name)}
					}
				}
				return &mcp.GetPromptResult{
					Description: p.desc,
					Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: p.text(req.Params.Arguments)}}},
				}, nil
			})
	}
}
