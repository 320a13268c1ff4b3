package exhaustive

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/proptest"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// opKind is an operation of the alphabet.
type opKind uint8

const (
	opAdd opKind = iota
	opAddAtIntervalNum
	opRemove
	opReschedule
	opAdvance
	opAdvanceLimit
	opFirePast
	opStopAtNext
	opClear
	opShrink
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
	tPrevInterval                 // interval number NowIntervalNum - 1 (rejected)
	tLatest                       // the time of the alarm with the latest time (see latest)
)

// handler says what a firing call's handler does at its first call.
type handler uint8

const (
	hNone   handler = iota
	hPanic          // panics
	hAdd            // adds an alarm at Now()
	hRemove         // removes the live alarm with the latest time (see latest), unless it is the one firing
)

type op struct {
	kind opKind
	t    target
	h    handler
	i    int8 // index in the live list (creation order); -1: the dead handle
}

var targetNames = [...]string{"now", "intervalStart", "now+prec", "now+level0", "maxAllowed", "intervalStart-1",
	"maxAllowed+1", "now+1", "nextAlarm", "nearEnd", "MaxTime", "now+userLevels", "interval-1", "latest alarm's time"}

var handlerNames = [...]string{"", " handler panics", " handler adds at Now", " handler removes the last to fire"}

func (x op) String() string {
	t := targetNames[x.t]
	h := handlerNames[x.h]
	switch x.kind {
	case opAdd:
		return "Add(" + t + ")"
	case opAddAtIntervalNum:
		return "AddAtIntervalNum(" + t + ")"
	case opRemove:
		return fmt.Sprintf("Remove(#%d)", x.i)
	case opReschedule:
		return fmt.Sprintf("Reschedule(#%d, %s)", x.i, t)
	case opAdvance:
		return "AdvanceClock(" + t + ")" + h
	case opAdvanceLimit:
		return "AdvanceClockLimit(" + t + ", 1)"
	case opFirePast:
		return "FirePastAlarms" + h
	case opStopAtNext:
		return "AdvanceClockStopAtNextAlarm(" + t + ")"
	case opClear:
		return "Clear"
	default:
		return "Shrink"
	}
}

type pair struct {
	id  int
	a   alarm.Alarm
	ma  proptest.ModelAlarm
	seq int // when it was last added or rescheduled (the machine's own count)
}

// machine drives one wheel and one model with the same operations.
type machine struct {
	world   World
	o       Options
	prec    int64 // ns
	level0  int64 // precision·2^b0
	user    int64 // precision·2^(Σ user bits), capped
	w       *timingwheel.Wheel[int]
	m       *proptest.Model[int]
	live    []pair // creation order
	dead    pair   // the handle of the alarm that ended last
	hasDead bool
	stale   bool // dead was issued before the last Clear
	nextID  int
	seq     int
	logging bool
	log     []string
}

func newMachine(wd World, o Options) *machine {
	w, err := timingwheel.NewWithConfig[int](wd.Config, wd.Start)
	if err != nil {
		panic(err) // Run checked it
	}
	m, err := proptest.NewModel[int](wd.Config, wd.Start)
	if err != nil {
		panic(err)
	}
	shift := wd.Config.Precision().Log2()
	bits := wd.Config.LevelBits()
	userBits := min(bits.NumBits()+shift, 61)
	return &machine{world: wd, o: o, w: w, m: m, prec: 1 << shift, level0: 1 << (shift + bits.At(0)),
		user: 1 << userBits}
}

func (s *machine) logf(format string, args ...any) {
	if s.logging {
		s.log = append(s.log, fmt.Sprintf(format, args...))
	}
}

