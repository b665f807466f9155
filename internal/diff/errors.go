package diff

import (
	"context"
	"errors"
	"fmt"

	"github.com/ripple-data/ripple/internal/warehouse"
)

// wrapErr says what Ripple was doing when the warehouse failed. The class
// and its one hint come from internal/warehouse (the adapter classified
// the error from the vendor's code): diff adds context and never
// re-classifies. Cancellation passes through unchanged.
func (e Env) wrapErr(doing string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("%s: %w", doing, warehouse.NewError(err, ""))
}
