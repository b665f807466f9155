package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ripple-data/ripple/internal/impact"
)

// Int formats n with thousands separators: 1234567 → "1,234,567".
func Int(n int64) string { return group(strconv.FormatInt(n, 10)) }

// IntP formats a nullable count; nil reads "N/A" (with why, when known).
func IntP(n *int64, why string) string {
	if n == nil {
		if why != "" {
			return "N/A (" + why + ")"
		}
		return "N/A"
	}
	return Int(*n)
}

// Signed formats a delta with its sign: +3, -12, 0.
func Signed(n int64) string {
	if n > 0 {
		return "+" + Int(n)
	}
	return Int(n)
}

// Pct formats a percentage change with a sign and enough precision that a
// change never reads as 0.0%: 0.004 → "+0.004%", 12.345 → "+12.3%".
func Pct(p float64) string {
	if p == 0 {
		return "0%"
	}
	if math.IsInf(p, 0) || math.IsNaN(p) {
		return "n/a"
	}
	prec := 1
	for prec < 6 && math.Round(math.Abs(p)*math.Pow10(prec)) == 0 {
		prec++
	}
	return fmt.Sprintf("%+.*f%%", prec, p)
}

// Delta formats base → current with the signed change and its percentage:
// "1,000 → 1,003 (+3, +0.3%)".
func Delta(base, current *int64, baseWhy, currentWhy string) string {
	s := IntP(base, baseWhy) + " → " + IntP(current, currentWhy)
	if base != nil && current != nil {
		d := *current - *base
		if d == 0 {
			return s + " (=)"
		}
		if p := impact.DeltaPct(d, *base); p != nil {
			// impact_analysis's delta_pct, worded as every surface words it.
			sign := "+"
			if *p < 0 {
				sign = "-"
			}
			return s + " (" + Signed(d) + ", " + sign + impact.FormatPct(math.Abs(*p)) + "%)"
		}
		return s + " (" + Signed(d) + ")"
	}
	return s
}

// Table writes rows under a header, columns padded to their widest cell
// and the last column cut so a line fits width (0: no cut).
type Table struct {
	Header []string
	Rows   [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Write prints the table; widths count runes, not bytes.
func (t *Table) Write(w io.Writer, width int) error {
	n := len(t.Header)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	widths := make([]int, n)
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	line := func(r []string) string {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
			}
		}
		s := strings.TrimRight(b.String(), " ")
		if width > 0 && utf8.RuneCountInString(s) > width {
			s = string([]rune(s)[:width-1]) + "…"
		}
		return s + "\n"
	}
	if len(t.Header) > 0 {
		if _, err := io.WriteString(w, line(t.Header)); err != nil {
			return err
		}
	}
	for _, r := range t.Rows {
		if _, err := io.WriteString(w, line(r)); err != nil {
			return err
		}
	}
	return nil
}

// More says how many rows a capped list left out and how to see them.
func More(w io.Writer, shown, total int) {
	if total > shown {
		fmt.Fprintf(w, "… %s more (all of them with --json)\n", Int(int64(total-shown)))
	}
}

// Warn prints a result's warning first, where it cannot be missed.
func Warn(w io.Writer, warning string) {
	if warning != "" {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
}

// share formats a proportion (0..1) as a percentage that never rounds a
// part to 0% or 100%: 0.99999 → "99.999%".
func share(p float64) string {
	if p <= 0 || p >= 1 || math.IsNaN(p) {
		return strconv.FormatFloat(100*p, 'f', -1, 64) + "%"
	}
	v := 100 * p
	prec := 1
	for prec < 6 {
		r := math.Round(v*math.Pow10(prec)) / math.Pow10(prec)
		if r != 0 && r != 100 {
			break
		}
		prec++
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "%"
}

// plural is "1 model" or "3 models".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Int(int64(n)) + " " + many
}

// pluralS is the plural suffix: "" for 1, "s" otherwise.
func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
