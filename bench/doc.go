// Package bench holds the comparisons of timingwheel with other libraries:
// the reference workloads on the wheel and two heaps, simclock against the
// fake clocks Go programs use today, and a floor for TIMEOUT-1M (a minimal
// one-level wheel, as a reference point for what a wheel with a record per
// alarm can reach there; floor_test.go). It is a separate module so that the
// library's go.mod stays small; run it from this folder:
//
//	cd bench && go test -run '^$' -bench . -benchmem
package bench
