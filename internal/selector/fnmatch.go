package selector

import (
	"strings"
	"unicode/utf8"
)

// fnmatch is Python's fnmatch.fnmatchcase: "*" matches any run of characters
// (dots and slashes included), "?" one character, "[seq]" / "[!seq]" a
// character class with a-z ranges; a "[" without a closing "]" is literal.
func fnmatch(name, pat string) bool {
	if !strings.ContainsAny(pat, "*?[") {
		return name == pat
	}
	s, p := 0, 0
	starP, starS := -1, 0
	for s < len(name) {
		if p < len(pat) {
			switch c := pat[p]; c {
			case '*':
				starP, starS = p, s
				p++
				continue
			case '?':
				_, w := utf8.DecodeRuneInString(name[s:])
				s += w
				p++
				continue
			case '[':
				r, w := utf8.DecodeRuneInString(name[s:])
				if valid, matched, n := matchClass(pat[p:], r); valid {
					if matched {
						s += w
						p += n
						continue
					}
				} else if name[s] == '[' {
					s++
					p++
					continue
				}
			default:
				if name[s] == c {
					s++
					p++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(name[starS:])
		starS += w
		s, p = starS, starP+1
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// matchClass matches r against the class at the start of p ("[...]").
// valid is false when the class is not closed; n is the class length.
func matchClass(p string, r rune) (valid, matched bool, n int) {
	j := 1
	if j < len(p) && p[j] == '!' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	end := strings.IndexByte(p[j:], ']')
	if end < 0 {
		return false, false, 0
	}
	end += j
	body := p[1:end]
	neg := strings.HasPrefix(body, "!")
	if neg {
		body = body[1:]
	}
	rs := []rune(body)
	for i := 0; i < len(rs); i++ {
		if i+2 < len(rs) && rs[i+1] == '-' {
			if rs[i] <= r && r <= rs[i+2] {
				matched = true
			}
			i += 2
		} else if rs[i] == r {
			matched = true
		}
	}
	return true, matched != neg, end + 1
}
