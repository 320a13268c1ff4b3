package simclock_test

import (
	"math"
	"testing"
)

// TestMM1MatchesTheory: the simulation of Example_mm1Queue agrees with
// queueing theory within 5% for the waits and 1% for the utilization, at
// fixed seeds (so the test is deterministic). Successive waits at
// utilization 0.8 are strongly correlated, so a 200,000-customer run is off
// by a few percent (seeds 1 to 3: 1.9%, 3.7% and 1.1% low for the wait in
// queue); 5% leaves room for that and still catches a simulation that fires
// out of order or at the wrong time.
func TestMM1MatchesTheory(t *testing.T) {
	const lambda, mu = 0.8, 1.0
	wantWait, wantIn, wantBusy := lambda/(mu*(mu-lambda)), 1/(mu-lambda), lambda/mu
	if raceEnabled {
		// One goroutine, nothing to race; the detector makes it ten times
		// slower, and Example_mm1Queue checks seed 1 under it anyway.
		t.Skip("single-goroutine simulation: skipped under the race detector")
	}
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		res := simulateMM1(lambda, mu, 200_000, seed)
		for _, c := range []struct {
			name      string
			got, want float64
			tol       float64
		}{
			{"mean wait in queue", res.wait.Seconds(), wantWait, 0.05},
			{"mean time in system", res.inSystem.Seconds(), wantIn, 0.05},
			{"utilization", res.busy, wantBusy, 0.01},
		} {
			if rel := math.Abs(c.got-c.want) / c.want; rel > c.tol {
				t.Errorf("seed %d: %s %.3f, theory %.3f: off by %.1f%%, more than %.0f%%",
					seed, c.name, c.got, c.want, 100*rel, 100*c.tol)
			}
		}
		t.Logf("seed %d: wait %.3fs (theory %.2f), in system %.3fs (theory %.2f), busy %.4f; %d events at %.2g events/s",
			seed, res.wait.Seconds(), wantWait, res.inSystem.Seconds(), wantIn, res.busy,
			res.events, float64(res.events)/res.real.Seconds())
	}
}
