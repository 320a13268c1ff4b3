package proptest

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/gotimingwheel/timingwheel/proptest/internal/harness"
)

// stuckError is a call of the checks that did not return within the
// deadline (WithCallTimeout).
type stuckError struct {
	msg   string        // what did not return, and what to do
	trace string        // the calls so far, the stuck one last
	kind  *harness.Kind // the structure under test
}

func (e *stuckError) Error() string { return e.msg }

// within runs f on another goroutine and waits at most the call deadline
// for it: a call that does not return becomes the *stuckError stuck makes
// (and leaves its goroutine blocked; what it ran on must not be used
// again). After one, within returns it at once.
func (o *options) within(f func() error, stuck func(d time.Duration) *stuckError) error {
	if o.halt != nil {
		return o.halt
	}
	w := o.work
	if w == nil {
		w = &worker{jobs: make(chan func() error, 1), done: make(chan error, 1)}
		defer close(w.jobs)
		go w.run()
	}
	w.jobs <- f
	d := o.timeout
	if d <= 0 {
		d = defaultTimeout
	}
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	defer w.timer.Stop()
	select {
	case err := <-w.done:
		return err
	case <-w.timer.C:
	}
	o.halt = stuck(d)
	return o.halt
}

// worker runs the calls of the checks one at a time on a goroutine that
// lives as long as the check, so that its stack, grown once, stays.
type worker struct {
	jobs  chan func() error
	done  chan error
	timer *time.Timer
}

func (w *worker) run() {
	for f := range w.jobs {
		w.done <- f()
	}
}

// startWorker gives the calls of a front-end one worker; the returned func
// ends it (a worker blocked in a call that did not return ends with it).
// Without one, each call runs on a goroutine of its own.
func (o *options) startWorker() (stop func()) {
	w := &worker{jobs: make(chan func() error, 1), done: make(chan error, 1)}
	go w.run()
	o.work = w
	return func() {
		close(w.jobs)
		o.work = nil
	}
}

// logMethods logs, once, which methods of a user's wheel the checks call
// and compare.
func (o *options) logMethods(t interface{ Logf(string, ...any) }) {
	if o.methods != "" && !o.logged {
		o.logged = true
		t.Logf("%s", o.methods)
	}
}

// step runs op on h within the call deadline.
func (o *options) step(h *harness.Harness, op harness.Op) error {
	if o.halt != nil {
		return o.halt // h may be nil: its start did not return
	}
	ops := h.Ops() // read before the goroutine appends op
	return o.within(func() error { return h.Step(op) }, func(d time.Duration) *stuckError {
		return &stuckError{msg: o.stuck(h.Kind(), h.Kind().Format(op), d), trace: h.TraceOf(ops) + h.Kind().Format(op) + "\n", kind: h.Kind()}
	})
}

// start makes the structure under test and its model within the call
// deadline: the user's constructor and the first queries run in it.
func (o *options) start(s harness.Setup) (*harness.Harness, error) {
	var h *harness.Harness
	err := o.within(func() (err error) {
		h, err = s.New()
		return err
	}, func(d time.Duration) *stuckError {
		return &stuckError{msg: o.stuck(s.Kind, "", d), trace: s.Header + "\n", kind: s.Kind}
	})
	if errors.As(err, new(harness.UsageError)) {
		o.halt = err // the same for every structure the checks make
	}
	return h, err
}

// stuck says which call did not return within d, and what to do; op is the
// call of the trace that made it, "" for the start.
func (o *options) stuck(k *harness.Kind, op string, d time.Duration) string {
	c := o.calls.cur.Load()
	var what string
	switch {
	case c == nil && op == "":
		what = fmt.Sprintf("the %s under test did not answer its first queries within %v", k.Name, d)
	case c == nil:
		what = fmt.Sprintf("the call %s did not return within %v", op, d)
	case c.parent != nil:
		what = fmt.Sprintf("%v, called by a handler of %v, did not return within %v", c, c.parent, d)
	case op == "" && !c.constructor:
		what = fmt.Sprintf("%v did not return within %v, before any call of the checks", c, d)
	default:
		what = fmt.Sprintf("%v did not return within %v", c, d)
	}
	queue := k == harness.QueueKind
	var hint string
	switch {
	case c != nil && c.constructor:
		hint = "does it wait for something that never comes: a lock, a channel, another goroutine?"
	case op == "":
		hint = "a lock that stays locked (one the constructor left locked?), or a loop that does not end?"
	case queue && o.queueFactory != nil:
		hint = "does your queue hold a lock while its handlers run? The checks' handlers call back into it."
	case queue || !o.wrapped:
		hint = "a loop that does not end?"
	case c != nil && c.parent != nil && o.reentrant:
		hint = "does your wheel hold a lock while its handlers run? The checks' handlers call back into it " +
			"because of WithReentrantHandlers: use that option only if your wheel allows calls from its handlers."
	case c != nil && c.parent != nil:
		hint = "does your wheel hold a lock while its handlers run? This trace's handler calls back into it " +
			"(handler=...,add, remove, reschedule or shrink), which such a wheel does not allow; the checks " +
			"draw such handlers only with WithReentrantHandlers."
	default:
		hint = "a lock that stays locked: one a panicking handler left locked (the trace's handler=...,panic; " +
			"unlock with defer, or use WithoutPanics), or a loop that does not end?"
		if !o.reentrant {
			hint += " The checks' handlers do not call back into your wheel (WithReentrantHandlers is off)."
		}
	}
	return fmt.Sprintf("%s: %s WithCallTimeout changes the deadline.", what, hint)
}

// fatalIfHalted fails t at once when err ends the checks (a call that did
// not return, a wheel the checks cannot use): rapid would otherwise run the
// case again and again while it shrinks it, each time waiting out the
// deadline, or the same for every case.
func (o *options) fatalIfHalted(t interface {
	Helper()
	Fatalf(string, ...any)
}, err error, h *harness.Harness) {
	t.Helper()
	if err != nil && err == o.halt {
		t.Fatalf("%s", o.failed(err, h))
		runtime.Goexit() // Fatalf does not return from a testing.T; nor may this
	}
}
