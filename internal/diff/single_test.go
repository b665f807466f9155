package diff

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The single-environment run types measure current alone, with the numbers
// and statuses of their diff counterparts' current side.
func TestCurrentRowCountDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	res, err := CurrentRowCount(context.Background(), env, RowCountDiffInput{
		NodeNames: []string{"customers", "stg_view", "legacy", "brand_new", "eph"},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, count, status, msg string }{
		{"customers", "3", StatusOK, ""},
		{"stg_view", "3", StatusOK, ""},
		{"brand_new", "1", StatusOK, ""},
		{"legacy", "nil", StatusNotInManifest, "Model 'legacy' not found in current manifest"},
		{"eph", "nil", StatusUnsupportedMaterialization, "ephemeral"},
	}
	if len(res.Models) != len(cases) {
		t.Fatalf("%d models, want %d", len(res.Models), len(cases))
	}
	for _, c := range cases {
		got := res.Models[c.name]
		count := "nil"
		if got.Current != nil {
			count = fmt.Sprint(*got.Current)
		}
		if count != c.count || got.CurrentMeta.Status != c.status || !strings.Contains(got.CurrentMeta.Message, c.msg) {
			t.Errorf("%s: %s %s %q, want %s %s %q", c.name, count, got.CurrentMeta.Status, got.CurrentMeta.Message, c.count, c.status, c.msg)
		}
	}
	if got, want := jsonOf(t, res), `{"brand_new":{"curr":1,"curr_meta":{"status":"ok"}},`; !strings.HasPrefix(got, want) {
		t.Errorf("JSON %s, want the peer's flat shape starting %s", got, want)
	}
}

func TestCurrentProfileDuckDB(t *testing.T) {
	env := fixtureEnv(t)
	ctx := context.Background()
	res, err := CurrentProfile(ctx, env, ProfileDiffInput{Model: "customers"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res.Current.Data), `[["id","INTEGER",3,1,1,3,true,"1","3",2,2],["name","VARCHAR",3,1,1,3,true,null,null,null,null],["age","INTEGER",3,1,1,3,true,"25","35",30,30]]`; got != want {
		t.Fatalf("current = %s\nwant %s", got, want)
	}
	res, err = CurrentProfile(ctx, env, ProfileDiffInput{Model: "events", Columns: []string{"flag"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, res.Current.Data), `[["flag","BOOLEAN",3,0.6666666666666666,0.3333333333333333,1,false,null,null,1,null]]`; got != want {
		t.Fatalf("events = %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		in   ProfileDiffInput
		want string
	}{
		{ProfileDiffInput{Model: "customers", Columns: []string{"nope"}}, "id, name, age"},
		{ProfileDiffInput{Model: "legacy"}, "not in the current build"},
	} {
		if _, err := CurrentProfile(ctx, env, c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to say %q", c.in, err, c.want)
		}
	}
}
