package simclock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/levelbits"
	"pgregory.net/rapid"
)

// The reference model: a list of timers, each with a time and a sequence
// number; the next to fire is the active one with the smallest (at, seq),
// found by sorting. It knows nothing of wheels.

type kind int

const (
	kFunc kind = iota
	kChan
	kTick
	kTickFunc // TickerFunc: a callback every period until its limit-th call
)

func (k kind) String() string { return [...]string{"func", "chan", "tick", "tickfunc"}[k] }

// action is one thing a func timer's callback does to the clock when it
// fires. Targets may be tickers, and the callback's own timer; d may be zero
// or negative (due at once: the same-instant path). A callback acts only on
// its first actingFires fires, so that a timer that resets itself to now, or
// two that reset each other, stop acting.
type action struct {
	op     int // 0 nothing, 1 stop target, 2 reset target to d, 3 AfterFunc(d) doing sub
	target int
	d      time.Duration
	sub    []action
}

const actingFires = 2

type mTimer struct {
	kind   kind
	active bool
	at     int64
	seq    int
	period int64
	buf    *int64 // the value waiting in the channel
	acts   []action
	fires  int
	limit  int // kTickFunc: f returns an error on this call
}

// fire is what a callback (AfterFunc or TickerFunc) sees when it runs: its
// timer's id, Now, and the ids of the channel timers and tickers whose
// channel holds a value then. So the order of channel fires against
// callbacks is checked as a callback can observe it, through the channels,
// and the clock needs no hook for the test.
type fire struct {
	id   int
	at   int64
	held string
}

func (f fire) String() string { return fmt.Sprintf("%d@%d[%s]", f.id, f.at, f.held) }

type model struct {
	now    int64
	seq    int
	timers []*mTimer
	trace  []fire
	rets   []bool // return values of Stop and Reset inside callbacks
	fires  int    // every fire so far, of every kind (RunUntil counts them)
}

func (m *model) schedule(t *mTimer, d int64) {
	t.at = m.now + max(d, 0)
	m.seq++
	t.seq = m.seq
	t.active = true
}

// next returns the id of the active timer to fire next, or -1.
func (m *model) next() int {
	var ids []int
	for id, t := range m.timers {
		if t.active {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b int) int {
		ta, tb := m.timers[a], m.timers[b]
		// cmp.Compare, not a difference: where int is 32 bits the far
		// timers' times (2^50 ns) do not fit one.
		return cmp.Or(cmp.Compare(ta.at, tb.at), cmp.Compare(ta.seq, tb.seq))
	})
	if len(ids) == 0 {
		return -1
	}
	return ids[0]
}

func (m *model) advance(target int64) {
	for {
		id := m.next()
		if id < 0 || m.timers[id].at > target {
			break
		}
		t := m.timers[id]
		m.now = t.at
		m.fires++
		switch t.kind {
		case kFunc:
			t.active = false
			m.trace = append(m.trace, fire{id, m.now, m.held()})
			if t.fires++; t.fires <= actingFires {
				for _, a := range t.acts {
					m.do(a)
				}
			}
		case kChan:
			t.active = false
			at := m.now
			t.buf = &at
		case kTickFunc:
			// Re-armed before f runs; f acts, then on its limit-th call
			// returns an error, which stops the ticker.
			m.schedule(t, t.period)
			m.trace = append(m.trace, fire{id, m.now, m.held()})
			if t.fires++; t.fires <= actingFires {
				for _, a := range t.acts {
					m.do(a)
				}
			}
			if t.fires == t.limit {
				t.active = false
			}
		case kTick:
			next := t.period
			if t.buf == nil {
				at := m.now
				t.buf = &at
			} else if k := (target - m.now) / t.period; k > 1 {
				// Unread: skip to the last tick at or before target.
				next = k * t.period
			}
			m.schedule(t, next)
		}
	}
	m.now = max(m.now, target)
}

