package proptest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Option adjusts CheckWheel.
type Option func(*options)

type options struct {
	configs []config.Config // empty: random configs
	steps   int             // operations per run (rapid's -rapid.steps when 0)
	noPanic bool
}

// WithConfigs restricts CheckWheel to the given configs (default: random
// precisions from 2^0 to 2^46 with small and default level bits).
func WithConfigs(cfgs ...config.Config) Option {
	return func(o *options) { o.configs = append(o.configs, cfgs...) }
}

// WithSteps sets the number of operations per run.
func WithSteps(n int) Option { return func(o *options) { o.steps = n } }

// WithoutPanics turns off handlers that panic.
func WithoutPanics() Option { return func(o *options) { o.noPanic = true } }

// RandomConfig draws a wheel config: a precision of 2^0 to 2^46 ns, level
// bits that are either tiny ([1], [2], [1 1], [2 1], [1 1 1], [3 2], random
// small ones, so that levels turn over fast) or the default, and overflow on
// in a quarter of the configs.
func RandomConfig(t *rapid.T) config.Config {
	p := config.AlarmPrecision(rapid.SampledFrom([]int{0, 0, 0, 1, 2, 3, 10, 20, 30, 46}).Draw(t, "precision"))
	var lb levelbits.LevelBits
	var err error
	switch rapid.IntRange(0, 8).Draw(t, "levelbits") {
	case 0:
		lb, err = levelbits.New(1)
	case 1:
		lb, err = levelbits.New(2)
	case 2:
		lb, err = levelbits.New(1, 1)
	case 3:
		lb, err = levelbits.New(2, 1)
	case 4:
		lb, err = levelbits.New(1, 1, 1)
	case 5:
		lb, err = levelbits.New(3, 2)
	case 6:
		lb = levelbits.Default()
	default:
		lb, err = levelbits.New(rapid.SliceOfN(rapid.IntRange(1, 3), 1, 4).Draw(t, "bits")...)
	}
	if err != nil {
		t.Fatalf("level bits: %v", err)
	}
	opts := []config.Option{config.WithLevelBits(lb), config.WithCapacity(rapid.IntRange(0, 4).Draw(t, "capacity"))}
	if rapid.IntRange(0, 3).Draw(t, "overflow") == 0 {
		opts = append(opts, config.WithOverflow())
	}
	cfg, err := config.New(p, opts...)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

// CheckWheel runs a rapid state machine that drives a timingwheel.Wheel[int]
// and a Model[int] with the same random operations (adds, removes,
// reschedules, advances small and large, FirePastAlarms, the stop-at-next-alarm
// step, Clear, and handlers that add, remove, reschedule and panic) and fails t
// at the first difference in any observable: the fired sequence, every error,
// Len, Now, NextAlarmFiresAt, MinAlarmIntervalNum and the min-interval queries.
// After every step it runs Invariant() and checks the guarantees: never early,
// nothing lost or fired twice.
//
// A failing run prints its operations; rerun it with the seed rapid prints
// (go test -run TestX -rapid.seed=N).
func CheckWheel(t *testing.T, opts ...Option) {
	t.Helper()
	o := &options{}
	for _, f := range opts {
		f(o)
	}
	rapid.Check(t, func(rt *rapid.T) { newWheelMachine(rt, o).run(rt) })
}

type wheelMachine struct {
	o      *options
	cfg    config.Config
	w      *timingwheel.Wheel[int]
	m      *Model[int]
	real   map[int]alarm.Alarm // alarm id (its value) -> wheel handle
	mod    map[int]ModelAlarm  // alarm id -> model handle
	dead   []alarm.Alarm       // handles that must be rejected
	nextID int
	fired  map[int]bool // ids fired or removed: none may fire again
	log    []string
}

func newWheelMachine(t *rapid.T, o *options) *wheelMachine {
	var cfg config.Config
	if len(o.configs) > 0 {
		cfg = rapid.SampledFrom(o.configs).Draw(t, "config")
	} else {
		cfg = RandomConfig(t)
	}
	var start int64
	switch rapid.IntRange(0, 3).Draw(t, "startKind") {
	case 0:
		start = 0
	case 1:
		start = maxNs - rapid.Int64Range(0, 1<<20).Draw(t, "startNearMax")
	default:
		start = rapid.Int64Range(0, 1<<40).Draw(t, "start")
	}
	w, err := timingwheel.New[int](cfg, ns2t(start))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	m, err := NewModel[int](cfg, ns2t(start))
	if err != nil {
		t.Fatalf("NewModel: %v", err)
	}
	return &wheelMachine{o: o, cfg: cfg, w: w, m: m, real: map[int]alarm.Alarm{}, mod: map[int]ModelAlarm{},
		fired: map[int]bool{}}
}

func (s *wheelMachine) logf(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

func (s *wheelMachine) fatalf(t *rapid.T, format string, args ...any) {
	t.Helper()
	t.Fatalf("%s\nconfig %v, start %d\noperations:\n  %s", fmt.Sprintf(format, args...),
		s.cfg, s.w.Start().UnixNano(), strings.Join(s.log, "\n  "))
}

// sameErr checks that the wheel and the model agree on an error's sentinel.
func (s *wheelMachine) sameErr(t *rapid.T, op string, got, want error) {
	t.Helper()
	sentinels := []error{timingwheel.ErrTimeOutOfRange, timingwheel.ErrIntervalNumOutOfRange,
		timingwheel.ErrTooFarInFuture, timingwheel.ErrBeforeCurrentInterval, timingwheel.ErrInvalidAlarm}
	for _, e := range sentinels {
		if errors.Is(got, e) != errors.Is(want, e) {
			s.fatalf(t, "%s: wheel error %v, model error %v", op, got, want)
		}
	}
	if (got == nil) != (want == nil) {
		s.fatalf(t, "%s: wheel error %v, model error %v", op, got, want)
	}
}

// genTime draws an alarm time around the clock and the wheel's reach.
func (s *wheelMachine) genTime(t *rapid.T, label string) time.Time {
	now := s.w.Now().UnixNano()
	prec := int64(s.w.AlarmPrecision())
	intervalStart := now / prec * prec
	maxAllowed := s.w.MaxAllowedAlarmTime().UnixNano()
	var ns int64
	switch rapid.IntRange(0, 9).Draw(t, label+"Kind") {
	case 0:
		ns = intervalStart - rapid.Int64Range(1, 3).Draw(t, label+"Before")
	case 1:
		ns = intervalStart + rapid.Int64Range(0, max(0, now-intervalStart)).Draw(t, label+"InCurrent")
	case 2:
		ns = maxAllowed
	case 3:
		ns = maxAllowed + rapid.Int64Range(1, 3).Draw(t, label+"Beyond")
	case 4:
		ns = now + rapid.Int64Range(0, maxNs-now).Draw(t, label+"Anywhere")
	default:
		span := min(maxAllowed-now, 16*prec)
		if span < 0 {
			span = 0
		}
		ns = now + rapid.Int64Range(0, span).Draw(t, label+"Near")
	}
	return ns2t(ns)
}

func (s *wheelMachine) genAdvance(t *rapid.T, label string) time.Time {
	now := s.w.Now().UnixNano()
	prec := int64(s.w.AlarmPrecision())
	var ns int64
	switch rapid.IntRange(0, 7).Draw(t, label+"Kind") {
	case 0:
		ns = now + 1
	case 1:
		ns = now + rapid.Int64Range(0, 4*prec).Draw(t, label+"Small")
	case 2:
		ns = now + rapid.Int64Range(0, (maxNs-now)/2).Draw(t, label+"Jump")
	case 3:
		ns = maxNs
	case 4:
		ns = now - rapid.Int64Range(0, 3).Draw(t, label+"Back")
	case 5:
		if nx, ok := s.w.NextAlarmFiresAt(); ok {
			ns = nx.UnixNano() + rapid.Int64Range(-1, 1).Draw(t, label+"Next")
		} else {
			ns = now + 1
		}
	default:
		ns = now + rapid.Int64Range(0, 64*prec).Draw(t, label+"Medium")
	}
	if ns > maxNs && rapid.IntRange(0, 4).Draw(t, label+"KeepBeyond") > 0 {
		ns = maxNs
	}
	if ns < 0 {
		ns = 0
	}
	return ns2t(ns)
}

func (s *wheelMachine) liveIDs() []int {
	ids := make([]int, 0, len(s.real))
	for id := range s.real {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// pick returns an id of a live alarm, or of a dead one, or 0 (the null alarm).
func (s *wheelMachine) pick(t *rapid.T, label string) (int, alarm.Alarm, ModelAlarm) {
	ids := s.liveIDs()
	if len(ids) > 0 && rapid.IntRange(0, 5).Draw(t, label+"Live") > 0 {
		id := rapid.SampledFrom(ids).Draw(t, label)
		return id, s.real[id], s.mod[id]
	}
	if len(s.dead) > 0 && rapid.Bool().Draw(t, label+"Dead") {
		return -1, rapid.SampledFrom(s.dead).Draw(t, label+"DeadPick"), -1
	}
	return 0, alarm.Alarm{}, 0
}

func (s *wheelMachine) forget(id int) {
	if a, ok := s.real[id]; ok {
		s.dead = append(s.dead, a)
		delete(s.real, id)
		delete(s.mod, id)
	}
}

// handlerScript is what a handler does at its n-th call; both sides run it.
type handlerScript struct {
	at       int // call number that acts (1-based); 0: never
	action   int // 0 add, 1 remove, 2 reschedule, 3 panic
	offset   int64
	targetID int
}

type scriptPanic struct{}

func (s *wheelMachine) genScript(t *rapid.T) handlerScript {
	if rapid.IntRange(0, 2).Draw(t, "scripted") != 0 {
		return handlerScript{}
	}
	hs := handlerScript{
		at:     rapid.IntRange(1, 4).Draw(t, "scriptAt"),
		action: rapid.IntRange(0, 3).Draw(t, "scriptAction"),
		offset: rapid.Int64Range(0, 8*int64(s.w.AlarmPrecision())).Draw(t, "scriptOffset"),
	}
	if hs.action == 3 && s.o.noPanic {
		hs.action = 0
	}
	if ids := s.liveIDs(); len(ids) > 0 {
		hs.targetID = rapid.SampledFrom(ids).Draw(t, "scriptTarget")
	}
	return hs
}

// fireOp runs one firing call on both sides with the same handler script and
// compares the fired ids.
func (s *wheelMachine) fireOp(t *rapid.T, name string, hs handlerScript,
	realCall func(func(alarm.Alarm)) error, modelCall func(func(ModelAlarm)) error, strict bool) {
	var gotIDs, wantIDs []int
	var newReal, newModel []int
	calls := 0
	// Alarms a panicking FirePastAlarms left due were due by its rule, at <= now.
	leftover := map[int]bool{}
	for _, ma := range s.m.due {
		if v, err := s.m.AlarmValue(ma); err == nil {
			leftover[v] = true
		}
	}
	realHandler := func(a alarm.Alarm) {
		calls++
		id, err := s.w.AlarmValue(a)
		if err != nil {
			s.fatalf(t, "%s: AlarmValue inside handler: %v", name, err)
		}
		at, err := s.w.AlarmAt(a)
		if err != nil {
			s.fatalf(t, "%s: AlarmAt inside handler: %v", name, err)
		}
		now := s.w.Now()
		if strict && !leftover[id] && !at.Before(now) || at.After(now) {
			s.fatalf(t, "%s: alarm %d at %d fired early, now %d", name, id, at.UnixNano(), now.UnixNano())
		}
		if s.w.Mem(a) {
			s.fatalf(t, "%s: Mem true inside the alarm's own handler", name)
		}
		if s.fired[id] {
			s.fatalf(t, "%s: alarm %d fired twice", name, id)
		}
		s.fired[id] = true
		gotIDs = append(gotIDs, id)
		if calls == hs.at {
			switch hs.action {
			case 0:
				s.nextID++
				nid := s.nextID
				a2, err := s.w.Add(now.Add(time.Duration(hs.offset)), nid)
				if err == nil {
					s.real[nid] = a2
					newReal = append(newReal, nid)
				}
			case 1:
				if a2, ok := s.real[hs.targetID]; ok {
					_ = s.w.Remove(a2)
				}
			case 2:
				if a2, ok := s.real[hs.targetID]; ok {
					_ = s.w.Reschedule(a2, now.Add(time.Duration(hs.offset)))
				}
			case 3:
				panic(scriptPanic{})
			}
		}
	}
	mcalls := 0
	nextModelID := s.nextID
	modelHandler := func(a ModelAlarm) {
		mcalls++
		id, err := s.m.AlarmValue(a)
		if err != nil {
			s.fatalf(t, "%s: model AlarmValue inside handler: %v", name, err)
		}
		wantIDs = append(wantIDs, id)
		if mcalls == hs.at {
			now := s.m.Now()
			switch hs.action {
			case 0:
				nextModelID++
				if ma, err := s.m.Add(now.Add(time.Duration(hs.offset)), nextModelID); err == nil {
					s.mod[nextModelID] = ma
					newModel = append(newModel, nextModelID)
				}
			case 1:
				if ma, ok := s.mod[hs.targetID]; ok {
					_ = s.m.Remove(ma)
				}
			case 2:
				if ma, ok := s.mod[hs.targetID]; ok {
					_ = s.m.Reschedule(ma, now.Add(time.Duration(hs.offset)))
				}
			case 3:
				panic(scriptPanic{})
			}
		}
	}
	run := func(f func() error) (err error, panicked bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(scriptPanic); !ok {
					panic(r)
				}
				panicked = true
			}
		}()
		return f(), false
	}
	errW, pW := run(func() error { return realCall(realHandler) })
	errM, pM := run(func() error { return modelCall(modelHandler) })
	s.sameErr(t, name, errW, errM)
	if pW != pM {
		s.fatalf(t, "%s: wheel panicked %v, model panicked %v", name, pW, pM)
	}
	if !slices.Equal(newReal, newModel) {
		s.fatalf(t, "%s: handler adds differ: wheel %v, model %v", name, newReal, newModel)
	}
	if diff := cmp.Diff(wantIDs, gotIDs); diff != "" {
		s.fatalf(t, "%s fired a different sequence (-model +wheel):\n%s", name, diff)
	}
	for _, id := range gotIDs {
		s.forget(id)
	}
	// A handler's remove or reschedule may have ended some alarm; resync ids.
	for id, a := range s.real {
		if !s.w.Mem(a) {
			s.fired[id] = true
			s.forget(id)
		}
	}
	for id, ma := range s.mod {
		if !s.m.Mem(ma) {
			delete(s.mod, id)
		}
	}
	if len(s.mod) != len(s.real) {
		s.fatalf(t, "%s: wheel holds ids %v, model ids %d", name, s.liveIDs(), len(s.mod))
	}
}

func (s *wheelMachine) run(t *rapid.T) {
	actions := map[string]func(*rapid.T){
		"Add": func(t *rapid.T) {
			at := s.genTime(t, "at")
			s.nextID++
			id := s.nextID
			a, err := s.w.Add(at, id)
			ma, merr := s.m.Add(at, id)
			s.logf("Add(%d, %d) -> %v", at.UnixNano(), id, err)
			s.sameErr(t, "Add", err, merr)
			if err == nil {
				s.real[id], s.mod[id] = a, ma
			}
		},
		"AddAtIntervalNum": func(t *rapid.T) {
			cur := s.w.NowIntervalNum()
			n := cur + rapid.Int64Range(-2, 40).Draw(t, "intervalDelta")
			if rapid.IntRange(0, 5).Draw(t, "intervalFar") == 0 {
				n = s.w.MaxAllowedAlarmIntervalNum() + rapid.Int64Range(-1, 1).Draw(t, "intervalEdge")
			}
			s.nextID++
			id := s.nextID
			a, err := s.w.AddAtIntervalNum(n, id)
			ma, merr := s.m.AddAtIntervalNum(n, id)
			s.logf("AddAtIntervalNum(%d, %d) -> %v", n, id, err)
			s.sameErr(t, "AddAtIntervalNum", err, merr)
			if err == nil {
				s.real[id], s.mod[id] = a, ma
			}
		},
		"Remove": func(t *rapid.T) {
			id, a, ma := s.pick(t, "remove")
			err := s.w.Remove(a)
			merr := s.m.Remove(ma)
			s.logf("Remove(id %d) -> %v", id, err)
			s.sameErr(t, "Remove", err, merr)
			if err == nil {
				s.fired[id] = true
				s.forget(id)
			}
		},
		"Reschedule": func(t *rapid.T) {
			id, a, ma := s.pick(t, "resched")
			at := s.genTime(t, "reschedAt")
			err := s.w.Reschedule(a, at)
			merr := s.m.Reschedule(ma, at)
			s.logf("Reschedule(id %d, %d) -> %v", id, at.UnixNano(), err)
			s.sameErr(t, "Reschedule", err, merr)
		},
		"RescheduleAtIntervalNum": func(t *rapid.T) {
			id, a, ma := s.pick(t, "reschedN")
			n := s.w.NowIntervalNum() + rapid.Int64Range(-1, 20).Draw(t, "reschedDelta")
			err := s.w.RescheduleAtIntervalNum(a, n)
			merr := s.m.RescheduleAtIntervalNum(ma, n)
			s.logf("RescheduleAtIntervalNum(id %d, %d) -> %v", id, n, err)
			s.sameErr(t, "RescheduleAtIntervalNum", err, merr)
		},
		"AdvanceClock": func(t *rapid.T) {
			to := s.genAdvance(t, "to")
			hs := s.genScript(t)
			s.logf("AdvanceClock(%d) script %+v", to.UnixNano(), hs)
			s.fireOp(t, "AdvanceClock", hs,
				func(h func(alarm.Alarm)) error { return s.w.AdvanceClock(to, h) },
				func(h func(ModelAlarm)) error { return s.m.AdvanceClock(to, h) }, true)
		},
		"AdvanceClockLimit": func(t *rapid.T) {
			to := s.genAdvance(t, "limitTo")
			limit := rapid.IntRange(0, 5).Draw(t, "limit")
			hs := s.genScript(t)
			s.logf("AdvanceClockLimit(%d, %d) script %+v", to.UnixNano(), limit, hs)
			var gotN, wantN int
			var gotDone, wantDone bool
			s.fireOp(t, "AdvanceClockLimit", hs,
				func(h func(alarm.Alarm)) (err error) {
					gotN, gotDone, err = s.w.AdvanceClockLimit(to, limit, h)
					return err
				},
				func(h func(ModelAlarm)) (err error) {
					wantN, wantDone, err = s.m.AdvanceClockLimit(to, limit, h)
					return err
				}, true)
			if gotN != wantN || gotDone != wantDone {
				s.fatalf(t, "AdvanceClockLimit returned (%d, %v), model (%d, %v)", gotN, gotDone, wantN, wantDone)
			}
		},
		"FirePastAlarms": func(t *rapid.T) {
			hs := s.genScript(t)
			s.logf("FirePastAlarms script %+v", hs)
			s.fireOp(t, "FirePastAlarms", hs,
				func(h func(alarm.Alarm)) error { s.w.FirePastAlarms(h); return nil },
				func(h func(ModelAlarm)) error { s.m.FirePastAlarms(h); return nil }, false)
		},
		"AdvanceClockStopAtNextAlarm": func(t *rapid.T) {
			to := s.genAdvance(t, "stopTo")
			hs := s.genScript(t)
			s.logf("AdvanceClockStopAtNextAlarm(%d) script %+v", to.UnixNano(), hs)
			s.fireOp(t, "AdvanceClockStopAtNextAlarm", hs,
				func(h func(alarm.Alarm)) error { return s.w.AdvanceClockStopAtNextAlarm(to, h) },
				func(h func(ModelAlarm)) error { return s.m.AdvanceClockStopAtNextAlarm(to, h) }, false)
		},
		"Shrink": func(t *rapid.T) {
			s.logf("Shrink")
			s.w.Shrink() // not observable: every handle and alarm must survive it
		},
		"Clear": func(t *rapid.T) {
			if rapid.IntRange(0, 9).Draw(t, "clearRare") != 0 {
				return
			}
			s.logf("Clear")
			s.w.Clear()
			s.m.Clear()
			for _, id := range s.liveIDs() {
				s.fired[id] = true
				s.forget(id)
			}
		},
		"": func(t *rapid.T) { s.compare(t) },
	}
	if s.o.steps > 0 {
		for i := 0; i < s.o.steps; i++ {
			names := []string{"Add", "Add", "AddAtIntervalNum", "Remove", "Reschedule", "RescheduleAtIntervalNum",
				"AdvanceClock", "AdvanceClock", "AdvanceClockLimit", "FirePastAlarms", "AdvanceClockStopAtNextAlarm", "Shrink", "Clear"}
			actions[rapid.SampledFrom(names).Draw(t, "action")](t)
			s.compare(t)
		}
		return
	}
	t.Repeat(actions)
}

// compare checks every observable and the invariant after a step.
func (s *wheelMachine) compare(t *rapid.T) {
	if err := s.w.Invariant(); err != nil {
		s.fatalf(t, "Invariant: %v", err)
	}
	if s.w.Len() != s.m.Len() || s.w.IsEmpty() != s.m.IsEmpty() {
		s.fatalf(t, "Len %d, model %d", s.w.Len(), s.m.Len())
	}
	if !s.w.Now().Equal(s.m.Now()) {
		s.fatalf(t, "Now %d, model %d", s.w.Now().UnixNano(), s.m.Now().UnixNano())
	}
	if got, want := s.w.MaxAllowedAlarmTime(), s.m.MaxAllowedAlarmTime(); !got.Equal(want) {
		s.fatalf(t, "MaxAllowedAlarmTime %d, model %d", got.UnixNano(), want.UnixNano())
	}
	g1, ok1 := s.w.NextAlarmFiresAt()
	w1, okm1 := s.m.NextAlarmFiresAt()
	if ok1 != okm1 || !g1.Equal(w1) {
		s.fatalf(t, "NextAlarmFiresAt %v %v, model %v %v", g1, ok1, w1, okm1)
	}
	g2, ok2 := s.w.MinAlarmIntervalNum()
	w2, okm2 := s.m.MinAlarmIntervalNum()
	if ok2 != okm2 || g2 != w2 {
		s.fatalf(t, "MinAlarmIntervalNum %d %v, model %d %v", g2, ok2, w2, okm2)
	}
	g3, ok3 := s.w.MinAlarmTimeInMinInterval()
	w3, okm3 := s.m.MinAlarmTimeInMinInterval()
	if ok3 != okm3 || ok3 && !g3.Equal(w3) {
		s.fatalf(t, "MinAlarmTimeInMinInterval %v %v, model %v %v", g3, ok3, w3, okm3)
	}
	g4, ok4 := s.w.MaxAlarmTimeInMinInterval()
	w4, okm4 := s.m.MaxAlarmTimeInMinInterval()
	if ok4 != okm4 || ok4 && !g4.Equal(w4) {
		s.fatalf(t, "MaxAlarmTimeInMinInterval %v %v, model %v %v", g4, ok4, w4, okm4)
	}
	for id, a := range s.real {
		ma := s.mod[id]
		at, err := s.w.AlarmAt(a)
		mat, merr := s.m.AlarmAt(ma)
		if err != nil || merr != nil || !at.Equal(mat) {
			s.fatalf(t, "AlarmAt(id %d) %v %v, model %v %v", id, at, err, mat, merr)
		}
	}
	for _, a := range s.dead {
		if s.w.Mem(a) {
			s.fatalf(t, "dead handle %v is a member", a)
		}
	}
	n := 0
	for range s.w.All() {
		n++
	}
	if n != s.w.Len() {
		s.fatalf(t, "All yields %d alarms, Len %d", n, s.w.Len())
	}
	st := s.w.Stats()
	onLevels := st.Overflow + st.Due
	for _, c := range st.Levels {
		onLevels += c
	}
	if st.Live != s.w.Len() || onLevels != st.Live || st.Capacity < st.Live {
		s.fatalf(t, "Stats %+v inconsistent with Len %d", st, s.w.Len())
	}
	if !s.cfg.Overflow() && st.Overflow != 0 {
		s.fatalf(t, "Stats.Overflow %d without overflow levels", st.Overflow)
	}
}