// ops returns the operations offered in the current state. It depends only on
// the number of live alarms, whether there is a dead handle and the world, all
// of which the encoding holds.
func (s *machine) ops() []op {
	var xs []op
	n := len(s.live)
	if n < s.o.MaxLive {
		xs = append(xs, op{kind: opAdd, t: tNow})
		if s.prec > 1 {
			xs = append(xs, op{kind: opAdd, t: tIntervalStart})
		}
		xs = append(xs, op{kind: opAdd, t: tNextInterval}, op{kind: opAdd, t: tLevel0Span},
			op{kind: opAdd, t: tMaxAllowed}, op{kind: opAddAtIntervalNum, t: tNextInterval})
		if n > 0 {
			// Same time as an alarm added earlier, maybe on another level:
			// where the order of equal keys across levels is at stake.
			xs = append(xs, op{kind: opAdd, t: tLatest})
		}
	}
	xs = append(xs, op{kind: opAdd, t: tBeforeInterval}, op{kind: opAdd, t: tBeyondMax},
		op{kind: opAddAtIntervalNum, t: tBeyondMax}, op{kind: opAddAtIntervalNum, t: tPrevInterval})
	for i := range n {
		xs = append(xs, op{kind: opRemove, i: int8(i)}, op{kind: opReschedule, i: int8(i), t: tNow},
			op{kind: opReschedule, i: int8(i), t: tLevel0Span})
	}
	if s.hasDead {
		xs = append(xs, op{kind: opRemove, i: -1}, op{kind: opReschedule, i: -1, t: tNow})
	}
	for _, t := range []target{tNow, tNowPlus1, tNextInterval, tLevel0Span, tNextAlarm, tNearEnd, tMaxTime} {
		if t == tNowPlus1 && s.prec == 1 {
			continue // the same as now+prec
		}
		xs = append(xs, op{kind: opAdvance, t: t})
	}
	xs = append(xs, op{kind: opAdvance, t: tNextAlarm, h: hPanic}, op{kind: opAdvance, t: tNextAlarm, h: hAdd},
		op{kind: opAdvance, t: tNextAlarm, h: hRemove}, op{kind: opAdvance, t: tUserSpan, h: hPanic},
		op{kind: opAdvanceLimit, t: tUserSpan}, op{kind: opAdvanceLimit, t: tMaxTime},
		op{kind: opFirePast}, op{kind: opFirePast, h: hPanic},
		op{kind: opStopAtNext, t: tLevel0Span}, op{kind: opStopAtNext, t: tMaxTime},
		op{kind: opClear}, op{kind: opShrink})
	return xs
}

// replayOps replays path and returns the operations offered afterwards.
func (s *machine) replayOps(path []op) []op {
	if err := s.replay(path); err != nil {
		return nil
	}
	return s.ops()
}

func (s *machine) replay(path []op) error {
	for _, x := range path {
		if err := s.apply(x, false); err != nil {
			return err
		}
	}
	return nil
}

const maxTimeNs = int64(1)<<62 - 1

func ns2t(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// ns resolves a target against the model (the reference).
func (s *machine) ns(t target) int64 {
	now := s.m.Now().UnixNano()
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
		return s.m.MaxAllowedAlarmTime().UnixNano()
	case tBeforeInterval:
		return is - 1
	case tBeyondMax:
		return s.m.MaxAllowedAlarmTime().UnixNano() + 1
	case tNowPlus1:
		return now + 1
	case tNextAlarm:
		if nx, ok := s.m.NextAlarmFiresAt(); ok {
			return nx.UnixNano()
		}
		return now + s.prec
	case tNearEnd:
		return maxTimeNs - 2*s.user - 1
	case tMaxTime:
		return maxTimeNs
	case tUserSpan:
		return min(now+s.user, maxTimeNs)
	case tLatest:
		if p := s.latest(); p.id != 0 {
			t, _ := s.m.AlarmAt(p.ma)
			return t.UnixNano()
		}
		return now
	}
	panic("unreachable")
}

// interval resolves a target to an interval number.
func (s *machine) interval(t target) int64 {
	switch t {
	case tPrevInterval:
		return s.m.NowIntervalNum() - 1
	case tBeyondMax:
		return s.m.MaxAllowedAlarmTime().UnixNano()/s.prec + 1
	default:
		return s.ns(t) / s.prec
	}
}

var sentinels = []error{timingwheel.ErrTimeOutOfRange, timingwheel.ErrIntervalNumOutOfRange,
	timingwheel.ErrTooFarInFuture, timingwheel.ErrBeforeCurrentInterval, timingwheel.ErrInvalidAlarm,
	timingwheel.ErrNonPositiveLimit}

func sameErr(name string, got, want error) error {
	for _, e := range sentinels {
		if errors.Is(got, e) != errors.Is(want, e) {
			return fmt.Errorf("%s: wheel error %v, model error %v", name, got, want)
		}
	}
	if (got == nil) != (want == nil) {
		return fmt.Errorf("%s: wheel error %v, model error %v", name, got, want)
	}
	return nil
}

func (s *machine) pick(i int8) pair {
	if i < 0 {
		return s.dead
	}
	return s.live[i]
}

func (s *machine) forget(id int) {
	for k, p := range s.live {
		if p.id == id {
			s.live = slices.Delete(s.live, k, k+1)
			s.dead, s.hasDead, s.stale = p, true, false
			return
		}
	}
}

