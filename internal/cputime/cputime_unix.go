//go:build unix

// Package cputime reads the process's CPU time. Benchmarks report ratios of
// CPU time next to wall time because this machine may be shared: wall time
// stretches with other load, CPU time much less.
package cputime

import (
	"syscall"
	"time"
)

// Now is the process's user+system CPU time so far (0 if unavailable).
func Now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
