package harness

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Wheel is the methods of *timingwheel.Wheel[int] the checks call; users see
// it as proptest.Wheel, whose doc lists them (TestInterfaceDocs).
type Wheel interface {
	Now() time.Time
	Len() int
	IsEmpty() bool
	All() iter.Seq[alarm.Alarm]
	NowIntervalNum() int64
	MaxAllowedAlarmTime() time.Time
	MaxAllowedAlarmIntervalNum() int64
	Add(at time.Time, v int) (alarm.Alarm, error)
	AddAtIntervalNum(n int64, v int) (alarm.Alarm, error)
	Mem(a alarm.Alarm) bool
	Remove(a alarm.Alarm) error
	Reschedule(a alarm.Alarm, at time.Time) error
	RescheduleAtIntervalNum(a alarm.Alarm, n int64) error
	Clear()
	Shrink()
	Stats() timingwheel.Stats
	AlarmAt(a alarm.Alarm) (time.Time, error)
	AlarmIntervalNum(a alarm.Alarm) (int64, error)
	AlarmValue(a alarm.Alarm) (int, error)
	AdvanceClock(to time.Time, fired func(timingwheel.Fired[int])) error
	AdvanceClockLimit(to time.Time, limit int, fired func(timingwheel.Fired[int])) (int, bool, error)
	FirePastAlarms(fired func(timingwheel.Fired[int]))
	AdvanceClockStopAtNextAlarm(to time.Time, fired func(timingwheel.Fired[int])) error
	NextAlarmFiresAt() (time.Time, bool)
	MinAlarmIntervalNum() (int64, bool)
	MinAlarmTimeInMinInterval() (time.Time, bool)
	MaxAlarmTimeInMinInterval() (time.Time, bool)
	Invariant() error
}

// stepper is the optional Step method (timingwheel.Wheel.Step): a wheel
// under test that lacks it gets AdvanceClockStopAtNextAlarm calls instead.
type stepper interface {
	Step(fired func(timingwheel.Fired[int])) bool
}

// WheelFactory makes the wheel under test for a config and start time.
type WheelFactory = func(cfg config.Config, start time.Time) (Wheel, error)

// WheelKind describes the wheel's calls.
var WheelKind = &Kind{Name: "wheel", thing: "alarm", verb: "fired", liveOdds: 6,
	queries: []string{"Len", "IsEmpty (none: true)", "Now", "NowIntervalNum", "MaxAllowedAlarmTime",
		"MaxAllowedAlarmIntervalNum", "NextAlarmFiresAt",
		"MinAlarmIntervalNum", "MinAlarmTimeInMinInterval", "MaxAlarmTimeInMinInterval"},
	oneQueries: "Mem, AlarmAt, AlarmIntervalNum, AlarmValue", ops: []opDef{
		{"Add", 6, "ai", kAdd}, {"AddAtIntervalNum", 2, "ai", kAdd}, {"Remove", 2, "i", kRemove},
		{"Reschedule", 2, "ia", kMove}, {"RescheduleAtIntervalNum", 1, "ia", kMove},
		{"AdvanceClock", 4, "a", kFire}, {"AdvanceClockLimit", 2, "al", kFire}, {"FirePastAlarms", 1, "", kFire},
		{"AdvanceClockStopAtNextAlarm", 2, "a", kFire}, {"Shrink", 1, "", kShrink}, {"Clear", 1, "", kClear},
		{"Step", 2, "", kFire},
	}, errs: []error{timingwheel.ErrTimeOutOfRange, timingwheel.ErrIntervalNumOutOfRange, timingwheel.ErrTooFarInFuture,
		timingwheel.ErrBeforeCurrentInterval, timingwheel.ErrInvalidAlarm, timingwheel.ErrNonPositiveLimit}}