// apply runs x on the wheel and the model. With check it compares them and
// runs the invariant afterwards; without, it only keeps the books (a replay of
// a path that was checked before).
func (s *machine) apply(x op, check bool) error {
	err := s.step(x, check)
	if err == nil && check {
		err = s.compare()
	}
	if err != nil {
		s.logf("   -> %v", err)
	}
	return err
}

func (s *machine) step(x op, check bool) error {
	switch x.kind {
	case opAdd, opAddAtIntervalNum:
		id := s.nextID + 1
		var a alarm.Alarm
		var ma proptest.ModelAlarm
		var err, merr error
		if x.kind == opAdd {
			at := ns2t(s.ns(x.t))
			a, err = s.w.Add(at, id)
			ma, merr = s.m.Add(at, id)
			s.logf("%v = Add(%d) -> %v (id %d)", x, at.UnixNano(), err, id)
		} else {
			n := s.interval(x.t)
			a, err = s.w.AddAtIntervalNum(n, id)
			ma, merr = s.m.AddAtIntervalNum(n, id)
			s.logf("%v = AddAtIntervalNum(%d) -> %v (id %d)", x, n, err, id)
		}
		if check {
			if e := sameErr(x.String(), err, merr); e != nil {
				return e
			}
		}
		if merr == nil {
			s.nextID = id
			s.seq++
			s.live = append(s.live, pair{id: id, a: a, ma: ma, seq: s.seq})
		}
	case opRemove:
		p := s.pick(x.i)
		err := s.w.Remove(p.a)
		merr := s.m.Remove(p.ma)
		s.logf("%v = Remove(id %d, %v) -> %v", x, p.id, p.a, err)
		if check {
			if e := sameErr(x.String(), err, merr); e != nil {
				return e
			}
		}
		if merr == nil {
			s.forget(p.id)
		}
	case opReschedule:
		p := s.pick(x.i)
		at := ns2t(s.ns(x.t))
		err := s.w.Reschedule(p.a, at)
		merr := s.m.Reschedule(p.ma, at)
		s.logf("%v = Reschedule(id %d, %d) -> %v", x, p.id, at.UnixNano(), err)
		if check {
			if e := sameErr(x.String(), err, merr); e != nil {
				return e
			}
		}
		if merr == nil {
			s.seq++
			s.live[x.i].seq = s.seq
		}
	case opAdvance:
		to := ns2t(s.ns(x.t))
		s.logf("%v = AdvanceClock(%d)", x, to.UnixNano())
		return s.fire(x, check,
			func(h func(timingwheel.Fired[int])) error { return s.w.AdvanceClock(to, h) },
			func(h func(proptest.ModelAlarm)) error { return s.m.AdvanceClock(to, h) })
	case opAdvanceLimit:
		to := ns2t(s.ns(x.t))
		var n, mn int
		var done, mdone bool
		s.logf("%v = AdvanceClockLimit(%d, 1)", x, to.UnixNano())
		err := s.fire(x, check,
			func(h func(timingwheel.Fired[int])) (err error) {
				n, done, err = s.w.AdvanceClockLimit(to, 1, h)
				return err
			},
			func(h func(proptest.ModelAlarm)) (err error) {
				mn, mdone, err = s.m.AdvanceClockLimit(to, 1, h)
				return err
			})
		if err == nil && check && (n != mn || done != mdone) {
			err = fmt.Errorf("%v returned (%d, %v), model (%d, %v)", x, n, done, mn, mdone)
		}
		return err
	case opFirePast:
		s.logf("%v", x)
		return s.fire(x, check,
			func(h func(timingwheel.Fired[int])) error { s.w.FirePastAlarms(h); return nil },
			func(h func(proptest.ModelAlarm)) error { s.m.FirePastAlarms(h); return nil })
	case opStopAtNext:
		to := ns2t(s.ns(x.t))
		s.logf("%v = AdvanceClockStopAtNextAlarm(%d)", x, to.UnixNano())
		return s.fire(x, check,
			func(h func(timingwheel.Fired[int])) error { return s.w.AdvanceClockStopAtNextAlarm(to, h) },
			func(h func(proptest.ModelAlarm)) error { return s.m.AdvanceClockStopAtNextAlarm(to, h) })
	case opClear:
		s.logf("Clear")
		s.w.Clear()
		s.m.Clear()
		if n := len(s.live); n > 0 {
			s.dead, s.hasDead = s.live[n-1], true
		}
		s.stale = s.hasDead
		s.live = s.live[:0]
	case opShrink:
		s.logf("Shrink")
		s.w.Shrink()
	}
	return nil
}

type handlerPanic struct{}

