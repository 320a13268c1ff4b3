// Package simclock is a deterministic clock for tests and simulations.
//
// A *Clock has the methods of package time plus TickerFunc; its time moves
// only when a goroutine drives it (Advance, Step, AdvanceAsync...). Code under
// test takes Interface, which *Clock and Real() satisfy. docs/migrating.md
// maps clockwork, benbjohnson/clock, quartz and k8s.io/utils/clock to it.
//
// Driving the clock fires every due timer in time order, FIFO at equal
// times, on the driving goroutine (while a trap is open, a callback runs on
// one of its own, which the advance waits for), each with Now() at its own
// time: a run that traps nothing gives the same trace every time, and every
// callback due has run when the advance returns, or is held by a trap.
// Timers follow package time as of Go 1.23: AfterFunc with d <= 0 runs at
// once, on a goroutine of the clock's, so one made outside a callback while
// no advance runs races with its caller (in a simulation, give the first
// event 1 ns); a ticker drops the ticks nobody receives. A goroutine woken by
// a channel runs after the advance: wait for it with BlockUntilContext, a
// Trap, or synctest.Wait. The clock's last instant is start + 2^62-1 ns
// (146 years): a timer set beyond it is pending (Len counts it, Stop works)
// but never fires, and Next, Step and Run pass it by. Scheduling costs O(1),
// an advance O(timers fired); docs/design.md tells how.
package simclock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// maxOffset is the last instant the clock reaches, in ns after its start.
const maxOffset = 1<<62 - 1

var (
	// ErrOutOfRange: an advance past start + 2^62-1 ns.
	ErrOutOfRange = errors.New("simclock: time out of range")
	// ErrInvalidOption: an invalid option to New.
	ErrInvalidOption = errors.New("simclock: invalid option")
	// ErrBeyondReach: a timer beyond short level bits; use WithOverflow.
	ErrBeyondReach = errors.New("simclock: timer beyond the wheel's reach")
	// ErrReentrant: a callback drove, waited on or Slept on its own clock.
	ErrReentrant = errors.New("simclock: re-entrant call from a callback")
	// ErrTrapClosed: Trap.Wait on a closed trap.
	ErrTrapClosed = errors.New("simclock: trap closed")
)

// Option configures a Clock.
type Option func(*options)

type options struct {
	tb        TB
	log       bool
	precision time.Duration
	cfgOpts   []config.Option
}

// WithPrecision sets the wheel's precision, as timingwheel.New (default 1ns).
func WithPrecision(d time.Duration) Option {
	return func(o *options) { o.precision = d }
}

// TB is the part of testing.TB a Clock uses.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(f func())
}

// WithTB ties the clock to a test: Must* fail it; unreleased calls fail it.
func WithTB(tb TB) Option {
	return func(o *options) { o.tb = tb }
}

// WithCallLog logs every clock call to WithTB's test (quartz's logger).
func WithCallLog() Option {
	return func(o *options) { o.log = true }
}

// WithLevelBits sets the wheel's level bits (default levelbits.Default()).
func WithLevelBits(lb levelbits.LevelBits) Option {
	return func(o *options) { o.cfgOpts = append(o.cfgOpts, config.WithLevelBits(lb)) }
}

// WithOverflow lets short level bits take any time (config.WithOverflow).
func WithOverflow() Option {
	return func(o *options) { o.cfgOpts = append(o.cfgOpts, config.WithOverflow()) }
}