// do applies a; a ticker's Stop and Reset return nothing.
func (m *model) do(a action) {
	switch a.op {
	case 1:
		was := m.stop(a.target)
		if m.timers[a.target].kind != kTick {
			m.rets = append(m.rets, was)
		}
	case 2:
		was := m.reset(a.target, int64(a.d))
		if m.timers[a.target].kind != kTick {
			m.rets = append(m.rets, was)
		}
	case 3:
		t := &mTimer{kind: kFunc, acts: a.sub}
		m.schedule(t, int64(a.d))
		m.timers = append(m.timers, t)
	}
}

func (m *model) stop(id int) bool {
	t := m.timers[id]
	was := t.active || t.buf != nil
	t.active, t.buf = false, nil
	return was
}

func (m *model) reset(id int, d int64) bool {
	t := m.timers[id]
	was := m.stop(id)
	switch {
	case t.kind == kTick:
		t.period = d
		m.schedule(t, d)
	case t.kind == kChan && d <= 0:
		at := m.now
		t.buf = &at
	default:
		m.schedule(t, d)
	}
	return was
}

// held returns the ids of the channel timers and tickers holding a value.
func (m *model) held() string {
	var ids []string
	for id, t := range m.timers {
		if t.buf != nil {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	return strings.Join(ids, ",")
}

func (m *model) waiters() int {
	n := 0
	for _, t := range m.timers {
		if t.active && t.kind != kFunc && t.kind != kTickFunc {
			n++
		}
	}
	return n
}

// real is the clock under test with its timers in the model's id order.
type real struct {
	c      *Clock
	timers []any // Timer, Ticker or tickFunc
	trace  []fire
	rets   []bool
}

func (r *real) add(x any) { r.timers = append(r.timers, x) }

// chanOf returns the channel of timer id, or nil for a callback.
func (r *real) chanOf(id int) <-chan time.Time {
	switch x := r.timers[id].(type) {
	case Timer:
		return x.C()
	case Ticker:
		return x.C()
	}
	return nil
}

// held returns the ids of the channel timers and tickers holding a value
// (a timer's channel holds one at most, so its length says).
func (r *real) held() string {
	var ids []string
	for id := range r.timers {
		if len(r.chanOf(id)) > 0 {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	return strings.Join(ids, ",")
}

// fired records a callback's fire as the callback sees it.
func (r *real) fired(id int) {
	r.trace = append(r.trace, fire{id, int64(r.c.Now().Sub(t0)), r.held()})
}

func (r *real) do(a action) {
	switch a.op {
	case 1:
		switch x := r.timers[a.target].(type) {
		case Timer:
			r.rets = append(r.rets, x.Stop())
		case Ticker:
			x.Stop()
		}
	case 2:
		switch x := r.timers[a.target].(type) {
		case Timer:
			r.rets = append(r.rets, x.Reset(a.d))
		case Ticker:
			x.Reset(a.d)
		}
	case 3:
		r.newFunc(a.d, a.sub)
	}
}

// tickFunc stands for a TickerFunc in real.timers: it has no Stop or Reset.
type tickFunc struct{}

// newTickFunc makes a TickerFunc whose f records its fire, does acts on its
// first actingFires calls, and returns an error on its limit-th.
func (r *real) newTickFunc(p time.Duration, limit int, acts []action) {
	id := len(r.timers)
	r.timers = append(r.timers, tickFunc{})
	fires := 0
	r.c.TickerFunc(context.Background(), p, func() error {
		r.fired(id)
		if fires++; fires <= actingFires {
			for _, a := range acts {
				r.do(a)
			}
		}
		if fires == limit {
			return errors.New("limit")
		}
		return nil
	})
}

// newFunc makes a func timer whose callback checks the clock's invariants
// (in the middle of an advance, with no lock held), records its fire and
// does acts on its first actingFires fires.
func (r *real) newFunc(d time.Duration, acts []action) {
	id := len(r.timers)
	fires := 0
	tm := r.c.AfterFunc(d, func() {
		if err := clockInvariant(r.c); err != nil {
			panic(fmt.Sprintf("in the callback of timer %d: %v", id, err))
		}
		r.fired(id)
		if fires++; fires <= actingFires {
			for _, a := range acts {
				r.do(a)
			}
		}
	})
	r.add(tm)
}

func drawD(t *rapid.T, label string) time.Duration {
	scale := rapid.SampledFrom([]time.Duration{1, 1 << 20, 1 << 24}).Draw(t, label+"Scale")
	return time.Duration(rapid.Int64Range(-2, 30).Draw(t, label)) * scale
}

// TestModel drives the clock and the model with the same random operations
// and compares the callbacks' fires (which timer, at which time, with which
// channels holding a value), which channels hold a value after each
// operation, how many timers each advance fires (RunUntil's count), Now,
// Next, Waiters, the return values of Stop and Reset, and every value
// received.
// Callbacks stop and reset any timer or ticker, themselves included, and make
// AfterFunc timers that act in turn, with d <= 0 too: the timers due at the
// instant being fired, which take the early heap.
func TestModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var opts []Option
		switch rapid.IntRange(0, 3).Draw(t, "wheel") {
		case 1:
			opts = append(opts, WithPrecision(8))
		case 2:
			lb, _ := levelbits.New(3, 3)
			opts = append(opts, WithLevelBits(lb), WithOverflow())
		case 3:
			opts = append(opts, WithPrecision(time.Microsecond))
		}
		c := New(t0, opts...)
		c.chunk = rapid.SampledFrom([]int{1, 2, 3, defaultChunk}).Draw(t, "chunk")
		r := &real{c: c}
		m := &model{}

		// drawActs draws what a callback does. Its targets are the timers
		// that exist now, and with self, the timer about to be made (whose
		// id is len(m.timers)); depth bounds the nesting of AfterFunc.
		var drawActs func(t *rapid.T, self bool, depth int) []action
		drawActs = func(t *rapid.T, self bool, depth int) []action {
			var acts []action
			for range rapid.IntRange(0, 2).Draw(t, "nacts") {
				a := action{op: rapid.IntRange(0, 3).Draw(t, "op"), d: drawD(t, "d")}
				n := len(m.timers)
				if self {
					n++
				}
				switch {
				case a.op == 3 && depth > 0:
					a.sub = drawActs(t, false, depth-1)
				case a.op == 3:
					a.sub = nil
				case a.op > 0 && n == 0:
					a.op = 0
				case a.op > 0:
					a.target = rapid.IntRange(0, n-1).Draw(t, "target")
					if a.target < len(m.timers) && m.timers[a.target].kind == kTickFunc {
						a.op = 0 // no Stop or Reset
					}
					if a.target < len(m.timers) && m.timers[a.target].kind == kTick {
						// A ticker's Reset takes a period, as NewTicker's.
						a.d = time.Duration(rapid.Int64Range(1, 10).Draw(t, "p")) << 20
					}
				}
				acts = append(acts, a)
			}
			return acts
		}
		// newFunc creates a func timer whose callback does acts, in both.
		newFunc := func(d time.Duration, acts []action) {
			r.newFunc(d, acts)
			mt := &mTimer{kind: kFunc, acts: acts}
			m.schedule(mt, int64(d))
			m.timers = append(m.timers, mt)
		}
		check := func(t *rapid.T, what string) {
			if err := clockInvariant(c); err != nil {
				t.Fatalf("after %s: %v", what, err)
			}
			if !slices.Equal(r.trace, m.trace) {
				t.Fatalf("after %s: callbacks' fires\n%v\nwant\n%v", what, r.trace, m.trace)
			}
			if got, want := r.held(), m.held(); got != want {
				t.Fatalf("after %s: values waiting in the channels of timers [%s], want [%s]", what, got, want)
			}
			if !slices.Equal(r.rets, m.rets) {
				t.Fatalf("after %s: Stop/Reset returned %v, want %v", what, r.rets, m.rets)
			}
			if got := c.Now().Sub(t0); int64(got) != m.now {
				t.Fatalf("after %s: Now = t0+%d, want t0+%d", what, got, m.now)
			}
			nt, ok := c.Next()
			id := m.next()
			if ok != (id >= 0) || ok && int64(nt.Sub(t0)) != m.timers[id].at {
				t.Fatalf("after %s: Next = t0+%d, %v; want timer %d", what, nt.Sub(t0), ok, id)
			}
			if got, want := c.Waiters(), m.waiters(); got != want {
				t.Fatalf("after %s: Waiters = %d, want %d", what, got, want)
			}
		}

		// Far timers, which nothing here reaches but Step and Run, choose
		// where the clock keeps the others: with none, they stay in tiny
		// mode (the early heap) while it has fewer than tinyMax entries;
		// with tinyMax-2, the third entry the operations push into the
		// heap (a new timer, or a Reset's) ends tiny mode and moves every
		// timer into the wheel (leaveTiny); with tinyMax+1 that happens
		// before the first operation, and the wheel takes every timer after
		// wnow until Step or Run fires the far timers.
		far := rapid.SampledFrom([]int{0, tinyMax - 2, tinyMax + 1}).Draw(t, "far")
		for i := range far {
			newFunc(1<<50+time.Duration(i%7), nil) // some share a time: FIFO across the move
		}
		check(t, "the far timers")

		t.Repeat(map[string]func(*rapid.T){
			"AfterFunc": func(t *rapid.T) {
				d := drawD(t, "d")
				acts := drawActs(t, true, 2)
				c.adv.Lock() // a timer due now runs at once (kick): not before the harness knows it
				newFunc(d, acts)
				c.adv.Unlock()
				if d <= 0 {
					// It runs without waiting for an advance, on a goroutine
					// of the clock's; an advance waits for that one.
					m.advance(m.now)
					c.Advance(0)
				}
				check(t, "AfterFunc")
			},
			"NewTimer": func(t *rapid.T) {
				d := drawD(t, "d")
				mt := &mTimer{kind: kChan}
				m.timers = append(m.timers, mt)
				r.add(c.NewTimer(d))
				if d <= 0 {
					at := m.now
					mt.buf = &at
				} else {
					m.schedule(mt, int64(d))
				}
				check(t, "NewTimer")
			},
			"TickerFunc": func(t *rapid.T) {
				p := time.Duration(rapid.Int64Range(1, 10).Draw(t, "p")) << 20
				limit := rapid.IntRange(1, 4).Draw(t, "limit")
				acts := drawActs(t, false, 1)
				r.newTickFunc(p, limit, acts)
				mt := &mTimer{kind: kTickFunc, period: int64(p), limit: limit, acts: acts}
				m.schedule(mt, int64(p))
				m.timers = append(m.timers, mt)
				check(t, "TickerFunc")
			},
			"NewTicker": func(t *rapid.T) {
				p := time.Duration(rapid.Int64Range(1, 10).Draw(t, "p")) << 20
				tk := c.NewTicker(p)
				r.add(tk)
				mt := &mTimer{kind: kTick, period: int64(p)}
				m.schedule(mt, int64(p))
				m.timers = append(m.timers, mt)
				check(t, "NewTicker")
			},
			"Stop": func(t *rapid.T) {
				if len(m.timers) == 0 {
					t.Skip("no timer")
				}
				id := rapid.IntRange(0, len(m.timers)-1).Draw(t, "id")
				if m.timers[id].kind == kTickFunc {
					t.Skip("a TickerFunc has no Stop")
				}
				want := m.stop(id)
				switch x := r.timers[id].(type) {
				case Timer:
					if got := x.Stop(); got != want {
						t.Fatalf("Stop(%d) = %v, want %v", id, got, want)
					}
				case Ticker:
					x.Stop()
				}
				check(t, "Stop")
			},
			"Reset": func(t *rapid.T) {
				if len(m.timers) == 0 {
					t.Skip("no timer")
				}
				id := rapid.IntRange(0, len(m.timers)-1).Draw(t, "id")
				if m.timers[id].kind == kTickFunc {
					t.Skip("a TickerFunc has no Reset")
				}
				switch x := r.timers[id].(type) {
				case Timer:
					d := drawD(t, "d")
					want := m.reset(id, int64(d))
					c.adv.Lock() // as in AfterFunc
					got := x.Reset(d)
					c.adv.Unlock()
					if got != want {
						t.Fatalf("Reset(%d, %v) = %v, want %v", id, d, got, want)
					}
					if d <= 0 && m.timers[id].kind == kFunc {
						m.advance(m.now) // runs at once, as AfterFunc
						c.Advance(0)
					}
				case Ticker:
					d := time.Duration(rapid.Int64Range(1, 10).Draw(t, "p")) << 20
					m.reset(id, int64(d))
					x.Reset(d)
				}
				check(t, "Reset")
			},
			"Advance": func(t *rapid.T) {
				d := drawD(t, "d")
				before := m.fires
				m.advance(m.now + max(int64(d), 0))
				if rapid.Bool().Draw(t, "runUntil") {
					if got, want := c.RunUntil(c.Now().Add(max(d, 0))), m.fires-before; got != want {
						t.Fatalf("RunUntil(Now + %v) fired %d timers, want %d", d, got, want)
					}
				} else {
					c.Advance(d)
				}
				check(t, "Advance")
			},
			"Step": func(t *rapid.T) {
				id := m.next()
				if id >= 0 {
					m.advance(m.timers[id].at)
				}
				if got := c.Step(); got != (id >= 0) {
					t.Fatalf("Step = %v, want %v", got, id >= 0)
				}
				check(t, "Step")
			},
			"Receive": func(t *rapid.T) {
				if len(m.timers) == 0 {
					t.Skip("no timer")
				}
				id := rapid.IntRange(0, len(m.timers)-1).Draw(t, "id")
				ch := r.chanOf(id)
				if ch == nil {
					t.Skip("func timer")
				}
				mt := m.timers[id]
				select {
				case v := <-ch:
					if mt.buf == nil {
						t.Fatalf("timer %d (%v) delivered t0+%v, want nothing (stale?)", id, mt.kind, v.Sub(t0))
					}
					if int64(v.Sub(t0)) != *mt.buf {
						t.Fatalf("timer %d delivered t0+%v, want t0+%d", id, v.Sub(t0), *mt.buf)
					}
					mt.buf = nil
				default:
					if mt.buf != nil {
						t.Fatalf("timer %d (%v) delivered nothing, want t0+%d", id, mt.kind, *mt.buf)
					}
				}
			},
		})
	})
}

// TestTickerCount: a ticker started at s with period p delivers, at each
// receive, the first tick after the previous receive (or s) if the clock has
// reached it, and nothing otherwise; a receiver that advances at most one
// period at a time and receives after each receives every tick, and the
// ticker fires once per period; one that falls behind costs at most three
// fires per advance, however many periods it passes.
func TestTickerCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := New(t0)
		c.Advance(time.Duration(rapid.Int64Range(0, 1000).Draw(t, "start")))
		p := rapid.Int64Range(1, 50).Draw(t, "period")
		s := c.now
		fires := 0 // counted by RunUntil, which counts dropped ticks too
		tk := c.NewTicker(time.Duration(p))
		defer tk.Stop()
		keepUp := rapid.Bool().Draw(t, "keepUp")
		received, drained := 0, s
		for range rapid.IntRange(0, 40).Draw(t, "steps") {
			var d int64
			if keepUp {
				d = rapid.Int64Range(1, p).Draw(t, "d")
			} else {
				d = rapid.Int64Range(0, 1000*p).Draw(t, "d")
			}
			n := c.RunUntil(c.Now().Add(time.Duration(d)))
			if n > 3 {
				t.Fatalf("an advance of %d ns fired the ticker %d times, want at most 3", d, n)
			}
			fires += n
			want := s + ((drained-s)/p+1)*p // the first tick after the last receive
			select {
			case v := <-tk.C():
				received++
				if got := int64(v.Sub(t0)); got != want {
					t.Fatalf("received t0+%d, want the first tick after t0+%d: t0+%d", got, drained, want)
				}
			default:
				if want <= c.now {
					t.Fatalf("nothing received at t0+%d, want the tick at t0+%d", c.now, want)
				}
			}
			drained = c.now
			if keepUp {
				if n := int((c.now - s) / p); received != n || fires != n {
					t.Fatalf("keeping up: received %d ticks, fired %d times, want floor(%d/%d) = %d", received, fires, c.now-s, p, n)
				}
			}
		}
	})
}
