package bigquery

import (
	"encoding/json"

	"golang.org/x/oauth2"
)

// jsonOf re-encodes a parsed YAML mapping (keyfile_json) as JSON.
func jsonOf(v any) ([]byte, error) { return json.Marshal(v) }

// exact keeps an exact decimal's text as a JSON number.
func exact(s string) any { return json.Number(s) }

func staticToken(tok string) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok})
}
