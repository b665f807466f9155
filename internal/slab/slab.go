// Package slab hands out elements and exactly sized slices from chunks, so
// that the many small objects of parsing and lineage resolution cost one
// allocation per chunk instead of one each.
package slab

// Slab is a chunked allocator. Without Reset, chunks are only ever
// appended to: nothing handed out is overwritten. After Reset (the caller
// promises that nothing handed out is used any more) the chunks are
// cleared and handed out again. The zero value is ready to use.
type Slab[T any] struct {
	chunks [][]T // chunks since the last reset; buf is chunks[next-1]
	next   int
	buf    []T
}

// Take returns a slice of length n; its capacity is capped so that an
// append copies instead of writing into the next slice. Chunks grow from
// 4 to maxBlock elements.
func (s *Slab[T]) Take(n, maxBlock int) []T {
	if cap(s.buf)-len(s.buf) < n {
		s.refill(n, maxBlock)
	}
	l := len(s.buf)
	s.buf = s.buf[:l+n]
	return s.buf[l : l+n : l+n]
}

func (s *Slab[T]) refill(n, maxBlock int) {
	for s.next < len(s.chunks) {
		c := s.chunks[s.next]
		s.next++
		if cap(c) >= n {
			s.buf = c[:0]
			return
		}
	}
	c := make([]T, 0, max(n, min(max(2*cap(s.buf), 4), maxBlock)))
	s.chunks = append(s.chunks[:s.next], c)
	s.next = len(s.chunks)
	s.buf = c
}

func (s *Slab[T]) Alloc(maxBlock int) *T { return &s.Take(1, maxBlock)[0] }

// Forget stops tracking every chunk but the current one, whose free tail
// stays in use: chunks of ASTs that are not reset belong to those ASTs.
func (s *Slab[T]) Forget() {
	if s.next == 0 {
		return
	}
	cur := s.chunks[s.next-1]
	clear(s.chunks)
	s.chunks = append(s.chunks[:0], cur)
	s.next = 1
}

// Reset clears the used chunks and hands them out again from the start.
func (s *Slab[T]) Reset() {
	for _, c := range s.chunks[:s.next] {
		clear(c[:cap(c)])
	}
	s.next = 0
	s.buf = nil
}
