package exhaustive

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/proptest/internal/harness"
)

// target says where an operation's time (or interval) lies, relative to the
// state it is applied in.
type target uint8

const (
	tNow            target = iota // now
	tIntervalStart                // the start of the current interval
	tNextInterval                 // now + precision
	tLevel0Span                   // now + precision·2^b0: past level 0
	tMaxAllowed                   // MaxAllowedAlarmTime
	tBeforeInterval               // the start of the current interval - 1 ns (rejected)
	tBeyondMax                    // MaxAllowedAlarmTime + 1 ns (rejected)
	tNowPlus1                     // now + 1 ns
	tNextAlarm                    // NextAlarmFiresAt (or now + precision when empty)
	tNearEnd                      // MaxTime - 2·(reach of the user levels) - 1: a jump near the end of time
	tMaxTime                      // MaxTime
	tUserSpan                     // now + precision·2^(Σ user level bits): the whole user levels
	tPrevInterval                 // the start of the interval before the current one (rejected)
	tLatest                       // the time of the live alarm with the latest time (Harness.Latest)
)

// handler says what a firing call's handler does at its first call.
type handler uint8

const (
	hNone   handler = iota
	hPanic          // panics
	hAdd            // adds an alarm at Now(), while fewer than MaxLive are live
	hRemove         // removes the live alarm with the latest time (a no-op if that one is firing)
)

// op is an operation of the alphabet: a call with its arguments given
// relative to the state it runs in (resolve turns it into a trace call).
type op struct {
	name string
	t    target
	h    handler
	i    int8 // index in the live list (creation order); -1: the dead handle
}

// machine is a harness on one world's wheel, with the world's scales.
type machine struct {
	*harness.Harness
	world  World
	o      Options
	prec   int64 // ns
	level0 int64 // precision·2^b0
	user   int64 // precision·2^(Σ user bits), capped
}

func newMachine(wd World, o Options) (*machine, error) {
	h, err := harness.NewWheel(wd.Config, wd.Start, nil)
	if err != nil {
		return nil, err
	}
	shift := wd.Config.Precision().Log2()
	bits := wd.Config.LevelBits()
	return &machine{Harness: h, world: wd, o: o, prec: 1 << shift, level0: 1 << (shift + bits.At(0)),
		user: 1 << min(bits.NumBits()+shift, 61)}, nil
}

// ops returns the operations offered in a state with n live alarms and a
// dead handle or not: all they depend on besides the world, and all of it
// in the encoding.
func (s *machine) ops(n int, dead bool) []op {
	var xs []op
	add := func(name string, h handler, ts ...target) {
		for _, t := range ts {
			xs = append(xs, op{name: name, t: t, h: h})
		}
	}
	if n < s.o.MaxLive {
		add("Add", hNone, tNow)
		if s.prec > 1 {
			add("Add", hNone, tIntervalStart)
		}
		add("Add", hNone, tNextInterval, tLevel0Span, tMaxAllowed)
		add("AddAtIntervalNum", hNone, tNextInterval)
		if n > 0 {
			// Same time as an alarm added earlier, maybe on another level:
			// where the order of equal keys across levels is at stake.
			add("Add", hNone, tLatest)
		}
	}
	add("Add", hNone, tBeforeInterval, tBeyondMax)
	add("AddAtIntervalNum", hNone, tBeyondMax, tPrevInterval)
	for i := range n {
		xs = append(xs, op{name: "Remove", i: int8(i)}, op{name: "Reschedule", i: int8(i), t: tNow},
			op{name: "Reschedule", i: int8(i), t: tLevel0Span})
	}
	if dead {
		xs = append(xs, op{name: "Remove", i: -1}, op{name: "Reschedule", i: -1, t: tNow})
	}
	add("AdvanceClock", hNone, tNow)
	if s.prec > 1 {
		add("AdvanceClock", hNone, tNowPlus1) // else the same as now+prec
	}
	add("AdvanceClock", hNone, tNextInterval, tLevel0Span, tNextAlarm, tNearEnd, tMaxTime)
	for _, h := range []handler{hPanic, hAdd, hRemove} {
		add("AdvanceClock", h, tNextAlarm)
	}
	add("AdvanceClock", hPanic, tUserSpan)
	add("AdvanceClockLimit", hNone, tUserSpan, tMaxTime)
	add("FirePastAlarms", hNone, tNow)
	add("FirePastAlarms", hPanic, tNow)
	add("AdvanceClockStopAtNextAlarm", hNone, tLevel0Span, tMaxTime)
	for _, h := range []handler{hNone, hPanic, hAdd} {
		add("Step", h, tNow) // Step takes no time; the target is unused
	}
	add("Clear", hNone, tNow)
	add("Shrink", hNone, tNow)
	return xs
}

