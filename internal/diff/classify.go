package diff

import "github.com/ripple-data/ripple/internal/warehouse"

// classifyWarehouse asks the warehouse package for the class of an error.
func classifyWarehouse(err error) string {
	switch c := warehouse.Classify(err); c {
	case warehouse.ClassPermissionDenied, warehouse.ClassTableNotFound, warehouse.ClassSyntaxError:
		return string(c)
	}
	return ""
}
