package profiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

const secret = "hunter2-S3cret"

const sample = `
config:
  send_anonymous_usage_stats: false
jaffle_shop:
  target: "{{ env_var('DBT_TARGET', 'dev') }}"
  outputs:
    dev:
      type: duckdb
      path: jaffle_shop.duckdb
      threads: 4
      extensions: [httpfs]
    aliased:
      type: duckdb
      path: /data/dev.duckdb
      database: jaffle_shop
    pg:
      type: postgres
      host: "{{ env_var(\"PGHOST\", \"localhost\") }}"
      port: "{{ env_var('PGPORT') | int }}"
      user: "{{env_var('PGUSER')}}"
      pass: "{{ env_var('PGPASSWORD') }}"
      dbname: analytics
      schema: dbt_{{ env_var('USER', 'ci') | lower }}
      threads: "{{ env_var('THREADS', 8) | as_number }}"
      keepalives_idle: 0
    snow:
      type: snowflake
      account: xy12345
      user: RIPPLE
      password: ` + secret + `
      role: transformer
      warehouse: wh
      database: ANALYTICS
      schema: PUBLIC
      private_key_passphrase: ` + secret + `
    badport:
      type: postgres
      port: ` + secret + `
      password: ` + secret + `
`

func TestParse(t *testing.T) {
	e := env(map[string]string{"PGPORT": "5433", "PGUSER": "ripple", "PGPASSWORD": secret, "USER": "Alice"})
	tests := []struct {
		target string
		want   Target
	}{
		{"", Target{Type: "duckdb", Path: "jaffle_shop.duckdb", Database: "jaffle_shop", Threads: 4, Name: "dev",
			Extra: map[string]any{"extensions": []any{"httpfs"}}}},
		{"aliased", Target{Type: "duckdb", Path: "/data/dev.duckdb", Database: "jaffle_shop", Name: "aliased"}},
		{"pg", Target{Type: "postgres", Host: "localhost", Port: 5433, User: "ripple", Password: secret, Database: "analytics",
			Schema: "dbt_alice", Threads: 8, Name: "pg", Extra: map[string]any{"keepalives_idle": 0}}},
		{"snow", Target{Type: "snowflake", User: "RIPPLE", Password: secret, Database: "ANALYTICS", Schema: "PUBLIC", Name: "snow",
			Extra: map[string]any{"account": "xy12345", "role": "transformer", "warehouse": "wh", "private_key_passphrase": secret}}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			got, err := Parse([]byte(sample), "profiles.yml", "jaffle_shop", tt.target, e)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.File, tt.want.Profile = "profiles.yml", "jaffle_shop"
			got.env = nil // what RedactEnv hides, tested below
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
			if strings.Contains(got.String(), secret) {
				t.Errorf("String() leaks a secret: %s", got)
			}
		})
	}
	// The profile's target: is itself rendered.
	got, err := Parse([]byte(sample), "profiles.yml", "jaffle_shop", "", env(map[string]string{"DBT_TARGET": "aliased"}))
	if err != nil || got.Name != "aliased" {
		t.Errorf("DBT_TARGET=aliased: %v %v", got.Name, err)
	}
}

func TestErrorsNameWhereAndNeverShowPassword(t *testing.T) {
	e := env(map[string]string{})
	tests := []struct {
		data, profile, target string
		want                  []string
	}{
		{sample, "jaffle_shop", "badport", []string{"profiles.yml", `profile "jaffle_shop"`, `target "badport"`, "port must be a number"}},
		{sample, "jaffle_shop", "pg", []string{"profiles.yml", `target "pg"`, "PGPASSWORD", "not set"}},
		{sample, "jaffle_shop", "nope", []string{"profiles.yml", `"nope"`, "aliased, badport, dev, pg, snow"}},
		{sample, "other", "", []string{"profiles.yml", `no profile "other"`, "jaffle_shop"}},
		{"p:\n  outputs:\n    dev:\n      password: " + secret + "\n      type: [\n", "p", "dev", []string{"profiles.yml", "invalid YAML", "line"}},
		{"p:\n  outputs:\n    dev:\n      password: \"" + secret + "\n", "p", "dev", []string{"invalid YAML"}},
		{"p:\n  outputs:\n    dev:\n      password: " + secret + "\n      user: \"{{ var('x') }}\"\n      type: postgres\n", "p", "dev", []string{"unsupported Jinja", "key user"}},
		{"p:\n  outputs:\n    dev:\n      password: " + secret + "\n", "p", "dev", []string{"no type"}},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.data), "profiles.yml", tt.profile, tt.target, e)
		if err == nil {
			t.Errorf("%s/%s: no error", tt.profile, tt.target)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error shows the password: %v", err)
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not contain %q", err, w)
			}
		}
	}
}

