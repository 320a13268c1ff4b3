package simclock_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gotimingwheel/timingwheel/simclock"
)

// An M/M/1 queue as a discrete-event simulation: customers arrive at rate
// lambda, one server serves them at rate mu, both exponential. Each event is
// an AfterFunc callback; `for clk.Step() {}` runs them in time order. Queueing
// theory gives a mean time in the system of 1/(mu-lambda) and a server busy a
// fraction lambda/mu of the time.
func Example_mm1Queue() {
	const (
		lambda    = 0.8 // arrivals per second
		mu        = 1.0 // services per second
		customers = 200_000
	)
	clk := simclock.New(start)
	r := rand.New(rand.NewPCG(1, 2))
	exp := func(rate float64) time.Duration {
		return time.Duration(r.ExpFloat64() / rate * float64(time.Second))
	}
	var (
		line      []time.Time // arrival times of the customers in the system
		arrived   int
		inSystem  time.Duration // summed over the customers served
		busy      time.Duration
		busySince time.Time
	)
	var arrive, depart func()
	arrive = func() {
		arrived++
		line = append(line, clk.Now())
		if len(line) == 1 {
			busySince = clk.Now()
			clk.AfterFunc(exp(mu), depart)
		}
		if arrived < customers {
			clk.AfterFunc(exp(lambda), arrive)
		}
	}
	depart = func() {
		inSystem += clk.Since(line[0])
		line = line[1:]
		if len(line) > 0 {
			clk.AfterFunc(exp(mu), depart)
		} else {
			busy += clk.Since(busySince)
		}
	}
	clk.AfterFunc(exp(lambda), arrive)
	steps := 0
	for clk.Step() {
		steps++
	}
	elapsed := clk.Since(start)
	fmt.Printf("%d events\n", steps)
	fmt.Printf("mean time in system %.1fs (theory %.1fs)\n",
		inSystem.Seconds()/customers, 1/(mu-lambda))
	fmt.Printf("server busy %.2f of the time (theory %.2f)\n",
		busy.Seconds()/elapsed.Seconds(), lambda/mu)
	// Output:
	// 400000 events
	// mean time in system 4.9s (theory 5.0s)
	// server busy 0.80 of the time (theory 0.80)
}
