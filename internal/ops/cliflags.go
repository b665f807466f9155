package ops

import "strings"

// The CLI's flag vocabulary lives here, next to the parameters it names, so
// that the CLI (internal/cli/flags.go) and docs/operations.md say the same:
// the JSON parameter names are the MCP contract and never change, while the
// CLI spells one concept one way and keeps the other spellings as hidden
// aliases.

// CLIFlag is the CLI flag (without --) of an input parameter: the model is --model, a
// column --column, a key --primary-key (a list: repeated or
// comma-separated), whatever the operation's JSON calls them.
func CLIFlag(jsonName string) string {
	switch jsonName {
	case "model", "model_id", "node_id", "node_names", "model_name", "models":
		return "model"
	case "column", "column_name":
		return "column"
	case "primary_key", "primary_keys":
		return "primary-key"
	}
	return strings.ReplaceAll(jsonName, "_", "-")
}

// CLIFlagAliases are the hidden spellings each CLI name also accepts, so that
// the names of earlier versions and of the MCP parameters keep working.
func CLIFlagAliases(flag string) []string {
	switch flag {
	case "model":
		return []string{"model-id", "node-id", "node-names", "node-name", "model-name", "models"}
	case "column":
		return []string{"column-name", "columns"}
	case "columns":
		return []string{"column", "column-names"}
	case "primary-key":
		return []string{"primary-keys", "key", "keys"}
	case "focus":
		// lineage's focus is nodes or node.column; --model reads naturally.
		return []string{"model", "node", "nodes"}
	}
	return nil
}