// Clock is a simulated clock; the zero Clock reads the Unix epoch (UTC).
type Clock struct {
	// The wheel's own clock (wnow) may run ahead of the simulated one (now):
	// an advance takes the alarms due up to its target from the wheel, a
	// chunk at a time, in order, into the batch, and then fires them one by
	// one, moving now along. A timer scheduled at or before wnow (by a
	// callback, or at d = 0) cannot go into the wheel, whose clock has passed
	// it; it waits in the early heap. So every pending timer is in exactly
	// one place: the wheel (at > wnow), the batch (at <= wnow), the early
	// heap (at <= wnow, or any time in tiny mode), or parked (beyond the
	// reach).
	//
	// Tiny mode: while the wheel holds nothing, timers after wnow wait in
	// the early heap too, as long as it has fewer than tinyMax entries (live
	// or stale), where a push and a pop cost less than the wheel's add and
	// collection; the wheel's own clock may then lag wnow. leaveTiny ends
	// it, moving the heap's timers after wnow into the wheel in (at, seq)
	// order: called by the first timer after wnow that must go to the wheel,
	// and by a timer due now that finds the heap full. Invariants SC1 to SC5
	// (invariant.go).
	adv         sync.Mutex // held by the goroutine that drives the clock
	mu          sync.Mutex // guards everything below
	w           *wheel     // its values are the timers; nil until a timer needs it where tinyOK (wheelOf)
	cfg         config.Config
	origin      time.Time
	now         int64   // ns after origin
	wnow        int64   // the wheel has handed over every timer at or before wnow; >= now
	batch       []entry // taken from the wheel, in (at, scheduling) order
	bpos        int
	early       earlyHeap // scheduled at or before wnow (or any time, while tiny), by (at, seq)
	tiny        bool      // the early heap may hold timers after wnow; the wheel holds nothing
	tinyOK      bool      // the wheel's reach is the whole range: timers may wait in the early heap
	seq         uint64    // the last sequence number a schedule took (arm): they follow scheduling order
	earlyKept   int       // live entries at the last compaction or leaveTiny
	sorted      bool      // 1 ns precision: the wheel fires in time order
	chunk       int       // how many alarms an advance takes from the wheel at a time: defaultChunk
	chk         chkSched  // checked mode's schedule of whole checks (checked.go); no size without -tags twcheck
	waiters     int
	blocked     []*blocked              // goroutines waiting for a waiter count
	inCall      bool                    // a callback is running (on the driving goroutine)
	running     *timer                  // its timer, while inCall
	async       bool                    // the advance in progress runs on an Advancing's goroutine
	tickerFuncs map[*timer]func() error // running TickerFuncs: their f
	traps       []*Trap                 // open traps, oldest first
	ntraps      atomic.Int32            // len(traps), plus 1 while logTB is set: read without mu (storeHooks)
	tb          TB                      // WithTB's, or nil
	logTB       TB                      // tb while calls are logged (WithCallLog), else nil
	collect     func(*timer)
	live        int      // pending timers, of every kind: Len
	nparked     int      // timers in stateParked (beyond the reach)
	advancing   bool     // an advance is firing: it will take every timer due by its target
	kickPending bool     // a goroutine will fire the timers due now (kick)
	holdable    *cbRun   // the callback running on a goroutine of its own, which a trap may hold
	held        []*cbRun // callbacks of the advance in progress that a trap holds
}

// entry is a timer in the batch or the early heap (due, or waiting there in
// tiny mode); it fires only if the timer is still in state stateDue with the
// same sequence number (neither stopped nor reset since). Sequence numbers
// come from one counter per clock, so they also give the scheduling order
// that breaks ties in time: 24 bytes, where a separate order field made 32.
type entry struct {
	t   *timer
	seq uint64
	at  int64
}

func (e entry) live() bool { return e.t.state == stateDue && e.t.seq == e.seq }

// compactEarly drops the stale entries that Stop and Reset leave in the early
// heap, so that it stays within twice its live entries.
func (c *Clock) compactEarly() {
	live := c.early[:0]
	for _, e := range c.early {
		if e.live() {
			live = append(live, e)
		}
	}
	clear(c.early[len(live):])
	c.early = live
	c.early.sort() // sorted is a heap
	c.earlyKept = len(c.early)
}

// earlyHeap is a binary min-heap of entries by (at, seq).
type earlyHeap []entry

