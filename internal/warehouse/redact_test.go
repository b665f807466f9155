package warehouse

import "testing"

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"cannot parse `postgres://u:s3cret@[::1/d`: invalid port": "cannot parse `postgres://u:***@[::1/d`: invalid port",
		"host=db password='a b c' user=ripple":                    "host=db password=*** user=ripple",
		"Password=hunter2;User=x":                                 "Password=***;User=x",
		"token: abc.def":                                          "token: ***",
		// The password "ripple" is also the role and database name: nothing to mask here.
		`connecting to localhost:1 as ripple, database ripple_test: dial tcp: connection refused`: `connecting to localhost:1 as ripple, database ripple_test: dial tcp: connection refused`,
		// A guess echoed in a SQL error stays as written.
		`invalid input syntax for type integer: "hunter2"`: `invalid input syntax for type integer: "hunter2"`,
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
