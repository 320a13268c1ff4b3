package proptest_test

import (
	"sync"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/proptest"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Locked is a wheel that goroutines share: every call takes the lock,
// held while the handlers run. It has four of the methods WithWrapper
// knows; the check calls and compares exactly those.
type Locked struct {
	mu sync.Mutex
	w  *timingwheel.Wheel[string]
}

func NewLocked(cfg config.Config, start time.Time) (*Locked, error) {
	w, err := timingwheel.NewWithConfig[string](cfg, start)
	return &Locked{w: w}, err
}

func (l *Locked) Now() time.Time { l.mu.Lock(); defer l.mu.Unlock(); return l.w.Now() }
func (l *Locked) Len() int       { l.mu.Lock(); defer l.mu.Unlock(); return l.w.Len() }

func (l *Locked) Add(at time.Time, v string) (timingwheel.Alarm, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Add(at, v)
}

func (l *Locked) AdvanceClock(to time.Time, fired func(timingwheel.Fired[string])) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.AdvanceClock(to, fired)
}

func TestLocked(t *testing.T) { proptest.CheckWheel(t, proptest.WithWrapper(NewLocked)) }

// LockedInt embeds the wheel, so that every method of it is there, and locks
// the calls that change it; the lock is held while handlers run.
type LockedInt struct {
	mu sync.Mutex
	*timingwheel.Wheel[int]
}

func newLockedInt(cfg config.Config, start time.Time) (*LockedInt, error) {
	w, err := timingwheel.NewWithConfig[int](cfg, start)
	return &LockedInt{Wheel: w}, err
}

func (l *LockedInt) Add(at time.Time, v int) (timingwheel.Alarm, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Wheel.Add(at, v)
}

func (l *LockedInt) Remove(a timingwheel.Alarm) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Wheel.Remove(a)
}

func (l *LockedInt) Reschedule(a timingwheel.Alarm, at time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Wheel.Reschedule(a, at)
}

func (l *LockedInt) AdvanceClock(to time.Time, fired func(timingwheel.Fired[int])) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Wheel.AdvanceClock(to, fired)
}

// Every method of the embedded wheel is drawn or compared; the handlers do
// not call back into it, so its lock does not deadlock.
func TestLockedEmbedding(t *testing.T) {
	proptest.CheckWheel(t, proptest.WithWrapper(newLockedInt), proptest.WithSteps(60))
}

// The same wheel through WithWheelFactory, the interface of every method.
func TestLockedWheelFactory(t *testing.T) {
	proptest.CheckWheel(t, proptest.WithWheelFactory(func(cfg config.Config, start time.Time) (proptest.Wheel, error) {
		return newLockedInt(cfg, start)
	}))
}

// An embedding without the lock allows calls from handlers: the checks of
// the library's own wheel, re-entrant handlers included, run on it.
type plainInt struct{ *timingwheel.Wheel[int] }

func TestReentrantHandlers(t *testing.T) {
	proptest.CheckWheel(t, proptest.WithReentrantHandlers(), proptest.WithWrapper(
		func(cfg config.Config, start time.Time) (plainInt, error) {
			w, err := timingwheel.NewWithConfig[int](cfg, start)
			return plainInt{w}, err
		}))
}

// Values of a type that == cannot compare: the check makes them with
// WithValues and compares them with reflect.DeepEqual where the wheel returns
// them (its handlers here; AlarmValue too when the wrapper has it).
type sliceWheel struct{ *timingwheel.Wheel[[]string] }

func TestNonComparableValues(t *testing.T) {
	value := func(id int) []string { return []string{"job", string(rune('a' + id%26))} }
	proptest.CheckWheel(t, proptest.WithValues(value), proptest.WithWrapper(
		func(cfg config.Config, start time.Time) (sliceWheel, error) {
			w, err := timingwheel.NewWithConfig[[]string](cfg, start)
			return sliceWheel{w}, err
		}))
}

// Traces replay on a wrapper too, with the same options.
func TestReplayOnWrapper(t *testing.T) {
	proptest.ReplayText(t, `
		wheel precision=0 bits=1,1 capacity=0 overflow=false start=0
		Add 3 1
		Add 2 2
		AdvanceClock 3
		AdvanceClock 9
	`, proptest.WithWrapper(NewLocked))
}

// The other front-ends take the wrapper too: fuzz inputs and gopter.
func TestWrapperFrontEnds(t *testing.T) {
	for i := range 200 {
		data := make([]byte, 64+i)
		for j := range data {
			data[j] = byte(i*31 + j*j*7)
		}
		proptest.CheckWheelBytes(t, data, proptest.WithWrapper(NewLocked))
	}
	proptest.RunGopter(t, proptest.WithWrapper(NewLocked), proptest.WithGopterRuns(50, 30))
}
