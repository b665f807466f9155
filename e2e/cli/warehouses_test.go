package cli_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// closedPort returns a local port nothing listens on.
func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// Every warehouse type Ripple wires fails fast and classified against a
// closed local port (or, for BigQuery, which has no host to point at,
// bogus credentials): never "no driver", never a hang, never a secret.
func TestWarehouseTargetsFailClassified(t *testing.T) {
	needSuite(t)
	port := closedPort(t)
	const secret = "Sup3r-secret-value"
	profiles := fmt.Sprintf(`jaffle_shop:
  target: dev
  outputs:
    snowflake:
      type: snowflake
      account: xy12345
      host: 127.0.0.1
      port: %[1]d
      protocol: http
      user: ripple
      password: %[2]s
      database: analytics
      warehouse: wh
      schema: main
      connect_timeout: 5
    bigquery:
      type: bigquery
      method: service-account-json
      project: ripple-test
      dataset: main
      keyfile_json:
        type: service_account
        project_id: ripple-test
        private_key_id: "0"
        private_key: %[2]s
        client_email: ripple@ripple-test.iam.gserviceaccount.com
        client_id: "1"
    databricks:
      type: databricks
      host: http://127.0.0.1:%[1]d
      http_path: /sql/1.0/warehouses/abc123
      token: %[2]s
      catalog: main
      schema: main
    trino:
      type: trino
      method: none
      host: 127.0.0.1
      port: %[1]d
      http_scheme: http
      user: ripple
      database: memory
      schema: main
    redshift:
      type: redshift
      host: 127.0.0.1
      port: %[1]d
      user: ripple
      password: %[2]s
      dbname: dev
      schema: main
`, port, secret)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "profiles.yml"), []byte(profiles), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		target string
		hint   string // the class's hint, printed once
	}{
		{"snowflake", "could not reach the warehouse"},
		{"bigquery", "rejected the credentials"},
		{"databricks", "could not reach the warehouse"},
		{"trino", "could not reach the warehouse"},
		{"redshift", "could not reach the warehouse"},
	} {
		t.Run(tt.target, func(t *testing.T) {
			start := time.Now()
			r := execRipple(t, "--project-dir", suite.demoDir, "--profiles-dir", dir, "--profile", "jaffle_shop", "--target", tt.target,
				"--state-file", filepath.Join(t.TempDir(), "state.json"), "row-count-diff", "--json")
			took := time.Since(start)
			t.Logf("%s: exit %d after %v: %s", tt.target, r.code, took.Round(10*time.Millisecond), strings.TrimSpace(string(r.stderr)))
			out := string(r.stdout) + string(r.stderr)
			switch {
			case r.code == 0:
				t.Errorf("exit 0 against a closed port:\n%s", r)
			case took > 30*time.Second:
				t.Errorf("took %v (limit 30s)", took)
			case strings.Contains(out, "no driver"):
				t.Errorf("no driver wired:\n%s", r)
			case strings.Count(out, tt.hint) != 1:
				t.Errorf("want the hint %q exactly once:\n%s", tt.hint, r)
			case strings.Contains(out, secret):
				t.Errorf("the secret reached the output:\n%s", r)
			case !strings.Contains(out, `target "`+tt.target+`"`):
				t.Errorf("the error does not name the target:\n%s", r)
			}
		})
	}
}
