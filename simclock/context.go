package simclock

import (
	"context"
	"sync"
	"time"
)

// WithTimeout returns WithDeadline(parent, clock, clock.Now().Add(d)). On a
// *Clock or a view of one (Tagged), it reads the clock's time directly, so
// neither making nor cancelling the deadline is a call a trap catches: the
// traps catch the calls of the code under test, not the context's.
func WithTimeout(parent context.Context, clock Interface, d time.Duration) (context.Context, context.CancelFunc) {
	if c := simOf(clock); c != nil {
		return WithDeadline(parent, clock, c.current().Add(d)) // not a call to trap
	}
	return WithDeadline(parent, clock, clock.Now().Add(d))
}

// WithDeadline is context.WithDeadline on clock's time; it counts in Waiters.
// A parent's earlier deadline wins when it is on the same clock (made by
// WithDeadline or WithTimeout on it); a parent's deadline on any other
// clock, the wall clock's included, is not compared with this clock's time,
// and the result gets its own deadline. The parent's end ends the result
// whatever its cause.
func WithDeadline(parent context.Context, clock Interface, d time.Time) (context.Context, context.CancelFunc) {
	if _, ok := clock.(realClock); ok {
		return context.WithDeadline(parent, d)
	}
	if parent == nil {
		panic("simclock: cannot create context from nil parent")
	}
	if cur, ok := simDeadline(parent, clock); ok && cur.Before(d) {
		// The parent ends first, by its own means. (At an equal deadline,
		// as in package context, the result gets its own, so that a
		// deadline already reached is seen at once even if the parent's
		// timer has not run yet.)
		return context.WithCancel(parent)
	}
	// s is done at the simulated deadline or with parent. Below it is a
	// plain cancel context, which the context package attaches to s through
	// s.AfterFunc: when s ends, that context is cancelled synchronously with
	// s's error, and so are its children. The context handed out is that
	// cancel context wrapped so that reading it first looks at parent.
	s := &deadlineCtx{parent: parent, clock: simOf(clock), deadline: d, done: make(chan struct{})}
	if err := parent.Err(); err != nil {
		s.finish(err)
	} else if dur := until(clock, d); dur <= 0 {
		s.finish(context.DeadlineExceeded)
	} else {
		s.mu.Lock()
		if c := simOf(clock); c != nil {
			s.timer = c.deadlineTimer(dur, s.expire) // counts in Waiters
		} else {
			s.timer = clock.AfterFunc(dur, s.expire)
		}
		s.stopParent = context.AfterFunc(parent, s.poll)
		s.mu.Unlock()
	}
	cc, cancel := context.WithCancel(s)
	return &simCtx{Context: cc, s: s}, func() {
		cancel()
		s.release()
	}
}

// simDeadline returns parent's deadline when it is one WithDeadline made on
// the time of clock's *Clock, so that it compares with a deadline on that
// clock. A deadline of any other clock, the wall clock's included, does
// not: the parent ends by its own means whenever it does, and the child
// gets its own simulated deadline.
func simDeadline(parent context.Context, clock Interface) (time.Time, bool) {
	cur, ok := parent.Deadline()
	if !ok {
		return time.Time{}, false
	}
	s, _ := parent.Value(deadlineKey{}).(*deadlineCtx)
	if s == nil || s.clock == nil || s.clock != simOf(clock) || !s.deadline.Equal(cur) {
		return time.Time{}, false
	}
	return cur, true
}

// deadlineKey is the context key under which a deadlineCtx answers with
// itself (simDeadline).
type deadlineKey struct{}

// until is clock.Until(d), without going through a trap of a *Clock: the
// traps catch the calls of the code under test, not the clock's own.
func until(clock Interface, d time.Time) time.Duration {
	if c := simOf(clock); c != nil {
		return d.Sub(c.current())
	}
	return clock.Until(d)
}