// less orders the heap by (at, seq): time, then scheduling order.
func (h earlyHeap) less(i, j int) bool { return before(h[i], h[j]) }

// before reports whether a comes before b by (at, seq). It is small enough
// to inline, and must stay so: it is the heap's inner loop, and a call there
// would cost more than the comparisons it makes (CLOCK-STEP at small N shows
// it).
func before(a, b entry) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

// push adds e. The heap's first array holds tinyStart entries, and a full
// heap doubles (128, 256, 512, 1024 entries): append grows a slice of 256
// or more by about a quarter at a time, so a tiny heap would pass through
// more arrays, and allocate more in all, on its way to tinyMax.
func (h *earlyHeap) push(e entry) {
	if len(*h) == cap(*h) {
		g := make(earlyHeap, len(*h), max(2*cap(*h), tinyStart))
		copy(g, *h)
		*h = g
	}
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 { // move parents down into the hole until e's place is found
		p := (i - 1) / 2
		if !before(e, s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = e
}

// pop removes and returns the first entry by (at, seq); h must not be
// empty.
func (h *earlyHeap) pop() entry {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = entry{}
	s = s[:n]
	s.down(0)
	*h = s
	return top
}

// down moves entry i of h down until neither child is less than it: the
// smaller child moves up into the hole at each level, and the entry is
// written once, where it stops.
func (h earlyHeap) down(i int) {
	n := len(h)
	if i >= n {
		return
	}
	e := h[i]
	for {
		m := 2*i + 1
		if m >= n {
			break
		}
		if r := m + 1; r < n && before(h[r], h[m]) {
			m = r
		}
		if !before(h[m], e) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = e
}

// sort sorts h by (at, seq), in place: a heapsort with the heap's own less,
// then a reversal, rather than slices.SortFunc, whose comparison is a call
// through a func value on every step: the sort runs once for each clock that
// leaves tiny mode, over up to tinyMax entries. Cost: O(n log n).
func (h earlyHeap) sort() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	for m := len(h) - 1; m > 0; m-- { // the minimum of h[:m+1] to h[m]
		h[0], h[m] = h[m], h[0]
		h[:m].down(0)
	}
	slices.Reverse(h)
}

// New returns a clock at start; bad or nil options panic with ErrInvalidOption.
func New(start time.Time, opts ...Option) *Clock {
	o := options{precision: 1}
	for i, f := range opts {
		if f == nil {
			panic(fmt.Errorf("%w: opts[%d] is nil", ErrInvalidOption, i))
		}
		f(&o)
	}
	c := &Clock{}
	c.init(start, o)
	if o.log && o.tb == nil {
		panic(fmt.Errorf("%w: WithCallLog without WithTB: there is no test to log to", ErrInvalidOption))
	}
	if tb := o.tb; tb != nil {
		c.tb = tb
		if o.log {
			c.logTB = tb
			c.storeHooks()
		}
		tb.Cleanup(c.testOver)
	}
	return c
}

// testOver runs at the end of a WithTB clock's test: it stops the log and
// closes the open traps, which reports the calls taken and never released.
func (c *Clock) testOver() {
	c.mu.Lock()
	c.logTB = nil
	traps := slices.Clone(c.traps)
	c.storeHooks()
	c.mu.Unlock()
	for _, tr := range traps {
		tr.Close()
	}
}

// storeHooks sets ntraps, which the clock's methods read without a lock to
// skip trap on their fast path: the open traps, plus one while calls are
// logged. c.mu is held.
func (c *Clock) storeHooks() {
	n := len(c.traps)
	if c.logTB != nil {
		n++
	}
	c.ntraps.Store(int32(n))
}

// zeroStart is where the zero Clock starts.
var zeroStart = time.Unix(0, 0).UTC()

// init sets the clock up; c.mu is held, or c is not shared yet.
func (c *Clock) init(start time.Time, o options) {
	p, err := config.FloorPow2(o.precision)
	if err != nil {
		panic(fmt.Errorf("%w: WithPrecision(%v): the precision must be > 0", ErrInvalidOption, o.precision))
	}
	cfg, err := config.New(p, o.cfgOpts...)
	if err != nil {
		panic(fmt.Errorf("%w: %w", ErrInvalidOption, err))
	}
	c.cfg, c.origin, c.sorted, c.chunk = cfg, start.Round(0), cfg.Precision() == 0, defaultChunk
	c.collect = c.collectAlarm
	// Timers may skip the wheel only if it would take every one of them
	// later. Then tiny mode is on, and the wheel is made when a timer first
	// needs it (wheelOf), so a clock whose timers all stay in tiny mode
	// never makes one. Otherwise (short level bits without overflow) its reach
	// grows with its clock, arm must check each timer against it, and it
	// is made now.
	if c.tinyOK = fullReach(cfg); !c.tinyOK {
		c.w = newWheel(cfg)
	}
}

// fullReach reports whether a wheel made from cfg takes every time the clock
// represents from the start: its queue's level bits and its precision
// together span the 62 bits of a time (the default level bits do, as does
// any config WithOverflow). A reach only grows as the wheel's clock does,
// and config.New trims the level bits to 62 - A, so any other config
// reaches less at the start.
func fullReach(cfg config.Config) bool {
	return cfg.Precision().Log2()+cfg.QueueLevelBits().NumBits() >= levelbits.MaxNumBits
}

// wheelOf returns the clock's wheel, ready to take timers after wnow: made
// on first use, and its clock brought up to wnow when it is new or lagged
// while empty in tiny mode (SC3). c.mu is held.
func (c *Clock) wheelOf() *wheel {
	if c.w == nil {
		c.w = newWheel(c.cfg)
	}
	if c.w.now < c.wnow {
		c.collectTo(c.wnow) // empty: this only moves its clock
	}
	return c.w
}

// maxAllowed is the wheel's maxAllowed: the last time, in ns after the
// start, that the wheel takes (maxOffset while it has not been made: only a
// clock whose wheel would reach every time, fullReach, waits to make it).
func (c *Clock) maxAllowed() int64 {
	if c.w == nil {
		return maxOffset
	}
	return c.w.maxAllowed()
}

// ready makes the zero Clock usable on its first use; c.mu is held.
func (c *Clock) ready() {
	if c.collect == nil {
		c.init(zeroStart, options{precision: 1})
	}
}

// Now returns the simulated time; inside a callback, the callback's own time.
func (c *Clock) Now() time.Time {
	if c.ntraps.Load() > 0 {
		defer c.trap(methodNow, 0, time.Time{}, nil)()
	}
	return c.current()
}

func (c *Clock) current() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready()
	return c.timeOf(c.now)
}

func (c *Clock) timeOf(off int64) time.Time { return c.origin.Add(time.Duration(off)) }

// Since returns Now().Sub(t).
func (c *Clock) Since(t time.Time) time.Duration {
	if c.ntraps.Load() > 0 {
		defer c.trap(methodSince, 0, t, nil)()
	}
	return c.current().Sub(t)
}

// Until returns t.Sub(Now()).
func (c *Clock) Until(t time.Time) time.Duration {
	if c.ntraps.Load() > 0 {
		defer c.trap(methodUntil, 0, t, nil)()
	}
	return t.Sub(c.current())
}

// offsetOf returns the offset of t from the start, clamped to
// [0, maxOffset+1]; maxOffset+1 stands for "beyond the reach".
func (c *Clock) offsetOf(t time.Time) int64 {
	d := t.Sub(c.origin) // saturates at the extremes of time.Duration
	switch {
	case d < 0:
		return 0
	case d > maxOffset:
		return maxOffset + 1
	}
	return int64(d)
}

// after returns the offset now + d, for d <= 0 now, saturating at
// maxOffset+1.
func (c *Clock) after(d time.Duration) int64 {
	if d <= 0 {
		return c.now
	}
	if int64(d) > maxOffset-c.now {
		return maxOffset + 1
	}
	return c.now + int64(d)
}

// Advance is AdvanceTo(Now().Add(d)) (d <= 0: fire what is due now).
func (c *Clock) Advance(d time.Duration) {
	c.advance("Advance", 0, d, modeRelative, nil)
}

// AdvanceTo moves the clock forward to t, firing every timer due in order.
func (c *Clock) AdvanceTo(t time.Time) {
	c.runUntil("AdvanceTo", t)
}

// RunUntil is AdvanceTo and returns how many timers fired.
func (c *Clock) RunUntil(t time.Time) int {
	return c.runUntil("RunUntil", t)
}

func (c *Clock) runUntil(op string, t time.Time) int {
	c.mu.Lock()
	c.ready()
	c.mu.Unlock()
	off := c.offsetOf(t) // origin never changes once set
	if off > maxOffset {
		panic(fmt.Errorf("%w: %v is past %v", ErrOutOfRange, t, c.timeOf(maxOffset)))
	}
	n, _, _ := c.advance(op, off, 0, modeAbsolute, nil)
	return n
}

// Step fires the next instant's timers; false, doing nothing, with none.
func (c *Clock) Step() bool {
	_, moved, _ := c.advance("Step", 0, 0, modeStep, nil)
	return moved >= 0
}

// AdvanceNext is Step, reporting how far it moved and how many fired.
func (c *Clock) AdvanceNext() (time.Duration, int) {
	n, moved, _ := c.advance("AdvanceNext", 0, 0, modeStep, nil)
	return time.Duration(max(moved, 0)), n
}

// Run steps until no timer is left to fire (nil; timers beyond the clock's
// last instant stay pending, see the package doc) or ctx ends (ctx.Err()).
func (c *Clock) Run(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !c.Step() {
			return nil
		}
	}
}

