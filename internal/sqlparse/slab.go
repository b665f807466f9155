package sqlparse

// slab hands out elements and exactly sized slices from chunks, so that
// many small nodes cost one allocation. Without reset, chunks are only
// ever appended to: nothing handed out is overwritten. After reset (the
// caller promises that nothing handed out is used any more) the chunks
// are cleared and handed out again.
type slab[T any] struct {
	chunks [][]T // chunks since the last reset; buf is chunks[next-1]
	next   int
	buf    []T
}

// take returns a slice of length n; its capacity is capped so that an
// append copies instead of writing into the next slice. Chunks grow from
// 4 to maxBlock elements.
func (s *slab[T]) take(n, maxBlock int) []T {
	if cap(s.buf)-len(s.buf) < n {
		s.refill(n, maxBlock)
	}
	l := len(s.buf)
	s.buf = s.buf[:l+n]
	return s.buf[l : l+n : l+n]
}

func (s *slab[T]) refill(n, maxBlock int) {
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

func (s *slab[T]) alloc(maxBlock int) *T { return &s.take(1, maxBlock)[0] }

// forget stops tracking every chunk but the current one, whose free tail
// stays in use: chunks of ASTs that are not reset belong to those ASTs.
func (s *slab[T]) forget() {
	if s.next == 0 {
		return
	}
	cur := s.chunks[s.next-1]
	clear(s.chunks)
	s.chunks = append(s.chunks[:0], cur)
	s.next = 1
}

// reset clears the used chunks and hands them out again from the start.
func (s *slab[T]) reset() {
	for _, c := range s.chunks[:s.next] {
		clear(c[:cap(c)])
	}
	s.next = 0
	s.buf = nil
}
