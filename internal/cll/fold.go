// Identifier folding and relation-name normalisation, with ASCII fast paths
// (names are compared on every column reference).

package cll

import (
	"strings"
)

// equalFold is strings.EqualFold with a fast path for ASCII, the common
// case of identifiers.
func equalFold(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x|y >= 0x80 {
			// Only non-ASCII folding (e.g. the Kelvin sign) can match
			// strings of different lengths; the prefix so far matched.
			return strings.EqualFold(a[i:], b[i:])
		}
		if x == y {
			continue
		}
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	// An ASCII prefix of the other string: the rest cannot fold to
	// nothing.
	return len(a) == len(b)
}

// normRel lower-cases a relation name and strips identifier quotes.
func normRel(s string) string {
	if r, ok := normRelASCII(s); ok {
		return r
	}
	if strings.ContainsAny(s, "\"`[] \t\n") {
		var b strings.Builder
		for _, r := range strings.TrimSpace(s) {
			switch r {
			case '"', '`', '[', ']':
				continue
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	return strings.ToLower(s)
}

// normRelASCII is normRel for ASCII names, building the result in one
// allocation (none when s is already normal); relation names are
// normalised for every node of a project on each analysis. ok is false
// for non-ASCII s.
func normRelASCII(s string) (string, bool) {
	upper, special := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return "", false
		case c >= 'A' && c <= 'Z':
			upper = true
		case c == '"', c == '`', c == '[', c == ']', c == ' ', c == '\t', c == '\n':
			special = true
		}
	}
	if special {
		// As normRel: only a name with quotes or blanks is trimmed
		// (strings.TrimSpace trims exactly these bytes of ASCII input).
		isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
		for len(s) > 0 && isSpace(s[0]) {
			s = s[1:]
		}
		for len(s) > 0 && isSpace(s[len(s)-1]) {
			s = s[:len(s)-1]
		}
	} else if !upper {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case special && (c == '"' || c == '`' || c == '[' || c == ']'):
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b), true
}

// hasDotSuffix is strings.HasSuffix(s, "."+suf) without building the suffix.
func hasDotSuffix(s, suf string) bool {
	return len(s) > len(suf) && s[len(s)-len(suf)-1] == '.' && s[len(s)-len(suf):] == suf
}

// upperASCII appends s upper-cased to dst when s is ASCII and fits dst's
// capacity (a stack buffer), so that lookups need no allocation; ok is
// false otherwise and the caller falls back to strings.ToUpper.
func upperASCII(dst []byte, s string) ([]byte, bool) { return caseASCII(dst, s, 'a', 'A') }

// lowerASCII is upperASCII for lower case.
func lowerASCII(dst []byte, s string) ([]byte, bool) { return caseASCII(dst, s, 'A', 'a') }

// caseASCII appends s to dst with the letters from..from+25 moved to
// to..to+25.
func caseASCII(dst []byte, s string, from, to byte) ([]byte, bool) {
	if len(s) > cap(dst)-len(dst) {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return nil, false
		}
		if c >= from && c <= from+25 {
			c = c - from + to
		}
		dst = append(dst, c)
	}
	return dst, true
}

// inUpper is set[strings.ToUpper(s)] without allocating for short ASCII s.
func inUpper(set map[string]bool, s string) bool {
	var buf [32]byte
	if u, ok := upperASCII(buf[:0], s); ok {
		return set[string(u)]
	}
	return set[strings.ToUpper(s)]
}

// indexMin is the number of columns from which lookups by name use a
// nameIndex instead of a scan.
const indexMin = 64

// nameIndex finds the first of a list of names equal to a name under
// equalFold, for ASCII names; other names fall back to a scan.
type nameIndex struct {
	// first and n identify the relation columns indexed, for isFor.
	first *rcol
	n     int
	pos   map[string]int32
	ascii bool
}

func newNameIndex[T any](list []T, name func(T) string) *nameIndex {
	ix := &nameIndex{n: len(list), pos: make(map[string]int32, len(list)), ascii: true}
	var buf [128]byte
	for i, x := range list {
		key, ok := lowerASCII(buf[:0], name(x))
		if !ok {
			ix.ascii = false
			return ix
		}
		if _, dup := ix.pos[string(key)]; !dup {
			ix.pos[string(key)] = int32(i)
		}
	}
	return ix
}

// isFor reports whether ix was built for cols.
func (ix *nameIndex) isFor(cols []rcol) bool {
	return ix.n == len(cols) && len(cols) > 0 && ix.first == &cols[0]
}

// lookup returns the position of name, or -1; final is false when the
// index cannot decide (non-ASCII names) and the caller must scan.
func (ix *nameIndex) lookup(name string) (pos int, final bool) {
	if !ix.ascii {
		return -1, false
	}
	var buf [128]byte
	key, ok := lowerASCII(buf[:0], name)
	if !ok {
		return -1, false
	}
	if i, hit := ix.pos[string(key)]; hit {
		return int(i), true
	}
	return -1, true
}