// fire runs a firing call on both sides with the same handler and compares
// the fired ids, the handlers' adds and removes, errors and panics.
func (s *machine) fire(x op, check bool, wcall func(func(timingwheel.Fired[int])) error,
	mcall func(func(proptest.ModelAlarm)) error) error {
	var got, want []int
	var hErr error
	newID := s.nextID + 1
	var added pair
	var wAddErr, mAddErr error = errNotRun, errNotRun
	removedW, removedM := -1, -1
	canAdd := len(s.live) < s.o.MaxLive
	victim := s.latest()
	wh := func(ev timingwheel.Fired[int]) {
		a := ev.Alarm

		v, err := s.w.AlarmValue(a)
		if err != nil && hErr == nil {
			hErr = fmt.Errorf("%v: AlarmValue(%v) inside its handler: %v", x, a, err)
		}
		if check && hErr == nil {
			at, err := s.w.AlarmAt(a)
			now := s.w.Now()
			switch {
			case err != nil:
				hErr = fmt.Errorf("%v: AlarmAt(%v) inside its handler: %v", x, a, err)
			case at.After(now):
				hErr = fmt.Errorf("%v: alarm %d at %d fired early, now %d", x, v, at.UnixNano(), now.UnixNano())
			case s.w.Mem(a):
				hErr = fmt.Errorf("%v: Mem(%v) true inside its own handler", x, a)
			}
		}
		got = append(got, v)
		if len(got) != 1 {
			return
		}
		switch x.h {
		case hPanic:
			panic(handlerPanic{})
		case hAdd:
			if canAdd {
				added.a, wAddErr = s.w.Add(s.w.Now(), newID)
			}
		case hRemove:
			if victim.id != v && victim.id != 0 {
				removedW = victim.id
				if err := s.w.Remove(victim.a); err != nil && hErr == nil {
					hErr = fmt.Errorf("%v: Remove(id %d) inside a handler: %v", x, victim.id, err)
				}
			}
		}
	}
	mh := func(a proptest.ModelAlarm) {
		v, _ := s.m.AlarmValue(a)
		want = append(want, v)
		if len(want) != 1 {
			return
		}
		switch x.h {
		case hPanic:
			panic(handlerPanic{})
		case hAdd:
			if canAdd {
				added.ma, mAddErr = s.m.Add(s.m.Now(), newID)
			}
		case hRemove:
			if victim.id != v && victim.id != 0 {
				removedM = victim.id
				_ = s.m.Remove(victim.ma)
			}
		}
	}
	werr, wpanic, wother := run(func() error { return wcall(wh) })
	merr, mpanic, mother := run(func() error { return mcall(mh) })
	if mother != nil {
		panic(mother) // the model itself failed: not the wheel's fault
	}
	s.logf("   fired %v%s", want, map[bool]string{true: " then the handler panicked"}[mpanic])
	if check {
		switch {
		case wother != nil:
			return fmt.Errorf("%v: the wheel panicked: %v (after firing %v; the model fired %v)", x, wother, got, want)
		case hErr != nil:
			return hErr
		case !slices.Equal(got, want):
			return fmt.Errorf("%v fired %v, the model fired %v", x, got, want)
		case wpanic != mpanic:
			return fmt.Errorf("%v: handler panic reached the caller %v, model %v", x, wpanic, mpanic)
		case removedW != removedM:
			return fmt.Errorf("%v: the handler removed id %d, in the model id %d", x, removedW, removedM)
		}
		if err := sameErr(x.String(), werr, merr); err != nil {
			return err
		}
		if err := sameErr(x.String()+" handler Add", wAddErr, mAddErr); err != nil {
			return err
		}
	}
	// The dead handle becomes the last alarm fired (or the one removed).
	if removedM >= 0 {
		s.forget(removedM)
	}
	for _, id := range want {
		s.forget(id)
	}
	if mAddErr == nil {
		s.nextID = newID
		s.seq++
		added.id, added.seq = newID, s.seq
		s.live = append(s.live, added)
	}
	return nil
}

// latest returns the live alarm with the latest time, the last added or
// rescheduled among equals (by the model's times); id 0 if none. It is a
// function of the encoded state: among alarms with one time, the fire order
// is the order of last add or reschedule.
func (s *machine) latest() pair {
	var best pair
	var bestAt int64
	for _, p := range s.live {
		t, _ := s.m.AlarmAt(p.ma)
		if at := t.UnixNano(); best.id == 0 || at > bestAt || at == bestAt && p.seq > best.seq {
			best, bestAt = p, at
		}
	}
	return best
}

var errNotRun = errors.New("not run")

// run calls f, recovering a handlerPanic (panicked) or any other panic
// (other).
func run(f func() error) (err error, panicked bool, other any) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(handlerPanic); ok {
				panicked = true
			} else {
				other = r
			}
		}
	}()
	return f(), false, nil
}