// Next returns the time of the earliest pending timer, if any.
func (c *Clock) Next() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready()
	off, ok := c.nextLocked()
	if !ok {
		return time.Time{}, false
	}
	return c.timeOf(off), true
}

func (c *Clock) nextLocked() (int64, bool) {
	c.dropStale()
	var at int64
	ok := false
	if c.bpos < len(c.batch) {
		at, ok = c.batch[c.bpos].at, true
	}
	if len(c.early) > 0 && (!ok || c.early[0].at < at) {
		at, ok = c.early[0].at, true
	}
	if ok || c.w == nil {
		return at, ok
	}
	if c.sorted {
		// 1 ns precision: the interval number is the time, and cached.
		return c.w.q.MinKey()
	}
	lo, ok := c.w.q.MinTime(true)
	return lo, ok
}

// dropStale removes stale entries from the front of the batch and the top of
// the early heap.
func (c *Clock) dropStale() {
	for c.bpos < len(c.batch) && !c.batch[c.bpos].live() {
		c.batch[c.bpos] = entry{}
		c.bpos++
	}
	if c.bpos == len(c.batch) {
		c.batch, c.bpos = c.batch[:0], 0
	}
	for len(c.early) > 0 && !c.early[0].live() {
		c.early.pop()
	}
}