const maxTimeNs = int64(1)<<62 - 1

// ns resolves a target against the model (the reference).
func (s *machine) ns(t target) int64 {
	_, m := s.Wheel()
	now := m.Now()
	is := now / s.prec * s.prec
	switch t {
	case tNow:
		return now
	case tIntervalStart:
		return is
	case tNextInterval:
		return now + s.prec
	case tLevel0Span:
		return now + s.level0
	case tMaxAllowed:
		return m.MaxAllowedAlarmTime()
	case tBeforeInterval:
		return is - 1
	case tBeyondMax:
		return m.MaxAllowedAlarmTime() + 1
	case tNowPlus1:
		return now + 1
	case tNextAlarm:
		if nx, ok := m.NextAlarmFiresAt(); ok {
			return nx
		}
		return now + s.prec
	case tNearEnd:
		return maxTimeNs - 2*s.user - 1
	case tMaxTime:
		return maxTimeNs
	case tUserSpan:
		return min(now+s.user, maxTimeNs)
	case tPrevInterval:
		return is - s.prec
	case tLatest:
		if id, at := s.Latest(); id != 0 {
			return at
		}
		return now
	}
	panic("unreachable")
}

// resolve turns x into a trace call in the current state.
func (s *machine) resolve(x op) harness.Op {
	c := harness.Op{Name: x.name, Limit: 1}
	c.At = s.ns(x.t)
	if x.i < 0 {
		c.ID, _ = s.Dead()
	} else if x.name == "Remove" || x.name == "Reschedule" {
		c.ID = s.Live()[x.i]
	}
	if x.name == "AddAtIntervalNum" {
		c.At /= s.prec // the interval the time is in
	}
	switch x.h {
	case hPanic:
		c.Script = harness.Script{Call: 1, Action: harness.ActPanic}
	case hAdd:
		if len(s.Live()) < s.o.MaxLive {
			c.Script = harness.Script{Call: 1, Action: harness.ActAdd}
		}
	case hRemove:
		id, _ := s.Latest()
		c.Script = harness.Script{Call: 1, Action: harness.ActRemove, Target: id}
	}
	return c
}

// encode returns the canonical encoding of the state, hashed: "Encoding"
// in docs/invariants.md says what it holds and what it may merge. It
// consumes the model: the machine is not used afterwards.
func (s *machine) encode() [16]byte {
	w, m := s.Wheel()
	var b []byte
	put := func(v int64) { b = binary.AppendVarint(b, v) }
	now := m.Now()
	switch {
	case now < s.prec:
		put(0)
		put(now)
	case maxTimeNs-now < 1<<32:
		put(1)
		put(maxTimeNs - now)
	default:
		put(2)
		bits := s.world.Config.QueueLevelBits().NumBits() + s.world.Config.Precision().Log2()
		if bits >= 62 {
			put(now)
		} else {
			put(now & (1<<bits - 1))
		}
	}
	st := w.Stats()
	put(int64(len(st.Levels)))
	for _, c := range st.Levels {
		put(int64(c))
	}
	put(int64(st.Overflow))
	put(int64(st.Due))
	put(int64(st.Capacity))
	order, times := m.FireOrder()
	put(int64(len(order)))
	for i, id := range order {
		put(times[i] - now)
		put(recordIndex(s.Handle(id)))
	}
	if dead, stale := s.Dead(); dead != 0 {
		put(1)
		put(map[bool]int64{false: 0, true: 1}[stale])
		put(recordIndex(s.Handle(dead)))
	} else {
		put(0)
	}
	h := sha256.Sum256(b)
	return [16]byte(h[:16])
}

// recordIndex returns the index of the record a handle names, read from the
// form alarm.Alarm documents for its String method,
// "alarm(owner/index@generation)".
func recordIndex(a alarm.Alarm) int64 {
	s := a.String()
	_, rest, ok1 := strings.Cut(s, "/")
	idx, _, ok2 := strings.Cut(rest, "@")
	n, err := strconv.ParseInt(idx, 10, 64)
	if !ok1 || !ok2 || err != nil {
		panic(fmt.Sprintf("exhaustive: handle %q is not in the form alarm(owner/index@generation)", s))
	}
	return n
}
