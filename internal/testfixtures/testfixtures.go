// Package testfixtures locates the real dbt artifacts vendored in the
// repository's top-level testdata/real directory (origins and licences in
// testdata/real/NOTICE.md), so every package's tests read the same copy and
// none reaches outside the checkout.
package testfixtures

import (
	"os"
	"path/filepath"
	"testing"
)

// RealRoot returns testdata/real relative to the test's working directory
// (its package directory), for example "../../testdata/real" from
// internal/dbt. The path stays relative so golden files that record it are
// the same on every machine. The fixtures are part of the repository, so a
// missing directory is a broken checkout: the test fails, it never skips.
func RealRoot(t testing.TB) string {
	t.Helper()
	up := "."
	for range 8 {
		if _, err := os.Stat(filepath.Join(up, "go.mod")); err == nil {
			dir := filepath.Join(up, "testdata", "real")
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("vendored dbt fixtures missing: %v (they are committed under testdata/real; restore the checkout)", err)
			}
			return dir
		}
		up = filepath.Join(up, "..")
	}
	t.Fatal("testfixtures: no go.mod in the 8 directories above the test's working directory")
	return ""
}

// Real returns one fixture directory under testdata/real, such as
// "mrkidbk_test_dbt_jaffle_shop"; it fails the test when it is missing.
func Real(t testing.TB, rel string) string {
	t.Helper()
	dir := filepath.Join(RealRoot(t), filepath.FromSlash(rel))
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("vendored dbt fixture %s missing: %v", rel, err)
	}
	return dir
}
