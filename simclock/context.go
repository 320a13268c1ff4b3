package simclock

import (
	"context"
	"sync"
	"time"
)

// WithTimeout returns WithDeadline(parent, clock, clock.Now().Add(d)).
func WithTimeout(parent context.Context, clock Interface, d time.Duration) (context.Context, context.CancelFunc) {
	return WithDeadline(parent, clock, clock.Now().Add(d))
}

// WithDeadline returns a copy of parent that is done when clock reaches d,
// when parent is done, or when the returned cancel function is called,
// whichever comes first. With the Real() clock it is context.WithDeadline.
// With a simulated clock the deadline follows simulated time: as soon as an
// advance reaches d (on the driving goroutine, in its place among the other
// timers), ctx.Err() and context.Cause(ctx) are context.DeadlineExceeded, and
// so are those of contexts derived from ctx. Deadline() reports d. Calling
// cancel releases the clock's timer; call it as soon as the work is done.
func WithDeadline(parent context.Context, clock Interface, d time.Time) (context.Context, context.CancelFunc) {
	if _, ok := clock.(realClock); ok {
		return context.WithDeadline(parent, d)
	}
	if parent == nil {
		panic("simclock: cannot create context from nil parent")
	}
	// s is done at the simulated deadline or with parent. The context handed
	// out is a plain cancel context below it, which the context package
	// attaches to s through s.AfterFunc: when s ends, that context is
	// cancelled synchronously with s's error, and so are its children.
	s := &deadlineCtx{parent: parent, deadline: d, done: make(chan struct{})}
	s.mu.Lock()
	s.timer = clock.AfterFunc(clock.Until(d), func() { s.finish(context.DeadlineExceeded) })
	s.stopParent = context.AfterFunc(parent, func() { s.finish(parent.Err()) })
	s.mu.Unlock()
	if clock.Until(d) <= 0 {
		s.finish(context.DeadlineExceeded)
	}
	ctx, cancel := context.WithCancel(s)
	return ctx, func() {
		cancel()
		s.release()
	}
}

// deadlineCtx is done at a simulated deadline. It implements the AfterFunc
// method that the context package looks for in a parent, so that children
// learn of its end synchronously and take its Err.
type deadlineCtx struct {
	parent     context.Context
	deadline   time.Time
	done       chan struct{}
	mu         sync.Mutex
	err        error
	fns        []*func() // in registration order
	timer      Timer
	stopParent func() bool
}

func (s *deadlineCtx) Deadline() (time.Time, bool) { return s.deadline, true }
func (s *deadlineCtx) Done() <-chan struct{}       { return s.done }
func (s *deadlineCtx) Value(key any) any           { return s.parent.Value(key) }

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

// finish ends s with err (first call only) and runs the registered functions
// on the calling goroutine.
func (s *deadlineCtx) finish(err error) {
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
	if t != nil {
		t.Stop()
	}
	if stop != nil {
		stop()
	}
}
