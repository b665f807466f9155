package apphost_test

// Linking internal/golden defines this test binary's -update flag, so that
// `go test ./... -update` is accepted by every package, golden files or not.
import _ "github.com/ripple-data/ripple/internal/golden"
