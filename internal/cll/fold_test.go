package cll

import (
	"strings"
	"testing"
)

func TestEqualFoldMatchesStrings(t *testing.T) {
	words := []string{"", "a", "A", "id", "ID", "Id", "c1", "C1", "c10", "src_0", "SRC_0", "src_1", "k", "K", "\u212a", "\u212aelvin", "kelvin",
		"ß", "SS", "straße", "STRASSE", "é", "É", "aé", "AÉ", "ſ", "s", "S", "_", "@", "`", "[", "{", "a\u0301"}
	for _, a := range words {
		for _, b := range words {
			if got, want := equalFold(a, b), strings.EqualFold(a, b); got != want {
				t.Errorf("equalFold(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}
