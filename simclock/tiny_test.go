package simclock

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/invariant"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// clockInvariant runs c's invariants (SC1 to SC5 and the wheel's) under
// its lock.
func clockInvariant(c *Clock) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.invariant()
}

// wheelLen returns how many timers c's wheel holds (0 before it is made).
func wheelLen(c *Clock) int {
	if c.w == nil {
		return 0
	}
	return c.w.q.Len()
}

// checkClock fails t unless c keeps its invariants.
func checkClock(t *testing.T, c *Clock, what string) {
	t.Helper()
	if err := clockInvariant(c); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// A clock with few timers keeps them in the early heap; the timer that
// takes it past tinyMax moves them all into the wheel, and the timers fire
// in (time, scheduling) order across the move, ties included. The reference
// order is a sort of the schedules, not the clock's own.
func TestTinyModeMovesToTheWheel(t *testing.T) {
	for _, extra := range []int{0, 1, 40} {
		c := New(time.Unix(0, 0))
		var got []int
		type sched struct {
			id int
			at time.Duration
		}
		var want []sched
		add := func(d time.Duration) Timer {
			id := len(want)
			want = append(want, sched{id, d})
			return c.AfterFunc(d, func() { got = append(got, id) })
		}
		for i := range tinyMax {
			add(time.Duration(1 + (i*7919)%50)) // many share a time
		}
		if wheelLen(c) != 0 || !c.tiny || len(c.early) != tinyMax {
			t.Fatalf("after %d timers: %d in the wheel, %d in the early heap, tiny %v; want 0, %d, true",
				tinyMax, wheelLen(c), len(c.early), c.tiny, tinyMax)
		}
		checkClock(t, c, "tiny")
		for i := range extra {
			add(time.Duration(1 + (i*31)%50)) // the same times, scheduled later
		}
		if extra > 0 && (wheelLen(c) != tinyMax+extra || c.tiny || len(c.early) != 0) {
			t.Fatalf("after %d timers: %d in the wheel, %d in the early heap, tiny %v; want %d, 0, false",
				tinyMax+extra, wheelLen(c), len(c.early), c.tiny, tinyMax+extra)
		}
		checkClock(t, c, "after the move")
		c.Advance(time.Second)
		slices.SortStableFunc(want, func(a, b sched) int { return cmp.Compare(a.at, b.at) })
		var order []int
		for _, s := range want {
			order = append(order, s.id)
		}
		if !slices.Equal(got, order) {
			t.Fatalf("extra %d: fired %v, want %v", extra, got, order)
		}
		checkClock(t, c, "after the advance")
	}
}

// Stop and Reset work on timers in the early heap, a callback may schedule
// timers in tiny mode and past it, and a clock whose wheel empties takes
// new timers into the early heap again.
func TestTinyModeStopResetAndReturn(t *testing.T) {
	c := New(time.Unix(0, 0))
	var got []string
	a := c.AfterFunc(10, func() { got = append(got, "a") })
	b := c.AfterFunc(20, func() { got = append(got, "b") })
	c.AfterFunc(30, func() {
		got = append(got, "c")
		for i := range tinyMax + 1 { // from a callback: past tiny mode
			c.AfterFunc(time.Duration(5+i%3), func() { got = append(got, "x") })
		}
	})
	if !a.Stop() || a.Stop() {
		t.Fatal("Stop of a timer in the early heap: want true, then false")
	}
	if !b.Reset(40) {
		t.Fatal("Reset of a pending timer in the early heap: want true")
	}
	checkClock(t, c, "after Stop and Reset")
	c.Advance(30)
	// The callback's timers and b (reset to 40) are all in the wheel now.
	if !slices.Equal(got, []string{"c"}) || c.tiny || wheelLen(c) != tinyMax+2 {
		t.Fatalf("at 30: fired %v, tiny %v, %d in the wheel; want [c], false, %d", got, c.tiny, wheelLen(c), tinyMax+2)
	}
	checkClock(t, c, "at 30")
	c.Advance(100)
	want := []string{"c"}
	for range tinyMax + 1 {
		want = append(want, "x") // at 35, 36, 37
	}
	want = append(want, "b") // at 40
	if !slices.Equal(got, want) {
		t.Fatalf("at 130: fired %v, want %v", got, want)
	}
	if wheelLen(c) != 0 {
		t.Fatalf("the wheel holds %d timers after they all fired", wheelLen(c))
	}
	c.AfterFunc(time.Hour, func() {})
	if !c.tiny || wheelLen(c) != 0 || len(c.early) != 1 {
		t.Fatalf("a timer on an empty clock: tiny %v, %d in the wheel, %d in the early heap; want true, 0, 1",
			c.tiny, wheelLen(c), len(c.early))
	}
	checkClock(t, c, "back in tiny mode")
}

// With short level bits and no overflow the wheel's reach is limited, so
// every timer goes to the wheel, which checks it: tiny mode is off, and a
// timer beyond the reach is refused as before.
func TestTinyModeOffWithShortLevels(t *testing.T) {
	lb, err := levelbits.New(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	c := New(time.Unix(0, 0), WithLevelBits(lb), WithPrecision(8))
	c.AfterFunc(100, func() {})
	if c.tiny || wheelLen(c) != 1 {
		t.Fatalf("tiny %v, %d in the wheel; want false, 1", c.tiny, wheelLen(c))
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("a timer beyond the reach was accepted")
		}
	}()
	c.AfterFunc(time.Hour, func() {})
}

// Each clause of SC1 to SC5 is caught when corrupted alone.
func TestClockInvariantCorruption(t *testing.T) {
	tinyClock := func() *Clock {
		c := New(time.Unix(0, 0))
		for i := range 10 {
			c.AfterFunc(time.Duration(100-i), func() {})
		}
		return c
	}
	// tinyWheelClock: in tiny mode with a wheel made earlier, now empty.
	tinyWheelClock := func() *Clock {
		c := New(time.Unix(0, 0))
		for i := range tinyMax + 1 {
			c.AfterFunc(time.Duration(1+i), func() {})
		}
		c.Advance(time.Second)
		for i := range 10 {
			c.AfterFunc(time.Duration(100-i), func() {})
		}
		if c.w == nil || !c.tiny {
			panic("tinyWheelClock: want a wheel and tiny mode")
		}
		return c
	}
	wheelClock := func() *Clock {
		c := New(time.Unix(0, 0))
		for i := range tinyMax + 10 {
			c.AfterFunc(time.Duration(100+i), func() {})
		}
		c.Advance(50)
		return c
	}
	// batchClock: a callback panicked in an advance and left the rest of
	// the batch, timers at distinct times, for the next call.
	batchClock := func() *Clock {
		c := New(time.Unix(0, 0))
		c.AfterFunc(100, func() { panic("stop") })
		for i := range tinyMax + 10 {
			c.AfterFunc(time.Duration(101+i), func() {})
		}
		func() {
			defer func() { _ = recover() }()
			c.Advance(time.Second)
		}()
		if len(c.batch)-c.bpos < 2 {
			panic("batchClock: want at least two entries left in the batch")
		}
		return c
	}
	for _, tc := range []struct {
		name, id string
		corrupt  func(c *Clock)
		make     func() *Clock
	}{
		{"batch out of order", "SC5", func(c *Clock) {
			c.batch[c.bpos], c.batch[c.bpos+1] = c.batch[c.bpos+1], c.batch[c.bpos]
		}, batchClock},
		{"batch out of scheduling order at one time", "SC5", func(c *Clock) {
			c.batch[c.bpos+1].at = c.batch[c.bpos].at
			c.batch[c.bpos].seq, c.batch[c.bpos+1].seq = c.batch[c.bpos+1].seq, c.batch[c.bpos].seq
		}, batchClock},
		{"a batch entry after wnow", "SC5", func(c *Clock) { c.batch[len(c.batch)-1].at = c.wnow + 1 }, batchClock},
		{"early heap out of order", "SC1", func(c *Clock) { c.early[0], c.early[len(c.early)-1] = c.early[len(c.early)-1], c.early[0] }, tinyClock},
		{"tiny with a wheel that holds timers", "SC2", func(c *Clock) { c.tiny = true }, wheelClock},
		{"a wheel timer at wnow", "SC2", func(c *Clock) { c.wnow = c.nextWheelTime(); c.now = c.wnow }, wheelClock},
		{"no wheel yet, of short reach", "SC2", func(c *Clock) { c.tinyOK = false }, tinyClock},
		{"tiny on a wheel of short reach", "SC2", func(c *Clock) { c.tinyOK = false }, tinyWheelClock},
		{"early heap out of order, with a wheel", "SC1", func(c *Clock) { c.early[0], c.early[len(c.early)-1] = c.early[len(c.early)-1], c.early[0] }, tinyWheelClock},
		{"a timer after wnow outside tiny mode, with a wheel", "SC2", func(c *Clock) { c.tiny = false }, tinyWheelClock},
		{"now past wnow, no wheel", "SC3", func(c *Clock) { c.now = c.wnow + 1 }, tinyClock},
		{"tiny with more than tinyMax entries", "SC2", func(c *Clock) {
			for len(c.early) <= tinyMax {
				c.seq++
				c.early = append(c.early, entry{t: c.early[0].t, at: maxOffset, seq: c.seq})
			}
		}, tinyWheelClock},
		{"a timer after wnow in the early heap outside tiny mode", "SC2", func(c *Clock) { c.tiny = false }, tinyClock},
		{"now past wnow", "SC3", func(c *Clock) { c.now = c.wnow + 1 }, wheelClock},
		{"the wheel's clock past wnow+1", "SC3", func(c *Clock) { c.wnow = c.w.now - 2; c.now = min(c.now, c.wnow) }, wheelClock},
		{"the wheel's clock lags outside tiny mode", "SC3", func(c *Clock) { c.wnow = c.w.now + 1 }, wheelClock},
		{"Len one short", "SC4", func(c *Clock) { c.live-- }, tinyClock},
		{"Len one over, with a wheel", "SC4", func(c *Clock) { c.live++ }, wheelClock},
		{"a parked timer not counted", "SC4", func(c *Clock) { c.nparked++ }, tinyWheelClock},
	} {
		c := tc.make()
		checkClock(t, c, tc.name+" (before)")
		c.mu.Lock()
		tc.corrupt(c)
		err := c.invariant()
		c.mu.Unlock()
		if invariant.IDOf(err) != tc.id {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.id)
		}
	}
}