func ns2t(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// wheelImpl is the implementation's side of a wheel harness.
type wheelImpl struct{ Wheel }

func (s wheelImpl) add(op Op, id int) (alarm.Alarm, error) {
	if op.Name == "AddAtIntervalNum" {
		return s.Wheel.AddAtIntervalNum(op.At, id)
	}
	return s.Wheel.Add(ns2t(op.At), id)
}

func (s wheelImpl) move(op Op, a alarm.Alarm) error {
	if op.Name == "RescheduleAtIntervalNum" {
		return s.Wheel.RescheduleAtIntervalNum(a, op.At)
	}
	return s.Wheel.Reschedule(a, ns2t(op.At))
}

func (s wheelImpl) fire(op Op, handler func(alarm.Alarm)) (string, error) {
	var f func(timingwheel.Fired[int])
	if handler != nil {
		f = func(ev timingwheel.Fired[int]) { handler(ev.Alarm) }
	}
	switch to := ns2t(op.At); op.Name {
	case "AdvanceClock":
		return "", s.Wheel.AdvanceClock(to, f)
	case "AdvanceClockLimit":
		n, done, err := s.Wheel.AdvanceClockLimit(to, op.Limit, f)
		return fmt.Sprint(n, done), err
	case "FirePastAlarms":
		s.Wheel.FirePastAlarms(f)
		return "", nil
	case "Step":
		st, ok := s.Wheel.(stepper)
		if !ok {
			return "", errors.New("the wheel under test has no Step method")
		}
		return fmt.Sprint(st.Step(f)), nil
	default:
		return "", s.Wheel.AdvanceClockStopAtNextAlarm(to, f)
	}
}

func (s wheelImpl) base() int64                      { return s.Wheel.Now().UnixNano() }
func (s wheelImpl) value(a alarm.Alarm) (int, error) { return s.Wheel.AlarmValue(a) }

func (s wheelImpl) at(a alarm.Alarm) (int64, error) {
	t, err := s.Wheel.AlarmAt(a)
	return t.UnixNano(), err
}

func (s wheelImpl) observe() obs {
	w := s.Wheel
	next, nok := w.NextAlarmFiresAt()
	k, kok := w.MinAlarmIntervalNum()
	lo, look := w.MinAlarmTimeInMinInterval()
	hi, hok := w.MaxAlarmTimeInMinInterval()
	return obs{int64(w.Len()), opt(0, !w.IsEmpty()), w.Now().UnixNano(), w.NowIntervalNum(),
		w.MaxAllowedAlarmTime().UnixNano(), w.MaxAllowedAlarmIntervalNum(), opt(next.UnixNano(), nok), opt(k, kok), opt(lo.UnixNano(), look),
		opt(hi.UnixNano(), hok)}
}

func (s wheelImpl) intervalOf(a alarm.Alarm) (int64, error) { return s.Wheel.AlarmIntervalNum(a) }

// UsageError is a factory's error that is not the wheel's but the user's:
// a wheel the checks cannot use. The harness returns it as it is.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Wrapper is implemented by a wheel under test that wraps a user's own: it
// may lack some of Wheel's methods (Has says which; the harness never draws
// a call it lacks and does not compare a query it lacks) and may forbid calls
// from inside its handlers (Reentrant false: handlers do not call it, and the
// checks that would, run after the call returns).
type Wrapper interface {
	Has(method string) bool
	Reentrant() bool
}

// wheelSys is a harness's wheel and model.
type wheelSys struct {
	cfg config.Config
	w   Wheel
	m   *Model
}

// NewWheel starts a harness on the wheel factory makes (nil:
// timingwheel.NewWithConfig[int]) and a Model.
func NewWheel(cfg config.Config, start time.Time, factory WheelFactory) (*Harness, error) {
	return WheelSetup(cfg, start, factory).New()
}

// WheelSetup is NewWheel, to call later.
func WheelSetup(cfg config.Config, start time.Time, factory WheelFactory) Setup {
	s := Setup{Kind: WheelKind, Header: fmt.Sprintf("wheel precision=%d bits=%s capacity=%d overflow=%v start=%d",
		cfg.Precision().Log2(), joinInts(cfg.LevelBits().Bits()), cfg.Capacity(), cfg.Overflow(), start.UnixNano())}
	s.New = func() (*Harness, error) { return newWheel(s, cfg, start, factory) }
	return s
}

func newWheel(s Setup, cfg config.Config, start time.Time, factory WheelFactory) (*Harness, error) {
	var w Wheel
	var err error
	if factory != nil {
		w, err = factory(cfg, start)
	} else {
		w, err = timingwheel.NewWithConfig[int](cfg, start)
	}
	if errors.As(err, new(UsageError)) {
		return nil, err
	}
	m, merr := newModel(cfg, start.UnixNano())
	if (err == nil) != (merr == nil) || err != nil && !errors.Is(err, timingwheel.ErrTimeOutOfRange) {
		return nil, fmt.Errorf("New(%v, %d): wheel error %v, model error %v", cfg, start.UnixNano(), err, merr)
	}
	if err != nil {
		return nil, err
	}
	h := &Harness{k: WheelKind, sys: &wheelSys{cfg, w, m}, impl: wheelImpl{w}, model: m, setup: s, header: s.Header}
	if wr, ok := w.(Wrapper); ok {
		h.has, h.noReentry = wr.Has, !wr.Reentrant()
	}
	return h, h.compare()
}

// wheel returns the setup of a wheel trace's header.
func (t *trace) wheel(factory WheelFactory) (Setup, error) {
	var prec, capacity int
	var bits []int
	var overflow bool
	var start int64
	err := t.fields(map[string]any{"precision": &prec, "bits": &bits, "capacity": &capacity,
		"overflow": &overflow, "start": &start})
	if err != nil {
		return Setup{}, err
	}
	if start < 0 || start > maxNs {
		return Setup{}, t.headerError("start", t.kv["start"], "the start is 0 to %d ns", maxNs)
	}
	if slices.ContainsFunc(bits, func(b int) bool { return b > maxTraceBits }) {
		return Setup{}, t.headerError("bits", t.kv["bits"], "a trace's levels have at most %d bits (a level's slots are allocated at once)", maxTraceBits)
	}
	cfg, err := wheelConfig(prec, bits, capacity, overflow)
	if err != nil {
		return Setup{}, &traceError{t.header, fmt.Errorf("trace config: %w", err)}
	}
	return WheelSetup(cfg, ns2t(start), factory), nil
}

func wheelConfig(prec int, bits []int, capacity int, overflow bool) (config.Config, error) {
	lb, err := levelbits.New(bits...)
	if err != nil {
		return config.Config{}, err
	}
	opts := []config.Option{config.WithLevelBits(lb), config.WithCapacity(capacity)}
	if overflow {
		opts = append(opts, config.WithOverflow())
	}
	return config.New(config.AlarmPrecision(prec), opts...)
}

// DrawWheel draws the setup of a harness: a config drawn from cfgs, or a
// random one (proptest.WithConfigs says which; tiny level bits turn over
// fast), and a start time.
func DrawWheel(src Source, cfgs []config.Config, factory WheelFactory) (Setup, error) {
	var cfg config.Config
	if len(cfgs) > 0 {
		cfg = cfgs[src.Intn("config", len(cfgs))]
	} else {
		precisions := []int{0, 0, 0, 1, 2, 3, 10, 20, 30, 46}
		p := precisions[src.Intn("precision", len(precisions))]
		bits := [][]int{{1}, {2}, {1, 1}, {2, 1}, {1, 1, 1}, {3, 2}, levelbits.Default().Bits(), nil, nil}[src.Intn("levelbits", 9)]
		if bits == nil {
			for i := range 1 + src.Intn("numLevels", 4) {
				bits = append(bits, 1+src.Intn(fmt.Sprintf("bits%d", i), 3))
			}
		}
		var err error
		capacity := src.Intn("capacity", 5)
		if cfg, err = wheelConfig(p, bits, capacity, src.Intn("overflow", 4) == 0); err != nil {
			return Setup{}, fmt.Errorf("config %v: %w", bits, err)
		}
	}
	return WheelSetup(cfg, genStart(src), factory), nil
}

// genStart draws a start time: the epoch, near MaxTime, or anywhere in the
// first 2^40 ns.
func genStart(src Source) time.Time {
	switch src.Intn("startKind", 4) {
	case 0:
		return ns2t(0)
	case 1:
		return ns2t(maxNs - src.Int64Range("startNearMax", 0, 1<<20))
	}
	return ns2t(src.Int64Range("start", 0, 1<<40))
}

func (s *wheelSys) gen(h *Harness, src Source, op *Op, noPanic bool) {
	m := s.m
	switch op.Name {
	case "Add":
		op.At = s.genTime(src, "at")
	case "AddAtIntervalNum":
		if src.Choose("intervalFar", 6, 1) == 0 {
			op.At = m.maxAllowedKey() + src.Int64Range("intervalEdge", -1, 1)
		} else {
			op.At = m.interval() + src.Int64Range("intervalDelta", -2, 40)
		}
	case "Remove":
		op.ID = h.pick(src, "remove")
	case "Reschedule":
		op.ID = h.pick(src, "resched")
		op.At = s.genTime(src, "reschedAt")
	case "RescheduleAtIntervalNum":
		op.ID = h.pick(src, "reschedN")
		op.At = m.interval() + src.Int64Range("reschedDelta", -1, 20)
	case "AdvanceClock", "AdvanceClockStopAtNextAlarm":
		op.At = s.genAdvance(src, "to")
		op.Script = h.genScript(src, noPanic, 0, 8<<m.shift)
	case "AdvanceClockLimit":
		op.At = s.genAdvance(src, "to")
		op.Limit = src.Intn("limit", 6)
		op.Script = h.genScript(src, noPanic, 0, 8<<m.shift)
	case "FirePastAlarms":
		op.Script = h.genScript(src, noPanic, 0, 8<<m.shift)
	case "Step":
		if _, ok := s.w.(stepper); !ok {
			op.Name, op.At = "AdvanceClockStopAtNextAlarm", s.genAdvance(src, "to")
		}
		op.Script = h.genScript(src, noPanic, 0, 8<<m.shift)
	}
}

// genTime draws an alarm time around the clock and the wheel's reach: just
// before the current interval, inside it before now, at and just past
// MaxAllowedAlarmTime, anywhere up to MaxTime, and mostly near now.
func (s *wheelSys) genTime(src Source, label string) int64 {
	now, prec := s.m.now, int64(1)<<s.m.shift
	intervalStart := now / prec * prec
	maxAllowed := s.m.MaxAllowedAlarmTime()
	switch src.Choose(label+"Kind", 10, 5) {
	case 0:
		return intervalStart - src.Int64Range(label+"Before", 1, 3)
	case 1:
		return intervalStart + src.Int64Range(label+"InCurrent", 0, max(0, now-intervalStart))
	case 2:
		return maxAllowed
	case 3:
		return maxAllowed + src.Int64Range(label+"Beyond", 1, 3)
	case 4:
		return now + src.Int64Range(label+"Anywhere", 0, maxNs-now)
	}
	return now + src.Int64Range(label+"Near", 0, max(0, min(maxAllowed-now, 16*prec)))
}

// genAdvance draws a target for an advance: by one, small, medium, large
// jumps, MaxTime, backwards, around the next alarm, and sometimes past MaxTime.
func (s *wheelSys) genAdvance(src Source, label string) int64 {
	now, prec := s.m.now, int64(1)<<s.m.shift
	var ns int64
	switch src.Choose(label+"Kind", 8, 6) {
	case 0:
		ns = now + 1
	case 1:
		ns = now + src.Int64Range(label+"Small", 0, 4*prec)
	case 2:
		ns = now + src.Int64Range(label+"Jump", 0, (maxNs-now)/2)
	case 3:
		ns = maxNs
	case 4:
		ns = now - src.Int64Range(label+"Back", 0, 3)
	case 5:
		ns = now + 1
		if nx, ok := s.m.NextAlarmFiresAt(); ok {
			ns = nx + src.Int64Range(label+"Next", -1, 1)
		}
	default:
		ns = now + src.Int64Range(label+"Medium", 0, 64*prec)
	}
	if ns > maxNs && src.Intn(label+"KeepBeyond", 5) > 0 {
		ns = maxNs
	}
	return max(ns, 0)
}

// firedCheck: nothing fires early. AdvanceClock and AdvanceClockLimit fire
// alarms with at < Now() (except those a panicking FirePastAlarms left due,
// which were due by its rule); the other calls alarms with at <= Now().
func (s *wheelSys) firedCheck(op Op) func(id int, at int64) error {
	strict := op.Name == "AdvanceClock" || op.Name == "AdvanceClockLimit"
	leftover := map[int]bool{}
	for _, ma := range s.m.due {
		if v, err := s.m.value(ma); err == nil {
			leftover[v] = true
		}
	}
	return func(id int, at int64) error {
		if now := s.w.Now().UnixNano(); strict && !leftover[id] && at >= now || at > now {
			return fmt.Errorf("alarm %d at %d fired early, now %d", id, at, now)
		}
		return nil
	}
}

func (s *wheelSys) check(h *Harness) error {
	if h.Has("Invariant") {
		if err := s.w.Invariant(); err != nil {
			return fmt.Errorf("Invariant: %w", err)
		}
	}
	if h.Has("Stats") {
		if err := s.checkStats(); err != nil {
			return err
		}
	}
	if !h.Has("All") {
		return nil
	}
	return h.checkAll(s.w.All())
}

// checkStats checks Stats against Len and the config.
func (s *wheelSys) checkStats() error {
	st := s.w.Stats()
	onLevels := st.Overflow + st.Due
	for _, c := range st.Levels {
		onLevels += c
	}
	if st.Live != s.w.Len() || onLevels != st.Live || st.Capacity < st.Live {
		return fmt.Errorf("Stats %+v inconsistent with Len %d", st, s.w.Len())
	}
	if !s.cfg.Overflow() && st.Overflow != 0 {
		return fmt.Errorf("Stats.Overflow %d without overflow levels", st.Overflow)
	}
	return nil
}

// Wheel returns the wheel and the model of a harness NewWheel started.
func (h *Harness) Wheel() (Wheel, *Model) {
	s := h.sys.(*wheelSys)
	return s.w, s.m
}

// Latest returns the live id with the latest time, the last added or
// rescheduled among equals, and its time; 0 if none.
func (h *Harness) Latest() (id int, at int64) {
	m := h.sys.(*wheelSys).m
	best := -1
	for i, e := range m.alarms {
		if best < 0 || e.at > m.alarms[best].at || e.at == m.alarms[best].at && e.seq > m.alarms[best].seq {
			best = i
		}
	}
	if best < 0 {
		return 0, 0
	}
	return m.alarms[best].v, m.alarms[best].at
}
