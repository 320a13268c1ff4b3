package proptest

import (
	"errors"
	"fmt"
	"iter"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/proptest/internal/harness"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// WheelOf is the least a wheel of yours must have for WithWrapper: the calls
// that let the checks compare it with the model, for values of any type V.
// Add and AdvanceClock are the calls the checks draw; Now and Len, read after
// every call, show an alarm fired early (its time not before Now), one lost
// or kept (Len), and the order (what AdvanceClock fires, compared with the
// model's order: by interval, then by the order of adds).
//
// Every other method of *timingwheel.Wheel[V] your wrapper has (the list is
// at WithWrapper) is found and checked too; one with the name of such a
// method but another signature fails the check.
type WheelOf[V any] interface {
	Now() time.Time
	Len() int
	Add(at time.Time, v V) (alarm.Alarm, error)
	AdvanceClock(to time.Time, fired func(timingwheel.Fired[V])) error
}

// WithWrapper makes the wheel under test with newWheel instead of
// timingwheel.NewWithConfig[int]: use it to check a wheel of your own, such
// as a *timingwheel.Wheel[V] behind a mutex, with CheckWheel,
// CheckWheelBytes, Replay, ReplayText and the gopter front-ends. newWheel
// gets each config and start time the checks draw (WithConfigs fixes them)
// and must return an empty wheel with that config, or the error
// timingwheel.NewWithConfig returns.
//
// Besides WheelOf's methods, the checks call and compare these methods of
// *timingwheel.Wheel[V] when your wheel has them: Remove, Reschedule,
// AddAtIntervalNum, RescheduleAtIntervalNum, AdvanceClockLimit,
// FirePastAlarms, AdvanceClockStopAtNextAlarm, Step, Clear, Shrink, Mem,
// AlarmAt, AlarmIntervalNum, AlarmValue, IsEmpty, All, NowIntervalNum,
// MaxAllowedAlarmTime, MaxAllowedAlarmIntervalNum, NextAlarmFiresAt,
// MinAlarmIntervalNum, MinAlarmTimeInMinInterval, MaxAlarmTimeInMinInterval,
// Stats and Invariant. Calls it lacks are never drawn; queries it lacks are
// not compared. CheckWheel and Replay log once which of them your wheel has
// (go test -v shows it). A method of your wheel with one of these names must
// have the wheel's signature (for V): one with another, such as a Remove
// that returns a bool, fails the check with its name, its signature and the
// wheel's, instead of going unchecked.
//
// The checks add the alarm's id as its value when V is int, else the zero V
// (WithValues: values of your choice), and tell alarms apart by the handles
// Add returns. Handlers do not call back into
// the wheel, so a wrapper that holds a lock while its handlers run works
// (WithReentrantHandlers turns such calls on), and a call that does not
// return within WithCallTimeout's deadline fails the test with the call's
// name, its arguments and the trace so far.
func WithWrapper[V any, W WheelOf[V]](newWheel func(cfg config.Config, start time.Time) (W, error)) Option {
	return func(o *options) {
		o.wheelFactory = func(cfg config.Config, start time.Time) (harness.Wheel, error) {
			w, err := func() (W, error) {
				o.calls.enter(&call{name: "your wheel's constructor", args: []any{cfg, start}, constructor: true})
				defer o.calls.leave()
				return newWheel(cfg, start)
			}()
			if err != nil {
				return nil, err
			}
			return newWrapped[V](w, o)
		}
		o.wrapped = true
	}
}

// WithValues makes the checks add value(id) as the value of the alarm with
// that id (ids count up from 1, as in a trace) instead of the zero V, and
// compare the value every handler and AlarmValue returns with it
// (reflect.DeepEqual). Use it with WithWrapper; V must be its value type.
func WithValues[V any](value func(id int) V) Option {
	return func(o *options) { o.values = value }
}

// WithReentrantHandlers lets the handlers of the wheel under test call back
// into it, as the checks of the library's own wheel do: add, remove or
// reschedule alarms, Shrink, and ask about the alarm being fired. Use it with
// WithWrapper or WithWheelFactory only if your wheel allows calls from its
// handlers (a wrapper that holds its lock while handlers run does not).
func WithReentrantHandlers() Option { return func(o *options) { o.reentrant = true } }

// WithCallTimeout sets how long one call of the checks may take before the
// test fails with the call's name and arguments (default 5s): a call that
// never returns, such as a deadlock in a wrapper, fails instead of hanging
// until go test's -timeout. Every call into the structure under test is
// timed: your wheel's or queue's constructor, the queries the checks make
// before the first call, and every call after.
func WithCallTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// defaultTimeout is WithCallTimeout's default.
const defaultTimeout = 5 * time.Second

// call is a call into the wheel under test, for the message of one that does
// not return.
type call struct {
	name        string
	on          *namedAlarm // the handle a query is about, if any
	args        []any
	parent      *call // the call whose handler made this one
	constructor bool  // the user's constructor
}

func (c *call) String() string {
	var s []string
	if c.on != nil {
		s = append(s, c.on.String())
	}
	for _, a := range c.args {
		switch a := a.(type) {
		case time.Time:
			s = append(s, fmt.Sprintf("%s (%d ns)", a.Format(time.RFC3339Nano), a.UnixNano()))
		default:
			s = append(s, fmt.Sprintf("%v", a))
		}
	}
	return fmt.Sprintf("%s(%s)", c.name, strings.Join(s, ", "))
}

// calls tracks the call into the wheel under test that is running, for the
// deadline's message.
type calls struct{ cur atomic.Pointer[call] }

func (cs *calls) enter(c *call) {
	c.parent = cs.cur.Load()
	cs.cur.Store(c)
}

func (cs *calls) leave() {
	if c := cs.cur.Load(); c != nil {
		cs.cur.Store(c.parent)
	}
}

// The optional methods of a wrapper, by the name the checks know them by.
type (
	remover     interface{ Remove(alarm.Alarm) error }
	rescheduler interface {
		Reschedule(alarm.Alarm, time.Time) error
	}
	atIntervalAdder[V any] interface {
		AddAtIntervalNum(int64, V) (alarm.Alarm, error)
	}
	atIntervalRescheduler interface {
		RescheduleAtIntervalNum(alarm.Alarm, int64) error
	}
	limitAdvancer[V any] interface {
		AdvanceClockLimit(time.Time, int, func(timingwheel.Fired[V])) (int, bool, error)
	}
	pastFirer[V any] interface {
		FirePastAlarms(func(timingwheel.Fired[V]))
	}
	nextStopper[V any] interface {
		AdvanceClockStopAtNextAlarm(time.Time, func(timingwheel.Fired[V])) error
	}
	stepper[V any] interface {
		Step(func(timingwheel.Fired[V])) bool
	}
	clearer      interface{ Clear() }
	shrinker     interface{ Shrink() }
	memberTester interface{ Mem(alarm.Alarm) bool }
	alarmAtter   interface {
		AlarmAt(alarm.Alarm) (time.Time, error)
	}
	alarmIntervaler interface {
		AlarmIntervalNum(alarm.Alarm) (int64, error)
	}
	alarmValuer[V any] interface{ AlarmValue(alarm.Alarm) (V, error) }
	emptier            interface{ IsEmpty() bool }
	aller              interface{ All() iter.Seq[alarm.Alarm] }
	nowIntervaler      interface{ NowIntervalNum() int64 }
	maxTimer           interface{ MaxAllowedAlarmTime() time.Time }
	maxIntervaler      interface{ MaxAllowedAlarmIntervalNum() int64 }
	nextFirer          interface{ NextAlarmFiresAt() (time.Time, bool) }
	minIntervaler      interface{ MinAlarmIntervalNum() (int64, bool) }
	minTimer           interface {
		MinAlarmTimeInMinInterval() (time.Time, bool)
	}
	maxInMinTimer interface {
		MaxAlarmTimeInMinInterval() (time.Time, bool)
	}
	statser     interface{ Stats() timingwheel.Stats }
	invarianter interface{ Invariant() error }
)

// optional lists the optional methods: a name and whether w has it.
func optional[V any](w any) map[string]bool {
	m := map[string]bool{
		"Remove":                      is[remover](w),
		"Reschedule":                  is[rescheduler](w),
		"AddAtIntervalNum":            is[atIntervalAdder[V]](w),
		"RescheduleAtIntervalNum":     is[atIntervalRescheduler](w),
		"AdvanceClockLimit":           is[limitAdvancer[V]](w),
		"FirePastAlarms":              is[pastFirer[V]](w),
		"AdvanceClockStopAtNextAlarm": is[nextStopper[V]](w),
		"Step":                        is[stepper[V]](w),
		"Clear":                       is[clearer](w),
		"Shrink":                      is[shrinker](w),
		"Mem":                         is[memberTester](w),
		"AlarmAt":                     is[alarmAtter](w),
		"AlarmIntervalNum":            is[alarmIntervaler](w),
		"AlarmValue":                  is[alarmValuer[V]](w),
		"IsEmpty":                     is[emptier](w),
		"All":                         is[aller](w),
		"NowIntervalNum":              is[nowIntervaler](w),
		"MaxAllowedAlarmTime":         is[maxTimer](w),
		"MaxAllowedAlarmIntervalNum":  is[maxIntervaler](w),
		"NextAlarmFiresAt":            is[nextFirer](w),
		"MinAlarmIntervalNum":         is[minIntervaler](w),
		"MinAlarmTimeInMinInterval":   is[minTimer](w),
		"MaxAlarmTimeInMinInterval":   is[maxInMinTimer](w),
		"Stats":                       is[statser](w),
		"Invariant":                   is[invarianter](w),
	}
	for _, name := range []string{"Now", "Len", "Add", "AdvanceClock"} {
		m[name] = true
	}
	return m
}

func is[I any](w any) bool {
	_, ok := w.(I)
	return ok
}

// firing is the alarm whose handler is running, as its Fired event gave it.
type firing struct {
	a   alarm.Alarm
	id  int
	at  time.Time
	err error // the event does not match what was added
}

// wrapped is a user's wheel seen as the harness's Wheel: ids for values,
// its optional methods where it has them, and each call recorded for the
// deadline's message.
type wrapped[V any] struct {
	w         WheelOf[V]
	has       map[string]bool
	reentrant bool
	value     func(id int) V // nil: the zero V
	ids       map[alarm.Alarm]int
	calls     *calls
	firing    *firing
	same      func(v V, id int) bool // nil: reflect.DeepEqual(v, value(id))
}

func newWrapped[V any](w WheelOf[V], o *options) (*wrapped[V], error) {
	x := &wrapped[V]{w: w, has: optional[V](w), reentrant: o.reentrant, ids: map[alarm.Alarm]int{}, calls: &o.calls}
	switch ids := any(func(id int) int { return id }); {
	case o.values == nil && is[func(int) V](ids):
		x.value = ids.(func(int) V) // V is int: the id itself
		x.same = any(func(v, id int) bool { return v == id }).(func(V, int) bool)
	case o.values != nil:
		f, ok := o.values.(func(int) V)
		if !ok {
			return nil, harness.UsageError{Err: fmt.Errorf("proptest: WithValues makes values of type %s, but the wheel holds %s",
				reflect.TypeOf(o.values).Out(0), reflect.TypeFor[V]())}
		}
		x.value = f
	}
	methods, err := compared[V](w)
	o.methods = methods
	return x, err
}

// wheelMethods are the methods of *timingwheel.Wheel the checks call or
// compare: WheelOf's, then the others in the order of WithWrapper's doc.
var wheelMethods = []string{"Now", "Len", "Add", "AdvanceClock",
	"Remove", "Reschedule", "AddAtIntervalNum", "RescheduleAtIntervalNum", "AdvanceClockLimit", "FirePastAlarms",
	"AdvanceClockStopAtNextAlarm", "Step", "Clear", "Shrink", "Mem", "AlarmAt", "AlarmIntervalNum", "AlarmValue",
	"IsEmpty", "All", "NowIntervalNum", "MaxAllowedAlarmTime", "MaxAllowedAlarmIntervalNum", "NextAlarmFiresAt",
	"MinAlarmIntervalNum", "MinAlarmTimeInMinInterval", "MaxAlarmTimeInMinInterval", "Stats", "Invariant"}

// compared says which of wheelMethods w has, for the log, or fails on a
// near miss: a method with the name of one of them but another signature,
// which the checks would otherwise skip without a word.
func compared[V any](w any) (string, error) {
	key := [2]reflect.Type{reflect.TypeOf(w), reflect.TypeFor[V]()}
	if c, ok := comparedCache.Load(key); ok {
		c := c.(comparison)
		return c.methods, c.err
	}
	methods, err := compare[V](w)
	comparedCache.Store(key, comparison{methods, err})
	return methods, err
}

// comparedCache holds compared's answers by the wheel's type and V: the
// checks make a wheel for every run.
var comparedCache sync.Map

type comparison struct {
	methods string
	err     error
}

func compare[V any](w any) (string, error) {
	got, want := reflect.ValueOf(w), reflect.ValueOf((*timingwheel.Wheel[V])(nil))
	var has, lacks, misses []string
	for _, name := range wheelMethods {
		m := got.MethodByName(name)
		switch wt := want.MethodByName(name).Type(); {
		case !m.IsValid():
			lacks = append(lacks, name)
		case m.Type() != wt:
			misses = append(misses, fmt.Sprintf("%s is %s, the wheel's is %s", name, sig(m.Type()), sig(wt)))
		default:
			has = append(has, name)
		}
	}
	typ := reflect.TypeOf(w)
	if len(misses) > 0 {
		return "", harness.UsageError{Err: fmt.Errorf("proptest: WithWrapper: your %v's %s. The checks call and compare "+
			"a wheel's methods only with the signatures of *timingwheel.Wheel[%v]: fix the signature, or rename "+
			"the method if it is not the wheel's", typ, strings.Join(misses, "; its "), reflect.TypeFor[V]())}
	}
	s := fmt.Sprintf("proptest: WithWrapper: the checks call and compare %s of your %v", list(has), typ)
	if len(lacks) > 0 {
		s += fmt.Sprintf("; it has none of the wheel's %s", list(lacks))
	}
	return s, nil
}

// sig is a method's type as its source would spell it: package names
// without their paths, and alarm.Alarm for the handle type it aliases.
func sig(t reflect.Type) string {
	s := regexp.MustCompile(`(?:[\w.-]+/)+(\w+\.)`).ReplaceAllString(t.String(), "$1")
	return strings.ReplaceAll(s, "pool.Handle", "alarm.Alarm")
}

// list joins names as in a sentence: "a, b and c".
func list(names []string) string {
	if n := len(names); n > 1 {
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return strings.Join(names, "")
}

// Has implements harness.Wrapper.
func (x *wrapped[V]) Has(method string) bool { return x.has[method] }

// Reentrant implements harness.Wrapper.
func (x *wrapped[V]) Reentrant() bool { return x.reentrant }

func (x *wrapped[V]) enter(name string, args ...any) { x.calls.enter(&call{name: name, args: args}) }
func (x *wrapped[V]) leave()                         { x.calls.leave() }

// enterOn enters a query about a handle (one allocation: the checks make
// four such queries about every handle after every call).
func (x *wrapped[V]) enterOn(name string, a alarm.Alarm) {
	x.calls.enter(&call{name: name, on: &namedAlarm{a, x.ids[a]}})
}

// namedAlarm is a handle in a call's arguments, with the id the trace names
// it by.
type namedAlarm struct {
	a  alarm.Alarm
	id int
}

func (n namedAlarm) String() string {
	if n.id == 0 {
		return n.a.String()
	}
	return fmt.Sprintf("alarm %d", n.id)
}

func (x *wrapped[V]) named(a alarm.Alarm) namedAlarm { return namedAlarm{a, x.ids[a]} }

// valueOf is the value of an add in a call's arguments.
type valueOf int

func (v valueOf) String() string { return fmt.Sprintf("the value of alarm %d", int(v)) }

// val is the value the checks add for id.
func (x *wrapped[V]) val(id int) V {
	if x.value == nil {
		var v V
		return v
	}
	return x.value(id)
}

// id returns the id of a handle Add returned.
func (x *wrapped[V]) id(a alarm.Alarm) (int, error) {
	if id, ok := x.ids[a]; ok {
		return id, nil
	}
	return 0, fmt.Errorf("proptest: %v is not a handle any Add of the checks returned", a)
}

// checkValue checks a value the wheel returned for id.
func (x *wrapped[V]) checkValue(id int, v V) error {
	if x.same != nil && x.same(v, id) {
		return nil
	}
	if x.value != nil && !reflect.DeepEqual(v, x.value(id)) {
		return fmt.Errorf("proptest: alarm %d has value %v, added with %v", id, v, x.value(id))
	}
	return nil
}

// handler adapts the harness's handler to the wheel's values: the id comes
// from the handle, and the event answers the queries about the alarm being
// fired unless handlers may call the wheel.
func (x *wrapped[V]) handler(f func(timingwheel.Fired[int])) func(timingwheel.Fired[V]) {
	if f == nil {
		return nil
	}
	return func(ev timingwheel.Fired[V]) {
		fi := &firing{a: ev.Alarm, at: ev.At}
		fi.id, fi.err = x.id(ev.Alarm)
		if fi.err == nil {
			fi.err = x.checkValue(fi.id, ev.Value)
		}
		prev := x.firing
		x.firing = fi
		defer func() { x.firing = prev }()
		f(timingwheel.Fired[int]{Alarm: ev.Alarm, At: ev.At, Value: fi.id})
	}
}

// fired returns the event of a, if a is being fired and the event answers
// for it.
func (x *wrapped[V]) fired(a alarm.Alarm, method string) (*firing, bool) {
	f := x.firing
	return f, f != nil && f.a == a && (f.err != nil || !x.reentrant || !x.has[method])
}

// handlerArg names a handler in a call's arguments.
func handlerArg[F any](f func(F)) string {
	if f == nil {
		return "nil handler"
	}
	return "handler"
}

// errAbsent is what a method the wheel lacks returns; the harness never
// calls one (it asks Has first).
var errAbsent = errors.New("proptest: the wheel under test lacks this method")

// The harness's Wheel, with ids for values.

func (x *wrapped[V]) Now() time.Time { x.enter("Now"); defer x.leave(); return x.w.Now() }
func (x *wrapped[V]) Len() int       { x.enter("Len"); defer x.leave(); return x.w.Len() }

func (x *wrapped[V]) Add(at time.Time, id int) (alarm.Alarm, error) {
	x.enter("Add", at, valueOf(id))
	defer x.leave()
	a, err := x.w.Add(at, x.val(id))
	if err == nil {
		x.ids[a] = id
	}
	return a, err
}

func (x *wrapped[V]) AdvanceClock(to time.Time, fired func(timingwheel.Fired[int])) error {
	x.enter("AdvanceClock", to, handlerArg(fired))
	defer x.leave()
	return x.w.AdvanceClock(to, x.handler(fired))
}

func (x *wrapped[V]) IsEmpty() bool {
	w, ok := x.w.(emptier)
	if !ok {
		return false
	}
	x.enter("IsEmpty")
	defer x.leave()
	return w.IsEmpty()
}

// All collects the handles before it yields them: the harness asks about
// each, which a wrapper's All holding its lock would block.
func (x *wrapped[V]) All() iter.Seq[alarm.Alarm] {
	var as []alarm.Alarm
	if w, ok := x.w.(aller); ok {
		x.enter("All")
		for a := range w.All() {
			as = append(as, a)
		}
		x.leave()
	}
	return func(yield func(alarm.Alarm) bool) {
		for _, a := range as {
			if !yield(a) {
				return
			}
		}
	}
}

func (x *wrapped[V]) NowIntervalNum() int64 {
	w, ok := x.w.(nowIntervaler)
	if !ok {
		return 0
	}
	x.enter("NowIntervalNum")
	defer x.leave()
	return w.NowIntervalNum()
}

func (x *wrapped[V]) MaxAllowedAlarmTime() time.Time {
	w, ok := x.w.(maxTimer)
	if !ok {
		return time.Time{}
	}
	x.enter("MaxAllowedAlarmTime")
	defer x.leave()
	return w.MaxAllowedAlarmTime()
}

func (x *wrapped[V]) MaxAllowedAlarmIntervalNum() int64 {
	w, ok := x.w.(maxIntervaler)
	if !ok {
		return 0
	}
	x.enter("MaxAllowedAlarmIntervalNum")
	defer x.leave()
	return w.MaxAllowedAlarmIntervalNum()
}

func (x *wrapped[V]) AddAtIntervalNum(n int64, id int) (alarm.Alarm, error) {
	w, ok := x.w.(atIntervalAdder[V])
	if !ok {
		return alarm.Alarm{}, errAbsent
	}
	x.enter("AddAtIntervalNum", n, valueOf(id))
	defer x.leave()
	a, err := w.AddAtIntervalNum(n, x.val(id))
	if err == nil {
		x.ids[a] = id
	}
	return a, err
}

func (x *wrapped[V]) Mem(a alarm.Alarm) bool {
	w, ok := x.w.(memberTester)
	if !ok {
		return false
	}
	x.enterOn("Mem", a)
	defer x.leave()
	return w.Mem(a)
}

func (x *wrapped[V]) Remove(a alarm.Alarm) error {
	w, ok := x.w.(remover)
	if !ok {
		return errAbsent
	}
	x.enter("Remove", x.named(a))
	defer x.leave()
	return w.Remove(a)
}

func (x *wrapped[V]) Reschedule(a alarm.Alarm, at time.Time) error {
	w, ok := x.w.(rescheduler)
	if !ok {
		return errAbsent
	}
	x.enter("Reschedule", x.named(a), at)
	defer x.leave()
	return w.Reschedule(a, at)
}

func (x *wrapped[V]) RescheduleAtIntervalNum(a alarm.Alarm, n int64) error {
	w, ok := x.w.(atIntervalRescheduler)
	if !ok {
		return errAbsent
	}
	x.enter("RescheduleAtIntervalNum", x.named(a), n)
	defer x.leave()
	return w.RescheduleAtIntervalNum(a, n)
}

func (x *wrapped[V]) Clear() {
	if w, ok := x.w.(clearer); ok {
		x.enter("Clear")
		defer x.leave()
		w.Clear()
	}
}

func (x *wrapped[V]) Shrink() {
	if w, ok := x.w.(shrinker); ok {
		x.enter("Shrink")
		defer x.leave()
		w.Shrink()
	}
}

func (x *wrapped[V]) Stats() timingwheel.Stats {
	w, ok := x.w.(statser)
	if !ok {
		return timingwheel.Stats{}
	}
	x.enter("Stats")
	defer x.leave()
	return w.Stats()
}

func (x *wrapped[V]) AlarmAt(a alarm.Alarm) (time.Time, error) {
	if f, ok := x.fired(a, "AlarmAt"); ok {
		return f.at, f.err
	}
	w, ok := x.w.(alarmAtter)
	if !ok {
		return time.Time{}, errAbsent
	}
	x.enterOn("AlarmAt", a)
	defer x.leave()
	return w.AlarmAt(a)
}

func (x *wrapped[V]) AlarmIntervalNum(a alarm.Alarm) (int64, error) {
	w, ok := x.w.(alarmIntervaler)
	if !ok {
		return 0, errAbsent
	}
	x.enterOn("AlarmIntervalNum", a)
	defer x.leave()
	return w.AlarmIntervalNum(a)
}

// AlarmValue returns the id of a's value: from the event while a is being
// fired, else from the wheel's AlarmValue checked against the value added,
// or, for a wheel without AlarmValue, from the handle (All's check asks).
func (x *wrapped[V]) AlarmValue(a alarm.Alarm) (int, error) {
	if f, ok := x.fired(a, "AlarmValue"); ok {
		return f.id, f.err
	}
	w, ok := x.w.(alarmValuer[V])
	if !ok {
		return x.id(a)
	}
	x.enterOn("AlarmValue", a)
	v, err := w.AlarmValue(a)
	x.leave()
	if err != nil {
		return 0, err
	}
	id, err := x.id(a)
	if err == nil {
		err = x.checkValue(id, v)
	}
	return id, err
}

func (x *wrapped[V]) AdvanceClockLimit(to time.Time, limit int, fired func(timingwheel.Fired[int])) (int, bool, error) {
	w, ok := x.w.(limitAdvancer[V])
	if !ok {
		return 0, false, errAbsent
	}
	x.enter("AdvanceClockLimit", to, limit, handlerArg(fired))
	defer x.leave()
	return w.AdvanceClockLimit(to, limit, x.handler(fired))
}

func (x *wrapped[V]) FirePastAlarms(fired func(timingwheel.Fired[int])) {
	if w, ok := x.w.(pastFirer[V]); ok {
		x.enter("FirePastAlarms", handlerArg(fired))
		defer x.leave()
		w.FirePastAlarms(x.handler(fired))
	}
}

func (x *wrapped[V]) AdvanceClockStopAtNextAlarm(to time.Time, fired func(timingwheel.Fired[int])) error {
	w, ok := x.w.(nextStopper[V])
	if !ok {
		return errAbsent
	}
	x.enter("AdvanceClockStopAtNextAlarm", to, handlerArg(fired))
	defer x.leave()
	return w.AdvanceClockStopAtNextAlarm(to, x.handler(fired))
}

// Step forwards timingwheel's Step (fire the earliest pending interval), for
// wheels that have it.
func (x *wrapped[V]) Step(fired func(timingwheel.Fired[int])) bool {
	w, ok := x.w.(stepper[V])
	if !ok {
		return false
	}
	x.enter("Step", handlerArg(fired))
	defer x.leave()
	return w.Step(x.handler(fired))
}

func (x *wrapped[V]) NextAlarmFiresAt() (time.Time, bool) {
	w, ok := x.w.(nextFirer)
	if !ok {
		return time.Time{}, false
	}
	x.enter("NextAlarmFiresAt")
	defer x.leave()
	return w.NextAlarmFiresAt()
}

func (x *wrapped[V]) MinAlarmIntervalNum() (int64, bool) {
	w, ok := x.w.(minIntervaler)
	if !ok {
		return 0, false
	}
	x.enter("MinAlarmIntervalNum")
	defer x.leave()
	return w.MinAlarmIntervalNum()
}

func (x *wrapped[V]) MinAlarmTimeInMinInterval() (time.Time, bool) {
	w, ok := x.w.(minTimer)
	if !ok {
		return time.Time{}, false
	}
	x.enter("MinAlarmTimeInMinInterval")
	defer x.leave()
	return w.MinAlarmTimeInMinInterval()
}

func (x *wrapped[V]) MaxAlarmTimeInMinInterval() (time.Time, bool) {
	w, ok := x.w.(maxInMinTimer)
	if !ok {
		return time.Time{}, false
	}
	x.enter("MaxAlarmTimeInMinInterval")
	defer x.leave()
	return w.MaxAlarmTimeInMinInterval()
}

func (x *wrapped[V]) Invariant() error {
	w, ok := x.w.(invarianter)
	if !ok {
		return nil
	}
	x.enter("Invariant")
	defer x.leave()
	return w.Invariant()
}

var _ harness.Wrapper = (*wrapped[int])(nil)
var _ harness.Wheel = (*wrapped[int])(nil)