// compare checks every observable against the model, the invariant and the
// promises that hold without a model.
func (s *machine) compare() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the wheel panicked in a query: %v", r)
		}
	}()
	w, m := s.w, s.m
	if err := proptest.CompareQueries(w, m); err != nil {
		return err
	}
	for _, p := range s.live {
		at, err := w.AlarmAt(p.a)
		mat, merr := m.AlarmAt(p.ma)
		if err != nil || merr != nil || !at.Equal(mat) {
			return fmt.Errorf("AlarmAt(id %d) %v %v, model %v %v", p.id, at, err, mat, merr)
		}
		n, err := w.AlarmIntervalNum(p.a)
		if mn, _ := m.AlarmIntervalNum(p.ma); err != nil || n != mn {
			return fmt.Errorf("AlarmIntervalNum(id %d) %d %v, model %d", p.id, n, err, mn)
		}
		if v, err := w.AlarmValue(p.a); err != nil || v != p.id || !w.Mem(p.a) {
			return fmt.Errorf("AlarmValue(id %d) %d %v, Mem %v", p.id, v, err, w.Mem(p.a))
		}
	}
	if s.hasDead && w.Mem(s.dead.a) {
		return fmt.Errorf("the dead handle of id %d (%v) is a member", s.dead.id, s.dead.a)
	}
	var all []alarm.Alarm
	for a := range w.All() {
		all = append(all, a)
	}
	if len(all) != len(s.live) {
		return fmt.Errorf("All yields %d alarms, %d are live", len(all), len(s.live))
	}
	for _, p := range s.live {
		if !slices.Contains(all, p.a) {
			return fmt.Errorf("All misses id %d (%v)", p.id, p.a)
		}
	}
	st := w.Stats()
	sum := st.Overflow + st.Due
	for _, c := range st.Levels {
		sum += c
	}
	if st.Live != w.Len() || sum != st.Live || st.Capacity < st.Live {
		return fmt.Errorf("Stats %+v inconsistent with Len %d", st, w.Len())
	}
	if !s.world.Config.Overflow() && st.Overflow != 0 {
		return fmt.Errorf("Stats.Overflow %d without overflow levels", st.Overflow)
	}
	return nil
}

// encode returns the canonical encoding of the state (hashed). It consumes
// the model: the machine is not used afterwards.
//
// The encoding holds:
//   - where now is: its exact value in the first interval (where "before the
//     current interval" means before the epoch) and within 2^32 ns of
//     MaxTime (where the levels clamp); elsewhere now modulo
//     P = 2^(A + Σ queue level bits), the period of every slot and level
//     boundary (with overflow levels P = 2^62, so now itself);
//   - Stats: the alarms on each level, on the overflow levels and due, and
//     the record capacity;
//   - the live alarms in the order the model would fire them (so due alarms
//     a panic left come first), each as at - now and its handle's record
//     index;
//   - the dead handle: whether there is one, whether a Clear came after it,
//     and its record index.
func (s *machine) encode() [16]byte {
	var b []byte
	put := func(v int64) { b = binary.AppendVarint(b, v) }
	now := s.m.Now().UnixNano()
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
	st := s.w.Stats()
	put(int64(len(st.Levels)))
	for _, c := range st.Levels {
		put(int64(c))
	}
	put(int64(st.Overflow))
	put(int64(st.Due))
	put(int64(st.Capacity))
	// The model's fire order: clock to the end, then the last interval.
	at := map[int]int64{}
	for _, p := range s.live {
		t, _ := s.m.AlarmAt(p.ma)
		at[p.id] = t.UnixNano()
	}
	var order []int
	rec := func(a proptest.ModelAlarm) {
		v, _ := s.m.AlarmValue(a)
		order = append(order, v)
	}
	_ = s.m.AdvanceClock(timingwheel.MaxTime, rec)
	s.m.FirePastAlarms(rec)
	put(int64(len(order)))
	for _, id := range order {
		put(at[id] - now)
		if k := slices.IndexFunc(s.live, func(p pair) bool { return p.id == id }); k >= 0 {
			put(int64(pool.Index(s.live[k].a)))
		} else {
			put(-1) // the model fired an alarm the machine does not know: cannot happen
		}
	}
	if s.hasDead {
		put(1)
		put(map[bool]int64{false: 0, true: 1}[s.stale])
		put(int64(pool.Index(s.dead.a)))
	} else {
		put(0)
	}
	h := sha256.Sum256(b)
	return [16]byte(h[:16])
}