// take removes and returns the next entry due at or before target: the
// batch's head or the early heap's top, whichever is earlier; at equal times
// the batch's, which was scheduled first (an early entry at time a <= wnow
// was scheduled after the wheel passed a, and every batch entry at a was in
// the wheel then; an entry after wnow, in tiny mode, is after every batch
// entry).
func (c *Clock) take(target int64) (entry, bool) {
	c.dropStale()
	useBatch := c.bpos < len(c.batch)
	if len(c.early) > 0 && (!useBatch || c.early[0].at < c.batch[c.bpos].at) {
		if c.early[0].at > target {
			return entry{}, false
		}
		e := c.early.pop()
		// A timer that waited after wnow (tiny): the wheel is empty, so
		// its clock may simply be left behind (SC3).
		c.wnow = max(c.wnow, e.at)
		return e, true
	}
	if !useBatch || c.batch[c.bpos].at > target {
		return entry{}, false
	}
	e := c.batch[c.bpos]
	c.batch[c.bpos] = entry{}
	c.bpos++
	return e, true
}

// Modes of advance.
const (
	modeAbsolute = iota // to target
	modeRelative        // by d from Now()
	modeStep            // to the next instant a timer is due
)

// advance fires, in order, every timer due at or before its target and
// leaves the clock there. It returns how many timers fired, how far the
// clock moved (in modeStep, with nothing pending, 0 and -1) and the callbacks
// a trap took hold of, which go on on goroutines of their own. op names the
// call in the call log and in messages. async is the Advancing of
// AdvanceAsync or AdvanceNextAsync, whose goroutine runs this advance, and
// nil for every other call: the Advancing waits for the held callbacks and
// takes their panics, and advance sets its distance and closes its reached
// once Now() is the target.
func (c *Clock) advance(op string, target int64, d time.Duration, mode int, async *Advancing) (n int, moved int64, held []*cbRun) {
	if !c.adv.TryLock() {
		c.checkReentry(op)
		c.adv.Lock()
	}
	c.mu.Lock()
	c.ready()
	from := c.now
	var reached chan struct{}
	if async != nil {
		reached = async.reached
	}
	reach := func() { // under mu
		if reached != nil {
			async.moved = time.Duration(c.now - from)
			close(reached)
			reached = nil
		}
	}
	c.async = async != nil
	c.advancing, c.kickPending = true, false
	if c.logTB != nil {
		c.logTB.Logf("simclock: %s(%v) at %v", op, d, c.timeOf(c.now))
	}
	locked := true
	defer func() {
		if !locked {
			c.mu.Lock() // a callback panicked
		}
		c.inCall, c.running, c.async, c.advancing, c.holdable = false, nil, false, false, nil
		held, c.held = c.held, nil
		c.check(op)
		reach()
		c.mu.Unlock()
		c.adv.Unlock()
	}()
	switch mode {
	case modeAbsolute:
		// A target in the past still fires what is due now, as
		// Advance(d <= 0) does; the clock never goes back.
		target = max(target, c.now)
	case modeStep:
		var ok bool
		if target, ok = c.nextLocked(); !ok {
			return 0, -1, nil
		}
	case modeRelative:
		if target = c.after(d); target > maxOffset {
			panic(fmt.Errorf("%w: advance by %v from %v passes %v",
				ErrOutOfRange, d, c.timeOf(c.now), c.timeOf(maxOffset)))
		}
	}
	for {
		e, more := c.take(target)
		if !more {
			if c.wnow >= target {
				break
			}
			c.collectTo(target)
			continue
		}
		c.now = e.at
		if c.now == target {
			reach()
		}
		fired, f := c.fire(e, target)
		if !fired {
			continue
		}
		n++
		if f != nil {
			c.inCall, c.running = true, e.t
			c.mu.Unlock()
			locked = false
			if c.ntraps.Load() > 0 {
				c.runHoldable(f) // a trap may hold it: the advance goes on without it
			} else {
				runCallback(f) // a panic leaves the rest for the next call
			}
			c.mu.Lock()
			locked = true
			c.inCall, c.running = false, nil
		}
	}
	moved = max(target, from) - from
	c.now = max(c.now, target)
	return n, moved, nil // held is set by the deferred function
}

