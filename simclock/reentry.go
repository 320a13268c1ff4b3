package simclock

import (
	"fmt"
	"reflect"
	"runtime"
	"time"
)

// runCallback runs an AfterFunc callback. It is a frame of its own so that a
// call made from a callback can find it on its stack.
//
//go:noinline
func runCallback(f func()) { f() }

// callbackFrame is runCallback's name in stack traces.
var callbackFrame = reflect.TypeFor[Clock]().PkgPath() + ".runCallback"

// checkReentry panics with ErrReentrant if the caller of op is a callback of
// c. It runs only when op would wait: another advance holds c, or (Sleep) a
// callback of c is running. c is taken to be the caller's own clock when one
// of its callbacks is running and the caller is inside a simclock callback.
// (The one case this gets wrong: a callback of another clock that drives c
// while a third goroutine is running one of c's callbacks; it panics where
// waiting would have worked.)
func (c *Clock) checkReentry(op string) {
	c.mu.Lock()
	busy := c.inCall
	c.mu.Unlock()
	if !busy || !insideCallback() {
		return
	}
	panic(fmt.Errorf("%w: %s would deadlock: the advance that runs this callback waits for it to return. "+
		"To make something happen later in this same advance, schedule it with AfterFunc "+
		"(it fires in time order, before the advance returns); to wait for time to pass, "+
		"do it on a goroutine of its own and drive the clock from the test", ErrReentrant, op))
}

// insideCallback reports whether runCallback is on the calling goroutine's
// stack. It costs a stack walk, so it runs only on the paths that would
// otherwise block.
func insideCallback() bool {
	pcs := make([]uintptr, 64)
	for {
		n := runtime.Callers(2, pcs)
		if n < len(pcs) {
			pcs = pcs[:n]
			break
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Function == callbackFrame {
			return true
		}
		if !more {
			return false
		}
	}
}

// Running reports the time and name of the callback an advance is running.
func (c *Clock) Running() (at time.Time, fn string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.inCall || c.running == nil {
		return time.Time{}, "", false
	}
	var f any = c.running.f
	if user, ok := c.tickerFuncs[c.running]; ok {
		f = user
	}
	return c.timeOf(c.now), funcName(f), true
}

// funcName is the runtime's name of the function f.
func funcName(f any) string {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Func || v.IsNil() {
		return "?"
	}
	if rf := runtime.FuncForPC(v.Pointer()); rf != nil {
		return rf.Name()
	}
	return "?"
}
