// Package alias folds deprecated input names into their canonical fields.
// An operation input that still accepts an old parameter name keeps it as
// an optional field described "Deprecated: use <new>." and implements
// Normalize (see ops.Normalizer) with Fold, so the operation only ever
// reads the canonical field.
package alias

import (
	"fmt"
	"reflect"
)

// Fold moves the deprecated value *old into *canonical and clears *old.
// Setting both to different values is an error naming both parameters;
// setting both to the same value is accepted.
func Fold[T any](canonical, old *T, canonicalName, oldName string) error {
	ov := reflect.ValueOf(old).Elem()
	if ov.IsZero() {
		return nil
	}
	cv := reflect.ValueOf(canonical).Elem()
	if !cv.IsZero() && !reflect.DeepEqual(cv.Interface(), ov.Interface()) {
		return fmt.Errorf("%s and its deprecated alias %s are both set and differ: pass only %s", canonicalName, oldName, canonicalName)
	}
	*canonical = *old
	var zero T
	*old = zero
	return nil
}
