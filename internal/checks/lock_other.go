//go:build !unix

package checks

import "context"

// lockFile is a no-op where flock is unavailable; the in-process mutex still serialises writers.
func lockFile(ctx context.Context, path string) (func(), error) { return func() {}, ctx.Err() }

// syncDir is a no-op where directories cannot be opened for sync.
func syncDir(dir string) error { return nil }
