package postgres

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ripple-data/ripple/internal/warehouse"
	"github.com/ripple-data/ripple/internal/warehouse/warehousetest"
)

const superDSNEnv = "RIPPLE_TEST_POSTGRES_SUPER_DSN"

// minimalRole creates a login role with only CONNECT, USAGE and SELECT on a
// fresh schema (the role docs/security.md recommends) and returns its DSN.
func minimalRole(t *testing.T, superDSN string) (dsn, schema string) {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, superDSN)
	if err != nil {
		t.Fatal(err)
	}
	suffix := fmt.Sprint(time.Now().UnixNano())
	role, schema := "ripple_ro"+suffix, "ripple_ro_s"+suffix
	var db string
	if err := admin.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE ROLE " + role + " LOGIN PASSWORD 'pw'",
		"CREATE SCHEMA " + schema,
		"CREATE TABLE " + schema + ".t AS SELECT 1 AS id",
		"GRANT CONNECT ON DATABASE " + db + " TO " + role,
		"GRANT USAGE ON SCHEMA " + schema + " TO " + role,
		"GRANT SELECT ON ALL TABLES IN SCHEMA " + schema + " TO " + role,
		// PostgreSQL < 15 lets every role create in public.
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
	} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	t.Cleanup(func() {
		for _, s := range []string{"DROP SCHEMA " + schema + " CASCADE", "DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := admin.Exec(ctx, s); err != nil {
				t.Errorf("%s: %v", s, err)
			}
		}
		admin.Close(ctx)
	})
	u, err := url.Parse(superDSN)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, "pw")
	return u.String(), schema
}

// TestPrivilegeWarnings is issue #19 defect 8's warning: a superuser and a
// role with write grants are reported; the recommended minimal role is not.
func TestPrivilegeWarnings(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, dsnEnv)
	superDSN := warehousetest.RequireEnv(t, superDSNEnv)
	ctx := context.Background()
	schema := testSchema(t, dsn)
	if err := setupFn(dsn)(ctx, "CREATE TABLE "+schema+".owned (i INTEGER)"); err != nil {
		t.Fatal(err)
	}
	roDSN, _ := minimalRole(t, superDSN)
	for _, tc := range []struct {
		name, dsn string
		want      []string
	}{
		{"superuser", superDSN, []string{"a superuser", "reading server files"}},
		// The test role owns the database (and, at least, this schema's table).
		{"owner", dsn, []string{"can write", "tables or views", "may CREATE objects in database"}},
		{"minimal", roDSN, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Open(ctx, Options{DSN: tc.dsn, ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ws := strings.Join(warehouse.Warnings(c), "\n")
			if tc.want == nil && ws != "" {
				t.Errorf("minimal role warned: %s", ws)
			}
			for _, w := range tc.want {
				if !strings.Contains(ws, w) {
					t.Errorf("warnings lack %q:\n%s", w, ws)
				}
			}
			if tc.want != nil && !strings.Contains(ws, "docs/security.md") {
				t.Errorf("warnings do not say how to fix it:\n%s", ws)
			}
		})
	}
}

// TestErrorsNeitherGarbleNorConfirm is defect 10's password masking: the
// test role is named like its password, and a query that echoes the password
// as a guess shows it as written (the mask would confirm the guess).
func TestErrorsNeitherGarbleNorConfirm(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, dsnEnv)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := Open(ctx, Options{DSN: dsn, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Query(ctx, "SELECT '"+cfg.Password+"'::int", warehouse.QueryOptions{})
	if err == nil || !strings.Contains(err.Error(), `"`+cfg.Password+`"`) || strings.Contains(err.Error(), "***") {
		t.Errorf("query error: %v", err)
	}
	_, err = Open(ctx, Options{Host: cfg.Host, Port: 1, User: cfg.User, Password: cfg.User, Database: cfg.Database, ConnectTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "as "+cfg.User+", database "+cfg.Database) || strings.Contains(err.Error(), "***") {
		t.Errorf("connect error garbled: %v", err)
	}
}

const sleeperEnv = "RIPPLE_POSTGRES_SLEEPER_CHILD"

// TestSleeperChild is the child of TestKilledClientStopsQuery: it runs a long
// query through the adapter until it is killed.
func TestSleeperChild(t *testing.T) {
	marker := os.Getenv(sleeperEnv)
	if marker == "" {
		t.Skip("helper process for TestKilledClientStopsQuery")
	}
	c, err := Open(context.Background(), Options{DSN: os.Getenv(dsnEnv), ReadOnly: true})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	fmt.Println("open")
	_, _ = c.Query(context.Background(), "SELECT pg_sleep(120) AS "+marker, warehouse.QueryOptions{})
}

// TestKilledClientStopsQuery is issue #19 defect 6's last part: a query of a
// Ripple killed with SIGKILL (no cancel request sent) stops on the server
// within seconds (client_connection_check_interval), not at its timeout.
func TestKilledClientStopsQuery(t *testing.T) {
	dsn := warehousetest.RequireEnv(t, dsnEnv)
	ctx := context.Background()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("ripple_sleeper_%d", time.Now().UnixNano())
	cmd := exec.Command(exe, "-test.run=^TestSleeperChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), sleeperEnv+"="+marker)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "open\n" {
		t.Fatalf("child: %q", line)
	}
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	running := func() int {
		var n int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()", marker).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for running() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the child's query never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	for running() > 0 {
		if time.Since(killed) > 15*time.Second {
			t.Fatal("the killed client's query still runs on the server after 15 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the server stopped the query %v after the kill", time.Since(killed).Round(10*time.Millisecond))
	res, err := sessionSettings(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if res != "1s on" {
		t.Errorf("client_connection_check_interval, standard_conforming_strings = %s", res)
	}
}

// sessionSettings reads the session settings the adapter sets.
func sessionSettings(ctx context.Context, dsn string) (string, error) {
	c, err := Open(ctx, Options{DSN: dsn, ReadOnly: true})
	if err != nil {
		return "", err
	}
	defer c.Close()
	res, err := c.Query(ctx, "SELECT current_setting('client_connection_check_interval'), current_setting('standard_conforming_strings')", warehouse.QueryOptions{})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%v %v", res.Rows[0][0], res.Rows[0][1]), nil
}