// Stop and Reset leave stale entries in the early heap; in tiny mode it is
// not compacted, so a full tiny heap must end tiny mode before it grows
// further, whether the timers are reset to now or later: the heap stays
// within a bound however many resets come, and the timers still fire once
// each, at their last times.
func TestTinyModeHeapStaysBounded(t *testing.T) {
	for _, d := range []time.Duration{0, 5} {
		c := New(time.Unix(0, 0))
		c.adv.Lock() // the timers reset to now fire at the Advance below, not at once (kick)
		fired := make([]int, 3)
		var ts []Timer
		for i := range fired {
			ts = append(ts, c.AfterFunc(time.Duration(10+i), func() { fired[i]++ }))
		}
		most := 0
		for i := range 10_000 {
			ts[i%3].Reset(d)
			most = max(most, len(c.early))
		}
		if most > 2*tinyMax {
			t.Fatalf("Reset(%v) 10,000 times: the early heap reached %d entries, more than 2*tinyMax", d, most)
		}
		checkClock(t, c, "after the resets")
		c.adv.Unlock()
		c.Advance(time.Second)
		if !slices.Equal(fired, []int{1, 1, 1}) {
			t.Fatalf("Reset(%v): fires %v, want one each", d, fired)
		}
	}
}

// nextWheelTime returns the earliest time of a timer in c's wheel, which
// must hold one.
func (c *Clock) nextWheelTime() int64 {
	lo, _, ok := c.w.q.MinTimes(true)
	if !ok {
		panic("nextWheelTime: the wheel is empty")
	}
	return lo
}