// cbRun is a callback run on a goroutine of its own while traps are open,
// so that a trap can hold it while the advance goes on (runHoldable).
type cbRun struct {
	gid      uint64        // its goroutine's id, set before the callback starts
	heldCh   chan struct{} // closed when a trap holds one of its calls
	done     chan struct{} // closed when it has returned
	awaited  bool          // an Advancing waits for it (and takes its panic)
	panicked any
}

// runHoldable runs a callback on a goroutine of its own and waits until it
// returns (a panic is passed on to the caller) or a trap holds one of its
// clock calls: then the callback goes on by itself once released, and the
// advance in progress keeps it in c.held.
func (c *Clock) runHoldable(f func()) {
	r := &cbRun{heldCh: make(chan struct{}), done: make(chan struct{})}
	go func() {
		gid := goid()
		c.mu.Lock()
		r.gid, c.holdable = gid, r
		c.mu.Unlock()
		defer func() {
			p := recover()
			c.mu.Lock()
			if c.holdable == r {
				c.holdable = nil
			}
			detached := isClosed(r.heldCh)
			r.panicked = p
			c.mu.Unlock()
			close(r.done)
			if p != nil && detached && !r.awaited {
				panic(p) // nobody waits for it: as a panic in time.AfterFunc's goroutine
			}
		}()
		runCallback(f)
	}()
	select {
	case <-r.done:
		if r.panicked != nil {
			panic(r.panicked)
		}
	case <-r.heldCh:
	}
}

