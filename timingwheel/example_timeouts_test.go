package timingwheel_test

import (
	"fmt"
	"time"

	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// idleTimeouts closes connections that stay quiet for too long. Each open
// connection owns one alarm: activity reschedules it (the handle stays the
// same), closing removes it, and the clock's owner calls tick from its event
// loop. Most alarms never fire: they are rescheduled or removed first, each
// in O(1) and without allocating.
type idleTimeouts struct {
	w     *timingwheel.Wheel[int] // alarm value: the connection id
	idle  time.Duration
	conns map[int]timingwheel.Alarm
}

func newIdleTimeouts(start time.Time, idle time.Duration) *idleTimeouts {
	// time.Millisecond gives intervals of 2^19 ns (524.288µs), plenty for
	// timeouts of seconds: an expiry fires at the first tick at or past the
	// end of its deadline's interval, at most 524.288µs after the deadline
	// (here, a deadline at 5s fires at the 5.5s tick).
	w, err := timingwheel.New[int](start, time.Millisecond)
	if err != nil {
		panic(err)
	}
	return &idleTimeouts{w: w, idle: idle, conns: map[int]timingwheel.Alarm{}}
}

func (m *idleTimeouts) open(id int) {
	a, err := m.w.Add(m.w.Now().Add(m.idle), id)
	if err != nil {
		panic(err)
	}
	m.conns[id] = a
}

// activity pushes the connection's deadline back to now + idle.
func (m *idleTimeouts) activity(id int) {
	if err := m.w.Reschedule(m.conns[id], m.w.Now().Add(m.idle)); err != nil {
		panic(err)
	}
}

func (m *idleTimeouts) close(id int) {
	if err := m.w.Remove(m.conns[id]); err != nil {
		panic(err)
	}
	delete(m.conns, id)
}

// tick advances the clock and returns the connections that timed out, in
// deadline order.
func (m *idleTimeouts) tick(now time.Time) []int {
	var expired []int
	err := m.w.AdvanceClock(now, func(f timingwheel.Fired[int]) {
		expired = append(expired, f.Value)
		delete(m.conns, f.Value)
	})
	if err != nil {
		panic(err)
	}
	return expired
}

// A server with 1000 connections and a 5 s idle timeout. Connections whose id
// is a multiple of 10 never speak; the others are busy until 6 s; those with
// ids that are multiples of 3 close at 2 s.
func Example_idleTimeouts() {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	m := newIdleTimeouts(start, 5*time.Second)
	const n = 1000
	for id := 0; id < n; id++ {
		m.open(id)
	}
	resets := 0
	for step := 1; step <= 24; step++ { // a tick every 500 ms, for 12 s
		elapsed := time.Duration(step) * 500 * time.Millisecond
		if expired := m.tick(start.Add(elapsed)); len(expired) > 0 {
			fmt.Printf("%v: %d timed out, first %v\n", elapsed, len(expired), expired[:3])
		}
		for id := 0; id < n; id++ {
			if _, open := m.conns[id]; !open {
				continue
			}
			if elapsed == 2*time.Second && id%3 == 0 {
				m.close(id)
				continue
			}
			if elapsed <= 6*time.Second && id%10 != 0 {
				m.activity(id)
				resets++
			}
		}
	}
	st := m.w.Stats()
	fmt.Printf("resets %d, closed %d, timed out %d, still open %d\n", resets, st.Removed, st.Fired, len(m.conns))
	// Output:
	// 5.5s: 66 timed out, first [10 20 40]
	// 11.5s: 600 timed out, first [1 2 4]
	// resets 8100, closed 334, timed out 666, still open 0
}