func TestRender(t *testing.T) {
	e := env(map[string]string{"A": "x", "EMPTY": "", "N": " 42 "})
	tests := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"{{ env_var('A') }}", "x", ""},
		{`{{ env_var("A") }}`, "x", ""},
		{"{{env_var('A')}}-{{ env_var('B', 'dflt') }}", "x-dflt", ""},
		{`{{ env_var("B", "") }}`, "", ""},
		{"{{ env_var('EMPTY', 'd') }}", "", ""},
		{"{{ env_var('N') | int }}", " 42 ", ""},
		{"{{ env_var('N') | trim }}", "42", ""},
		{"{{- env_var('A') -}}", "x", ""},
		{"{{ env_var('B') }}", "", "B is not set"},
		{"{{ target.name }}", "", "unsupported Jinja"},
		{"{{ env_var('A') | reverse }}", "", "unsupported Jinja filter"},
		{"{% if x %}", "", "not supported"},
	}
	for _, tt := range tests {
		got, err := Render(tt.in, e)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Render(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Render(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestLoadSearchOrder(t *testing.T) {
	root := t.TempDir()
	mk := func(dir, target string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := "p:\n  target: " + target + "\n  outputs:\n    " + target + ":\n      type: duckdb\n      path: db.duckdb\n"
		if err := os.WriteFile(filepath.Join(dir, "profiles.yml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	flagDir := mk(filepath.Join(root, "flag"), "fromflag")
	envDir := mk(filepath.Join(root, "env"), "fromenv")
	project := mk(filepath.Join(root, "project"), "fromproject")
	home := root + "/home"
	mk(filepath.Join(home, ".dbt"), "fromhome")
	if err := os.WriteFile(filepath.Join(project, "dbt_project.yml"), []byte("name: x\nprofile: 'p'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noProject := filepath.Join(root, "empty")
	os.MkdirAll(noProject, 0o755)
	os.WriteFile(filepath.Join(noProject, "dbt_project.yml"), []byte("profile: p\n"), 0o644)

	withEnv := env(map[string]string{"DBT_PROFILES_DIR": envDir})
	none := env(nil)
	tests := []struct {
		name string
		opts LoadOptions
		want string
	}{
		{"flag wins", LoadOptions{ProfilesDir: flagDir, ProjectDir: project, LookupEnv: withEnv, HomeDir: home}, "fromflag"},
		{"env next", LoadOptions{ProjectDir: project, LookupEnv: withEnv, HomeDir: home}, "fromenv"},
		{"project dir next", LoadOptions{ProjectDir: project, LookupEnv: none, HomeDir: home}, "fromproject"},
		{"home last", LoadOptions{ProjectDir: noProject, LookupEnv: none, HomeDir: home}, "fromhome"},
		{"target flag", LoadOptions{ProjectDir: project, LookupEnv: none, HomeDir: home, Target: "fromproject"}, "fromproject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.want {
				t.Errorf("target = %q, want %q (file %s)", got.Name, tt.want, got.File)
			}
			if want := filepath.Join(tt.opts.ProjectDir, "db.duckdb"); got.Path != want {
				t.Errorf("path = %q, want %q (relative to the project dir)", got.Path, want)
			}
		})
	}
	if _, err := Load(LoadOptions{ProjectDir: noProject, LookupEnv: none, HomeDir: filepath.Join(root, "nohome")}); err == nil || !strings.Contains(err.Error(), "no profiles.yml found") {
		t.Errorf("missing profiles.yml: %v", err)
	}
	if _, err := Load(LoadOptions{ProfilesDir: filepath.Join(root, "missing"), LookupEnv: none}); err == nil || !strings.Contains(err.Error(), "--profiles-dir") {
		t.Errorf("bad --profiles-dir: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample), "jaffle_shop", "pg")
	f.Add([]byte("p:\n  outputs:\n    dev: {type: duckdb, path: \"{{ env_var('X', 'a.db') }}\"}\n"), "p", "dev")
	f.Add([]byte("p: [1, 2]"), "p", "")
	f.Add([]byte("{{"), "p", "")
	f.Fuzz(func(t *testing.T, data []byte, profile, target string) {
		e := env(map[string]string{"PGPORT": "1", "PGUSER": "u", "PGPASSWORD": secret})
		tg, err := Parse(data, "profiles.yml", profile, target, e)
		if err != nil {
			if !strings.Contains(string(data), secret) && strings.Contains(err.Error(), secret) {
				t.Fatalf("error shows the env password: %v", err)
			}
			return
		}
		if strings.Contains(tg.String(), secret) && tg.Password == secret {
			t.Fatalf("String() shows the password: %s", tg)
		}
	})
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{"{{ env_var('A') }}", `{{ env_var("A", "d") | int }}`, "{{", "}}{{", "{{ env_var('A',) }}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Render(s, env(map[string]string{"A": "x"}))
	})
}

// TestEnvValuesNeverInErrors is issue #27 item 7: a value rendered from
// env_var() never appears in an error, whichever field it was rendered in.
func TestEnvValuesNeverInErrors(t *testing.T) {
	env := func(n string) (string, bool) {
		switch n {
		case "TGT":
			return "secret-target-name", true
		case "HOST":
			return "secret-host.example", true
		}
		return "", false
	}
	yml := "p:\n  target: \"{{ env_var('TGT') }}\"\n  outputs:\n    dev:\n      type: postgres\n      host: \"{{ env_var('HOST') }}\"\n"
	_, err := Parse([]byte(yml), "profiles.yml", "p", "", env)
	if err == nil || strings.Contains(err.Error(), "secret-target-name") || !strings.Contains(err.Error(), "<env_var TGT>") {
		t.Fatalf("Parse error %v; want the target shown as <env_var TGT>", err)
	}
	tg, err := Parse([]byte(yml), "profiles.yml", "p", "dev", env)
	if err != nil {
		t.Fatal(err)
	}
	cause := errors.New("dial tcp: lookup SECRET-HOST.EXAMPLE and secret-host.example: no such host")
	got := tg.RedactEnv(fmt.Errorf("connecting: %w", cause))
	if want := "connecting: dial tcp: lookup <env_var HOST> and <env_var HOST>: no such host"; got.Error() != want || !errors.Is(got, cause) {
		t.Errorf("RedactEnv = %q (Is cause: %v); want %q", got, errors.Is(got, cause), want)
	}
}
