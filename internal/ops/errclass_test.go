package ops

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/dbt"
	"github.com/ripple-data/ripple/internal/selector"
	"github.com/ripple-data/ripple/internal/static"
)

type testUsage struct{ error }

func (testUsage) UsageError() {}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		want   ErrorClass
		caller bool
	}{
		{"nil", nil, "", false},
		{"unknown model", fmt.Errorf("get_model: %w", fmt.Errorf("%w: no node named %q", dbt.ErrNotFound, "x")), ClassNotFound, true},
		{"unknown column, worded freely", dbt.NotFoundf("column %q does not exist in orders", "amout"), ClassNotFound, true},
		{"selector term naming nothing", &selector.NoMatchError{Param: "select", Term: "ordrs"}, ClassNotFound, true},
		{"unknown entity", fmt.Errorf("%w: %q", static.ErrUnknownEntity, "x"), ClassNotFound, true},
		{"unknown check", fmt.Errorf("check nope: %w", checks.ErrNotFound), ClassNotFound, true},
		{"ambiguous name", fmt.Errorf("%w: %q is ambiguous", static.ErrAmbiguousEntity, "x"), ClassAmbiguous, true},
		{"schema mismatch", &InputError{errors.New("view_mode: is invalid")}, ClassInvalidParameter, true},
		{"malformed selector", fmt.Errorf("%w: %q", selector.ErrInvalid, "@x+"), ClassInvalidParameter, true},
		{"unknown check type", fmt.Errorf("%w: foo", checks.ErrUnknownType), ClassInvalidParameter, true},
		{"an input error about a name is still not found", &InputError{dbt.NotFoundf("no column")}, ClassNotFound, true},
		{"surface usage", testUsage{errors.New("unknown flag: --x")}, ClassUsage, true},
		{"no warehouse", fmt.Errorf("value_diff: %w", ErrNoWarehouse), ClassNoWarehouse, false},
		{"warehouse refused", errors.New("Catalog Error: Table with name no_such_table does not exist"), ClassDataStepFailed, false},
		{"panic wrapping a not-found", &PanicError{Value: dbt.ErrNotFound}, ClassInternal, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.err)
			if got != tc.want || got.CallerError() != tc.caller {
				t.Errorf("Classify = %q (caller error %v), want %q (%v)", got, got.CallerError(), tc.want, tc.caller)
			}
		})
	}
	// NotFoundf reads as its message alone.
	if got := dbt.NotFoundf("column %q does not exist", "a").Error(); got != `column "a" does not exist` {
		t.Errorf("NotFoundf message = %q", got)
	}
}
