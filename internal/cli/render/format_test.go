package render

import (
	"math"
	"strings"
	"testing"
)

func TestInt(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12029, "12,029"}, {1234567, "1,234,567"},
		{-1, "-1"}, {-1000, "-1,000"}, {-123456, "-123,456"}, {math.MaxInt64, "9,223,372,036,854,775,807"},
	} {
		if got := Int(tc.n); got != tc.want {
			t.Errorf("Int(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestSignedAndIntP(t *testing.T) {
	n := int64(2000)
	for _, tc := range []struct{ got, want string }{
		{Signed(3), "+3"}, {Signed(-1200), "-1,200"}, {Signed(0), "0"},
		{IntP(&n, "x"), "2,000"}, {IntP(nil, ""), "N/A"}, {IntP(nil, "table_not_found"), "N/A (table_not_found)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestPctNeverRoundsAChangeToZero(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want string
	}{
		{0, "0%"}, {12.345, "+12.3%"}, {-20, "-20.0%"}, {0.3, "+0.3%"}, {0.04, "+0.04%"},
		{0.0003, "+0.0003%"}, {-0.004, "-0.004%"}, {0.0000001, "+0.000000%"}, {100, "+100.0%"},
		{math.Inf(1), "n/a"}, {math.NaN(), "n/a"},
	} {
		if got := Pct(tc.p); got != tc.want {
			t.Errorf("Pct(%v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestDelta(t *testing.T) {
	i := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		base, cur           *int64
		baseWhy, currentWhy string
		want                string
	}{
		{i(1000), i(1003), "", "", "1,000 → 1,003 (+3, +0.3%)"},
		{i(1_000_000), i(1_000_003), "", "", "1,000,000 → 1,000,003 (+3, +0.0003%)"},
		{i(12029), i(12029), "", "", "12,029 → 12,029 (=)"},
		{i(19995), i(19998), "", "", "19,995 → 19,998 (+3, +0.015%)"},
		{i(5), i(4), "", "", "5 → 4 (-1, -20%)"},
		{i(0), i(7), "", "", "0 → 7 (+7)"},
		{nil, i(2000), "not_in_manifest", "", "N/A (not_in_manifest) → 2,000"},
		{i(10), nil, "", "table_not_found", "10 → N/A (table_not_found)"},
	} {
		if got := Delta(tc.base, tc.cur, tc.baseWhy, tc.currentWhy); got != tc.want {
			t.Errorf("Delta = %q, want %q", got, tc.want)
		}
	}
}

func TestTableAlignsRunesAndCutsToWidth(t *testing.T) {
	tb := Table{Header: []string{"model", "rows", "note"}}
	tb.Add("a", "N/A (table_not_found)", "x")
	tb.Add("long_name", "1,000 → 1,003", "a very long note that does not fit")
	var b strings.Builder
	if err := tb.Write(&b, 50); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"model      rows                   note\n" +
		"a          N/A (table_not_found)  x\n" +
		"long_name  1,000 → 1,003          a very long not…\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestListAndMore(t *testing.T) {
	if got := list([]string{"a", "b", "c", "d"}, 2); got != "a, b and 2 more" {
		t.Errorf("list = %q", got)
	}
	if got := list(nil, 2); got != "—" {
		t.Errorf("list(nil) = %q", got)
	}
	var b strings.Builder
	More(&b, 50, 1234)
	if got := b.String(); got != "… 1,184 more (all of them with --json)\n" {
		t.Errorf("More = %q", got)
	}
}
