//go:build !conformance

package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Production builds register no conformance fixtures; a build with
// -tags conformance replaces these with conformance_fixtures.go.

func (s *Server) fixtureOptions(*mcp.ServerOptions) {}

func (s *Server) registerFixtures() {}

// isFixture reports whether name (a tool, prompt or resource URI) is a
// conformance fixture.
func isFixture(string) bool { return false }