// holdCallback is called by a trap that has caught a call: if the caller is
// the callback that the advance in progress runs with runHoldable, the
// advance stops waiting for it.
func (c *Clock) holdCallback() {
	c.mu.Lock()
	r := c.holdable
	c.mu.Unlock()
	if r == nil || r.gid != goid() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holdable != r {
		return
	}
	c.holdable = nil
	r.awaited = c.async
	c.held = append(c.held, r)
	close(r.heldCh)
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// goid returns the calling goroutine's id, from the first line of its stack
// trace ("goroutine 18 [running]:"). It runs only when a trap catches a call.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = b[len("goroutine "):]
	var id uint64
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			break
		}
		id = id*10 + uint64(ch-'0')
	}
	return id
}

// kick makes the timers due now fire without waiting for a call that drives
// the clock: an advance in progress takes them, else a goroutine of its own
// advances by 0. c.mu is held.
func (c *Clock) kick() {
	if c.advancing || c.kickPending {
		return
	}
	c.kickPending = true
	go c.advance("AfterFunc", 0, 0, modeRelative, nil)
}

// defaultChunk is how many alarms an advance takes from the wheel at a time,
// so that the batch stays small however many timers an advance fires.
const defaultChunk = 256

// collectTo takes the next alarms due up to target from the wheel into the
// batch, in order, and moves wnow to just before the first alarm it left.
func (c *Clock) collectTo(target int64) {
	if c.w == nil {
		c.wnow = max(c.wnow, target) // no wheel, nothing to take
		return
	}
	from := len(c.batch)
	// With 1 ns precision, advancing the wheel to target+1 takes exactly the
	// alarms at or before target. Otherwise the wheel goes to target and
	// FirePastAlarms takes the alarms of target's interval up to target; it
	// scans that interval's slot on every level, which the first way avoids.
	exact := c.sorted && target < maxOffset
	to := target
	if exact {
		to++
	}
	if want := min(c.chunk, c.w.q.Len()); cap(c.batch)-from < want {
		// Size the batch once for the chunk instead of doubling it up.
		c.batch = slices.Grow(c.batch, want)
	}
	done := c.w.advanceLimit(to, c.chunk, c.collect)
	switch {
	case done && exact:
		c.wnow = target
	case done:
		c.w.firePast(c.collect) // the alarms at target itself
		c.wnow = target
	default:
		// The wheel stopped at the start of an interval whose alarms it
		// has not taken.
		c.wnow = max(c.wnow, c.w.now-1)
	}
	if !c.sorted {
		// A coarse wheel fires by interval, FIFO within one: a stable sort
		// by time gives (time, scheduling) order.
		slices.SortStableFunc(c.batch[from:], func(a, b entry) int { return cmp.Compare(a.at, b.at) })
	}
}

