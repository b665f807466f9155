package cputime

import (
	"runtime"
	"testing"
)

func TestNowAdvancesWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no rusage on this OS")
	}
	start := Now()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i ^ (x >> 3)
	}
	if Now() <= start {
		t.Fatalf("CPU time did not advance after a busy loop (x=%d)", x)
	}
}