// simOf returns the *Clock that clock is or views (Tagged), else nil.
func simOf(clock Interface) *Clock {
	if v, ok := clock.(taggedClock); ok {
		return v.c
	}
	c, _ := clock.(*Clock)
	return c
}

// simCtx is the context WithDeadline hands out: a cancel context below s
// that has s look at its parent before answering, so that parent's end shows
// at once rather than after context.AfterFunc's goroutine has run. Done
// returns the cancel context's own channel, so that the context package still
// attaches children directly to it.
type simCtx struct {
	context.Context
	s *deadlineCtx
}

func (c *simCtx) Done() <-chan struct{} { c.s.poll(); return c.Context.Done() }
func (c *simCtx) Err() error            { c.s.poll(); return c.Context.Err() }
func (c *simCtx) Value(key any) any     { c.s.poll(); return c.Context.Value(key) }

// deadlineCtx is done at a simulated deadline. It implements the AfterFunc
// method that the context package looks for in a parent, so that children
// learn of its end synchronously and take its Err.
type deadlineCtx struct {
	parent     context.Context
	clock      *Clock // the *Clock whose time deadline is on, or nil
	deadline   time.Time
	done       chan struct{}
	fin        sync.Mutex // held by finish while it runs fns
	mu         sync.Mutex
	err        error
	fns        []*func() // in registration order
	timer      Timer
	stopParent func() bool
}

func (s *deadlineCtx) Deadline() (time.Time, bool) { return s.deadline, true }
func (s *deadlineCtx) Done() <-chan struct{}       { return s.done }
func (s *deadlineCtx) Value(key any) any {
	if key == (deadlineKey{}) {
		return s
	}
	return s.parent.Value(key)
}

func (s *deadlineCtx) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// AfterFunc arranges for f to run when s is done and returns a function that
// cancels that; it runs f in a new goroutine if s is done already.
func (s *deadlineCtx) AfterFunc(f func()) func() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		go f()
		return func() bool { return false }
	}
	key := &f
	s.fns = append(s.fns, key)
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, g := range s.fns {
			if g == key {
				s.fns = append(s.fns[:i], s.fns[i+1:]...)
				return true
			}
		}
		return false
	}
}

// expire is the clock's timer: s ends with DeadlineExceeded, or with
// parent's error if parent has ended and context.AfterFunc's goroutine has
// not told s yet.
func (s *deadlineCtx) expire() {
	if err := s.parent.Err(); err != nil {
		s.finish(err)
		return
	}
	s.finish(context.DeadlineExceeded)
}

// poll ends s with parent's error if parent has ended.
func (s *deadlineCtx) poll() {
	if err := s.parent.Err(); err != nil {
		s.finish(err)
	}
}

// finish ends s with err (first call only) and runs the registered functions
// on the calling goroutine. A concurrent call waits until the first has run
// them all, so that whoever sees s done also sees the context below it done.
func (s *deadlineCtx) finish(err error) {
	s.fin.Lock()
	defer s.fin.Unlock()
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	s.err = err
	close(s.done)
	fns := s.fns
	s.fns = nil
	s.mu.Unlock()
	for _, f := range fns {
		(*f)()
	}
	s.release()
}

// release stops the clock's timer and the watch on parent.
func (s *deadlineCtx) release() {
	s.mu.Lock()
	t, stop := s.timer, s.stopParent
	s.mu.Unlock()
	if st, ok := t.(*timer); ok {
		st.stop() // not a call to trap
	} else if t != nil {
		t.Stop()
	}
	if stop != nil {
		stop()
	}
}

// clockKey is the context key of NewContext.
type clockKey struct{}

// NewContext returns a copy of parent carrying clk (clockwork's AddToContext).
func NewContext(parent context.Context, clk Interface) context.Context {
	return context.WithValue(parent, clockKey{}, clk)
}

// FromContext returns the clock NewContext put in ctx, or Real().
func FromContext(ctx context.Context) Interface {
	if clk, ok := ctx.Value(clockKey{}).(Interface); ok && clk != nil {
		return clk
	}
	return Real()
}
