//go:build race

package simclock_test

// raceEnabled: the race detector slows simulations about tenfold.
const raceEnabled = true
