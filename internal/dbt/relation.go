package dbt

import (
	"fmt"
	"strings"

	"github.com/ripple-data/ripple/internal/sqlparse"
)

// RelationParts returns the database, schema and identifier of the node's
// relation: from relation_name when the manifest has one, parsed with the
// dialect's quoting rules (unquoted parts folded as the warehouse folds
// them), else from the database, schema and alias fields. relation_name is
// manifest text that ends up in SQL, so anything that is not one to three
// dot-separated identifiers is an error naming the node, never SQL.
func (n *Node) RelationParts(dialect string) (database, schema, identifier string, err error) {
	if n.RelationName == "" {
		return n.Database, n.Schema, n.RelationIdentifier(), nil
	}
	parts, err := ParseRelationName(dialect, n.RelationName)
	if err != nil {
		return "", "", "", fmt.Errorf("%s: relation_name %q is not a relation name: %w; rebuild the artifacts with dbt (dbt docs generate) or fix the model's database/schema/alias", n.UniqueID, n.RelationName, err)
	}
	for len(parts) < 3 {
		parts = append([]string{""}, parts...)
	}
	return parts[0], parts[1], parts[2], nil
}

// ParseRelationName splits a relation name such as "db"."schema"."table",
// `project`.`dataset`.`table` or ANALYTICS.PR.CUSTOMERS into its one to three
// identifiers.
func ParseRelationName(dialect, s string) ([]string, error) {
	d := sqlparse.LookupDialect(dialect)
	toks, err := sqlparse.Lex(d, s)
	if err != nil {
		return nil, err
	}
	toks = toks[:len(toks)-1] // EOF
	var parts []string
	for i, t := range toks {
		if i%2 == 1 {
			if t.Kind != sqlparse.Op || t.Text != "." {
				return nil, fmt.Errorf("expected '.' between identifiers at column %d, found %q", t.Pos.Col, t.Text)
			}
			continue
		}
		switch {
		case t.Kind == sqlparse.QuotedIdent && t.Backtick && strings.Contains(t.Text, "."):
			// BigQuery: one backtick-quoted path.
			parts = append(parts, strings.Split(t.Text, ".")...)
		case t.Kind == sqlparse.QuotedIdent:
			parts = append(parts, t.Text)
		case t.Kind == sqlparse.Ident:
			parts = append(parts, d.FoldIdent(t.Text))
		default:
			return nil, fmt.Errorf("expected an identifier at column %d, found %q", t.Pos.Col, t.Text)
		}
	}
	switch {
	case len(toks) == 0:
		return nil, fmt.Errorf("it is empty")
	case len(toks)%2 == 0:
		return nil, fmt.Errorf("it ends with '.'")
	case len(parts) > 3:
		return nil, fmt.Errorf("it has %d parts; at most database.schema.identifier", len(parts))
	}
	for _, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("it has an empty part")
		}
	}
	return parts, nil
}
