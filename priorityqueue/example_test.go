// This example shows a tick-based scheduler built on the queue: jobs are
// added for a tick, one is cancelled by its handle, and advancing the clock
// runs the due jobs in order.
package priorityqueue_test

import (
	"errors"
	"fmt"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

// A job is the value the queue holds for each element.
type job struct {
	name string
	tick int64 // when it should run
}

// A scheduler runs jobs at ticks. Its clock is the queue's MinAllowedKey:
// every job with a tick below it has run.
type scheduler struct {
	q    *priorityqueue.Queue[job]
	jobs map[string]alarm.Alarm // handles, to cancel jobs
}

func newScheduler() *scheduler {
	// Three levels of 4 bits: 16 ticks at level 0, 256 ticks a slot at the
	// top; the queue accepts ticks up to MaxAllowedKey.
	lb, err := levelbits.New(4, 4, 4)
	if err != nil {
		panic(err)
	}
	return &scheduler{q: priorityqueue.New[job](lb, 8), jobs: map[string]alarm.Alarm{}}
}

func (s *scheduler) schedule(name string, tick int64) {
	a, err := s.q.Add(tick, job{name, tick})
	if err != nil {
		fmt.Printf("cannot schedule %s at %d: %v\n", name, tick, err)
		return
	}
	s.jobs[name] = a
}

// cancel removes a job by its handle. The handle of a job that has run or
// was cancelled is stale, and the queue rejects it.
func (s *scheduler) cancel(name string) {
	err := s.q.Remove(s.jobs[name])
	if errors.Is(err, priorityqueue.ErrInvalidAlarm) {
		fmt.Printf("cannot cancel %s: not scheduled\n", name)
	}
}

// advance moves the clock to tick, running every job due before it: in tick
// order and, within a tick, in the order they were scheduled.
func (s *scheduler) advance(tick int64) {
	err := s.q.IncreaseMinAllowedKey(tick, func(e priorityqueue.Element[job]) {
		fmt.Printf("tick %3d: %s\n", e.Key, e.Value.name)
	})
	if err != nil {
		fmt.Println(err)
	}
}

func Example_scheduler() {
	s := newScheduler()
	s.schedule("backup", 30)
	s.schedule("email", 5)
	s.schedule("sms", 5)
	s.schedule("report", 200)
	s.schedule("cleanup", 12)
	s.schedule("archive", 5000) // beyond MaxAllowedKey (4351)

	s.cancel("cleanup")
	s.advance(100)
	fmt.Printf("clock %d, %d job left\n", s.q.MinAllowedKey(), s.q.Len())

	s.schedule("late", 50) // the clock has passed 50
	s.cancel("email")      // already ran: its handle is stale
	s.cancel("cleanup")    // cancelled before
	s.advance(1000)
	// Output:
	// cannot schedule archive at 5000: priorityqueue: key out of range: key 5000, allowed [0, 4351]
	// tick   5: email
	// tick   5: sms
	// tick  30: backup
	// clock 100, 1 job left
	// cannot schedule late at 50: priorityqueue: key out of range: key 50, allowed [100, 4351]
	// cannot cancel email: not scheduled
	// cannot cancel cleanup: not scheduled
	// tick 200: report
}
