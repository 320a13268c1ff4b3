package timingwheel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// mm1Result is what an M/M/1 run measured.
type mm1Result struct {
	served   int           // customers whose service began before the end
	meanWait time.Duration // their mean wait in the queue
	events   int           // alarms fired
}

// runMM1 simulates an M/M/1 queue on a wheel from start to end: customers
// arrive at rate lambda per second, one server serves them in arrival order
// at rate mu per second, both exponential (a PCG generator seeded with seed).
// Each alarm is an event, true for an arrival and false for a departure, and
// the loop steps from event to event until the next one is after end.
func runMM1(lambda, mu float64, start, end time.Time, seed uint64) mm1Result {
	// Intervals of 2^19 ns: Step still fires every event at its own time.
	w, err := timingwheel.New[bool](start, time.Millisecond)
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(seed, 0))
	after := func(rate float64) time.Time {
		return w.Now().Add(time.Duration(r.ExpFloat64() / rate * float64(time.Second)))
	}
	schedule := func(at time.Time, arrival bool) {
		if _, err := w.Add(at, arrival); err != nil {
			panic(err)
		}
	}
	var (
		line []time.Time // arrival times of the customers in the system, the one in service first
		res  mm1Result
		wait time.Duration
	)
	serve := func() { // the head of the line starts service now
		wait += w.Now().Sub(line[0])
		res.served++
		schedule(after(mu), false)
	}
	handle := func(f timingwheel.Fired[bool]) {
		res.events++
		if f.Value { // an arrival
			line = append(line, w.Now())
			if len(line) == 1 {
				serve()
			}
			schedule(after(lambda), true)
			return
		}
		line = line[1:] // a departure
		if len(line) > 0 {
			serve()
		}
	}
	schedule(after(lambda), true)
	for {
		t, ok := w.Next() // the exact time of the next event
		if !ok || t.After(end) {
			break
		}
		w.Step(handle)
	}
	res.meanWait = wait / time.Duration(res.served)
	return res
}

// An M/M/1 queue as a discrete-event simulation on a wheel, stepped with
// Step. With arrivals at rate lambda and service at rate mu, queueing theory
// gives a mean wait in the queue of Wq = rho/(mu-lambda), rho = lambda/mu.
// Over 250,000 simulated seconds (about 200,000 customers) the simulated
// mean has a standard deviation of about 3% from run to run at this load
// (20 seeds spread over -5% to +7%), so the check allows 10%;
// TestMM1MatchesTheory applies it at other seeds and loads.
func Example_mm1Queue() {
	const lambda, mu = 0.8, 1.0 // per second
	start := time.Unix(0, 0)
	res := runMM1(lambda, mu, start, start.Add(250_000*time.Second), 1)

	theory := lambda / mu / (mu - lambda) // seconds
	got := res.meanWait.Seconds()
	fmt.Printf("%d customers served, %d events\n", res.served, res.events)
	fmt.Printf("mean wait in queue %.2fs, theory %.2fs\n", got, theory)
	fmt.Printf("off by %+.1f%%, within 10%%: %v\n", 100*(got-theory)/theory, math.Abs(got-theory) <= 0.1*theory)
	// Output:
	// 199962 customers served, 399924 events
	// mean wait in queue 3.95s, theory 4.00s
	// off by -1.2%, within 10%: true
}

// TestMM1MatchesTheory: at several seeds and loads the simulated mean wait
// in the queue is within 10% of queueing theory's Wq = rho/(mu-lambda) (at
// rho = 0.8 its spread over seeds is about 3%, less at lower loads), and
// the customers served are about lambda per second of the run.
func TestMM1MatchesTheory(t *testing.T) {
	if checked.On || testing.Short() {
		t.Skip("simulates about 1.4 million events: a test of the statistics, not of the invariants")
	}
	start := time.Unix(0, 0)
	for _, c := range []struct {
		lambda, mu float64
		seed       uint64
	}{{0.8, 1, 2}, {0.8, 1, 3}, {0.5, 1, 4}, {2, 5, 5}} {
		const seconds = 250_000
		res := runMM1(c.lambda, c.mu, start, start.Add(seconds*time.Second), c.seed)
		wq := c.lambda / c.mu / (c.mu - c.lambda)
		if got := res.meanWait.Seconds(); math.Abs(got-wq) > 0.1*wq {
			t.Errorf("lambda %v mu %v seed %d: mean wait %.3fs, theory %.3fs", c.lambda, c.mu, c.seed, got, wq)
		}
		if want := c.lambda * seconds; math.Abs(float64(res.served)-want) > 0.02*want {
			t.Errorf("lambda %v seed %d: %d served, want about %.0f", c.lambda, c.seed, res.served, want)
		}
	}
}