// collectAlarm is the wheel's handler: it moves a fired alarm's timer to the
// batch. It runs under mu and calls no user code and nothing of the wheel.
func (c *Clock) collectAlarm(t *timer) {
	t.state = stateDue
	c.batch = append(c.batch, entry{t: t, seq: t.seq, at: t.at})
}

// fire fires a batch entry under mu, in an advance to target: it sends a
// channel timer's value, re-arms a ticker, or returns an AfterFunc or
// TickerFunc callback for the caller to run unlocked.
// It reports false for a stale entry.
func (c *Clock) fire(e entry, target int64) (bool, func()) {
	t := e.t
	if !e.live() {
		return false, nil
	}
	switch {
	case t.period() > 0:
		t.state = stateIdle // re-armed at once, still a waiter
		p := int64(t.x.period)
		next := c.after(time.Duration(p))
		if t.x.ch != nil && !t.send(c.timeOf(c.now)) {
			// Nobody has received the last tick, so the ticks until the
			// advance's target would be dropped too, unless someone
			// receives meanwhile: skip to the last of them, which is
			// delivered if the channel has room by then. So an unread
			// ticker costs O(1) per advance, not one fire per period. The
			// skip stays within the wheel's reach, which counts from the
			// wheel's clock: with short level bits and no WithOverflow that
			// may lag the target while the advance goes chunk by chunk
			// (the ticker then fires once per chunk instead).
			k := (target - c.now) / p
			k = min(k, (c.maxAllowed()-c.now)/p)
			if k > 1 {
				next = c.now + k*p
			}
		}
		if err := c.arm(t, next); err != nil {
			c.live--
			if t.waiter {
				c.addWaiters(-1)
			}
			panic(err)
		}
		return true, t.f // a TickerFunc's callback, re-armed before it runs
	case t.ch() != nil:
		c.setIdle(t)
		t.send(c.timeOf(c.now))
	default:
		c.setIdle(t)
		return true, t.f
	}
	return true, nil
}

// Waiters counts pending Sleeps, channel timers, tickers and deadlines.
func (c *Clock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiters
}

// BlockUntil is BlockUntilContext without a way out (clockwork's).
func (c *Clock) BlockUntil(n int) {
	_ = c.waitWaiters(context.Background(), func(w int) bool { return w >= n })
}

// BlockUntilContext waits until Waiters() >= n (clockwork v0.5) or ctx ends.
func (c *Clock) BlockUntilContext(ctx context.Context, n int) error {
	return c.waitWaiters(ctx, func(w int) bool { return w >= n })
}

// Len counts every pending timer, AfterFunc and TickerFunc included, and
// those beyond the clock's last instant, which never fire.
func (c *Clock) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live
}

// waitWaiters waits until ok(waiters) or ctx ends. The count is checked
// under mu at every change, so a wait sees every value the count takes, even
// one it holds only for an instant.
func (c *Clock) waitWaiters(ctx context.Context, ok func(int) bool) error {
	c.mu.Lock()
	if ok(c.waiters) {
		c.mu.Unlock()
		return nil
	}
	b := &blocked{ok: ok, done: make(chan struct{})}
	c.blocked = append(c.blocked, b)
	c.mu.Unlock()
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		defer c.mu.Unlock()
		select {
		case <-b.done: // met meanwhile
			return nil
		default:
		}
		c.blocked = slices.DeleteFunc(c.blocked, func(x *blocked) bool { return x == b })
		return ctx.Err()
	}
}

// blocked is a goroutine in waitWaiters.
type blocked struct {
	ok   func(int) bool
	done chan struct{}
}

func (c *Clock) addWaiters(delta int) {
	c.waiters += delta
	if len(c.blocked) == 0 {
		return
	}
	c.blocked = slices.DeleteFunc(c.blocked, func(b *blocked) bool {
		if b.ok(c.waiters) {
			close(b.done)
			return true
		}
		return false
	})
}