// A clock made with the default options makes no wheel until a timer needs
// one: a clock whose timers all stay in tiny mode never does. The wheel it
// makes reaches every time, as tiny mode assumes of it (tinyOK).
func TestDefaultClockMakesItsWheelWhenNeeded(t *testing.T) {
	c := New(time.Unix(0, 0))
	for i := range 10 {
		c.AfterFunc(time.Duration(i+1), func() {})
	}
	c.Advance(time.Second)
	if c.w != nil {
		t.Fatal("a clock that held 10 timers made a wheel")
	}
	checkClock(t, c, "without a wheel")
	var zero Clock
	zero.AfterFunc(1, func() {})
	if zero.w != nil || !zero.tinyOK {
		t.Fatalf("the zero Clock: wheel %v, tinyOK %v; want none, true", zero.w != nil, zero.tinyOK)
	}
	for i := range tinyMax + 1 {
		c.AfterFunc(time.Duration(i+1), func() {})
	}
	if c.w == nil || wheelLen(c) != tinyMax+1 {
		t.Fatalf("after %d timers: wheel made %v, holding %d", tinyMax+1, c.w != nil, wheelLen(c))
	}
	if got := c.w.maxAllowed(); got < maxOffset {
		t.Fatalf("the default wheel reaches %d, not every time (%d)", got, int64(maxOffset))
	}
	checkClock(t, c, "with its wheel")
}

