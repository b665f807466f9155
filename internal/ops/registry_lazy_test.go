package ops

import (
	"slices"
	"testing"
)

// TestRequiredParamsMatchTheSchema: the CLI marks required flags from
// RequiredParams (struct tags only, so that start-up builds no schema); it
// must name exactly the parameters the published input schema requires.
func TestRequiredParamsMatchTheSchema(t *testing.T) {
	n := 0
	for _, op := range Default().Ops() {
		got, want := op.RequiredParams(), op.InputSchema().Required
		slices.Sort(got)
		want = slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("%s: RequiredParams() = %v, schema requires %v", op.Name, got, want)
		}
		n += len(want)
	}
	if n == 0 {
		t.Fatal("no operation has a required parameter: the comparison checked nothing")
	}
}

// TestRegistryBuildsNoSchemaUpFront: registering the catalogue leaves every
// schema to its first use, which is what keeps `ripple --version` fast.
func TestRegistryBuildsNoSchemaUpFront(t *testing.T) {
	for _, op := range Default().Ops() {
		if op.schemas.in != nil || op.schemas.out != nil {
			t.Errorf("%s: schemas built at registration", op.Name)
		}
	}
}

// TestSchemasBuiltOnceUnderConcurrentCalls: a server's first calls arrive
// together; they share one build of the schemas (run it with -race).
func TestSchemasBuiltOnceUnderConcurrentCalls(t *testing.T) {
	op, ok := Default().Get("lineage_diff")
	if !ok {
		t.Fatal("lineage_diff is not registered")
	}
	got := make(chan any, 8)
	for range 8 {
		go func() {
			if _, err := op.Decode([]byte(`{}`)); err != nil {
				got <- err
				return
			}
			got <- op.InputSchema()
		}()
	}
	first := <-got
	for range 7 {
		if v := <-got; v != first {
			t.Fatalf("calls saw different schemas or an error: %v / %v", first, v)
		}
	}
}