// fullReach, which decides from the config alone whether a clock may wait
// to make its wheel, agrees with the reach of the wheel the config makes,
// for every precision and level bits that reach every time, fall one bit
// short, or fall far short, with and without overflow.
func TestFullReachAgreesWithTheWheel(t *testing.T) {
	short := func(bits ...int) levelbits.LevelBits {
		lb, err := levelbits.New(bits...)
		if err != nil {
			t.Fatal(err)
		}
		return lb
	}
	lbs := []levelbits.LevelBits{
		levelbits.Default(),
		short(11, 10, 10, 10, 10, 10), // 61 bits
		short(10, 10, 6, 6, 5, 3),     // 40 bits (config.MicrosecondPrecision's)
		short(2, 2),
		short(31, 31),
	}
	seen := map[bool]int{}
	for p := config.AlarmPrecision(0); p <= config.MaxPrecisionLog2; p++ {
		for _, lb := range lbs {
			for _, overflow := range []bool{false, true} {
				opts := []config.Option{config.WithLevelBits(lb)}
				if overflow {
					opts = append(opts, config.WithOverflow())
				}
				cfg, err := config.New(p, opts...)
				if err != nil {
					t.Fatal(err)
				}
				want := newWheel(cfg).maxAllowed() >= maxOffset
				if got := fullReach(cfg); got != want {
					t.Fatalf("%v: fullReach %v, the wheel reaches every time: %v", cfg, got, want)
				}
				seen[want]++
			}
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("only one answer came up: %v", seen)
	}
}

// Any options whose wheel reaches every time, not only the default ones,
// let a clock wait to make its wheel (and keep tiny mode); short level bits
// without overflow make it at once.
func TestLazyWheelForEveryFullReach(t *testing.T) {
	short, err := levelbits.New(10, 10, 6, 6, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []Option
		lazy bool
	}{
		{"default", nil, true},
		{"precision 1us", []Option{WithPrecision(time.Microsecond)}, true},
		{"default level bits given", []Option{WithLevelBits(levelbits.Default())}, true},
		{"short level bits with overflow", []Option{WithLevelBits(short), WithOverflow()}, true},
		{"short level bits", []Option{WithLevelBits(short)}, false},
	} {
		c := New(time.Unix(0, 0), tc.opts...)
		if made := c.w != nil; made == tc.lazy {
			t.Fatalf("%s: a new clock made its wheel: %v, want %v", tc.name, made, !tc.lazy)
		}
		if c.tinyOK != tc.lazy {
			t.Fatalf("%s: tinyOK %v, want %v", tc.name, c.tinyOK, tc.lazy)
		}
		var got []int
		for i := range tinyMax + 2 {
			d := time.Duration(tinyMax+2-i) * time.Millisecond
			c.AfterFunc(d, func() { got = append(got, i) })
		}
		if c.w == nil {
			t.Fatalf("%s: %d timers and no wheel", tc.name, tinyMax+2)
		}
		checkClock(t, c, tc.name)
		c.Advance(time.Duration(tinyMax+2) * time.Millisecond) // to the first timer's time
		if len(got) != tinyMax+2 || !slices.IsSortedFunc(got, func(a, b int) int { return cmp.Compare(b, a) }) {
			t.Fatalf("%s: fired %v, want %d timers, latest scheduled first", tc.name, got, tinyMax+2)
		}
		checkClock(t, c, tc.name+" after the advance")
	}
}

// A wheel made outside tiny mode (the early heap full of timers due now,
// then a later one) starts with its clock at wnow (SC3), and the timers fire
// in order.
func TestLazyWheelMadeOutsideTinyMode(t *testing.T) {
	c := New(time.Unix(0, 0))
	c.Advance(10) // wnow = 10, no timer yet: no tiny mode, no wheel
	c.adv.Lock()  // the timers due now stay due until the Advance below (kick)
	var got []int
	for i := range tinyMax {
		c.AfterFunc(0, func() { got = append(got, i) }) // due now: the early heap
	}
	c.AfterFunc(5, func() { got = append(got, -1) }) // the heap is full: a new wheel
	if c.w == nil || c.tiny {
		t.Fatalf("wheel made %v, tiny %v; want a wheel, not tiny", c.w != nil, c.tiny)
	}
	checkClock(t, c, "with the new wheel")
	c.adv.Unlock()
	c.Advance(100)
	want := []int{}
	for i := range tinyMax {
		want = append(want, i)
	}
	want = append(want, -1)
	if !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	checkClock(t, c, "after the advance")
}

// A clock whose early heap holds half a tiny heap or more of timers due now
// does not enter tiny mode for a later timer: entering it there and leaving
// it at the next timer would sort the whole heap at every other schedule.
// Below half, it enters.
func TestTinyModeNeedsRoomToEnter(t *testing.T) {
	for _, due := range []int{tinyMax/2 - 1, tinyMax / 2, tinyMax - 1} {
		c := New(time.Unix(0, 0))
		c.adv.Lock() // the timers due now stay due until the Advance below (kick)
		for range due {
			c.AfterFunc(0, func() {}) // due now: the early heap, not tiny mode
		}
		if c.tiny {
			t.Fatalf("%d timers due now: tiny mode on", due)
		}
		fired := 0
		for i := range 100 {
			x := c.AfterFunc(5, func() { fired++ })
			y := c.AfterFunc(6, func() { fired++ })
			enter := due < tinyMax/2
			if i == 0 && c.tiny != enter {
				t.Fatalf("%d due now, two later timers: tiny %v, want %v", due, c.tiny, enter)
			}
			if !enter && (c.tiny || wheelLen(c) != 2) {
				t.Fatalf("%d due now, round %d: tiny %v, %d in the wheel; want the later two in the wheel", due, i, c.tiny, wheelLen(c))
			}
			if !x.Stop() || !y.Stop() {
				t.Fatalf("%d due now, round %d: a later timer was not pending", due, i)
			}
			checkClock(t, c, "after the stops")
		}
		c.adv.Unlock()
		c.Advance(10)
		if fired != 0 {
			t.Fatalf("%d stopped timers fired", fired)
		}
	}
}
