package timingwheel_test

// Tests of the facts the original's expect tests establish
// (core_kernel timing_wheel/test/test_timing_wheel.ml), written anew: the
// expected values below are worked out by hand from the interval arithmetic
// (interval of t = t >> A, start of n = n << A) and the level geometry.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// gib is 2^30 ns, the original tests' unit ("about one second").
const gib = int64(1) << 30

const maxNs = int64(1)<<62 - 1

// atNs is the time n ns after the epoch.
func atNs(n int64) time.Time { return time.Unix(0, n).UTC() }

// atGib is the time num/den * 2^30 ns after the epoch (rounded down).
func atGib(num, den int64) time.Time { return atNs(num * gib / den) }

// wheelCfg is a test's wheel shape: precision 2^A ns and level bits (nil:
// the default), extended with 1-bit levels to 62 bits if extend.
type wheelCfg struct {
	p      config.AlarmPrecision
	bits   []int
	extend bool
	opts   []config.Option
}

func (c wheelCfg) config(t testing.TB) config.Config {
	t.Helper()
	opts := slices.Clone(c.opts)
	if c.bits != nil {
		mk := levelbits.New
		if c.extend {
			mk = levelbits.NewExtended
		}
		lb, err := mk(c.bits...)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, config.WithLevelBits(lb))
	}
	cfg, err := config.New(c.p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func mkWheel[T any](t testing.TB, c wheelCfg, start time.Time) *timingwheel.Wheel[T] {
	t.Helper()
	w, err := timingwheel.NewWithConfig[T](c.config(t), start)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func ok(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func isErr(t testing.TB, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

func valueOf[T any](t testing.TB, w *timingwheel.Wheel[T], a alarm.Alarm) T {
	t.Helper()
	v, err := w.AlarmValue(a)
	if err != nil {
		t.Fatalf("AlarmValue of a firing alarm: %v", err)
	}
	return v
}

// record returns a handler appending each fired alarm's value to *out.
// record returns a handler that appends each fired value to out, after
// checking that what the handler receives agrees with what the wheel answers
// for the handle inside it.
func record[T comparable](t testing.TB, w *timingwheel.Wheel[T], out *[]T) func(timingwheel.Fired[T]) {
	return func(ev timingwheel.Fired[T]) {
		t.Helper()
		if v := valueOf(t, w, ev.Alarm); v != ev.Value {
			t.Fatalf("handler got value %v, AlarmValue says %v", ev.Value, v)
		}
		if at, err := w.AlarmAt(ev.Alarm); err != nil || !at.Equal(ev.At) {
			t.Fatalf("handler got time %v, AlarmAt says %v (%v)", ev.At, at, err)
		}
		*out = append(*out, ev.Value)
	}
}

func inv(t testing.TB, w interface{ Invariant() error }) {
	t.Helper()
	if err := w.Invariant(); err != nil {
		t.Fatal(err)
	}
}

func TestMaxTime(t *testing.T) {
	if !timingwheel.MaxTime.Equal(time.Unix(0, 1<<62-1)) {
		t.Fatalf("MaxTime = %v", timingwheel.MaxTime)
	}
	want := time.Date(2116, 2, 20, 23, 53, 38, 427387903, time.UTC)
	if !timingwheel.MaxTime.Equal(want) {
		t.Fatalf("MaxTime = %v, want %v", timingwheel.MaxTime, want)
	}
}

// Precision 4 ns: times 0..3 are interval 0, 4..7 interval 1, and so on.
func TestIntervalNumFourNanoseconds(t *testing.T) {
	w := mkWheel[int](t, wheelCfg{p: 2}, atNs(0))
	for tm := int64(0); tm <= 9; tm++ {
		n, err := w.IntervalNum(atNs(tm))
		ok(t, err)
		if n != tm/4 {
			t.Errorf("IntervalNum(%dns) = %d, want %d", tm, n, tm/4)
		}
		s, err := w.IntervalStart(atNs(tm))
		ok(t, err)
		if !s.Equal(atNs(tm / 4 * 4)) {
			t.Errorf("IntervalStart(%dns) = %v", tm, s.UnixNano())
		}
	}
	// The original gives negative interval numbers before the epoch; here
	// such a time is out of range.
	for _, tm := range []time.Time{atNs(-1), atNs(-5), time.Unix(-1, 999_999_999)} {
		_, err := w.IntervalNum(tm)
		isErr(t, err, timingwheel.ErrTimeOutOfRange, fmt.Sprintf("IntervalNum(%v)", tm))
		_, err = w.IntervalStart(tm)
		isErr(t, err, timingwheel.ErrTimeOutOfRange, fmt.Sprintf("IntervalStart(%v)", tm))
	}
}

// Precision 2^30 ns: 0.1, 0.99 are interval 0; 1, 1.5, 1.99 interval 1; 2 is
// interval 2; IntervalNumStart and IntervalStart agree.
func TestIntervalNumAboutOneSecond(t *testing.T) {
	w := mkWheel[int](t, wheelCfg{p: config.AboutOneSecond}, atNs(0))
	tests := []struct {
		num, den, n int64
	}{
		{0, 1, 0}, {1, 10, 0}, {99, 100, 0}, {1, 1, 1}, {3, 2, 1}, {199, 100, 1}, {2, 1, 2},
	}
	for _, tc := range tests {
		tm := atGib(tc.num, tc.den)
		n, err := w.IntervalNum(tm)
		ok(t, err)
		s1, err := w.IntervalNumStart(n)
		ok(t, err)
		s2, err := w.IntervalStart(tm)
		ok(t, err)
		if n != tc.n || !s1.Equal(atNs(tc.n*gib)) || !s2.Equal(s1) {
			t.Errorf("%d/%d gib: interval %d, start %d, IntervalStart %d; want %d, %d",
				tc.num, tc.den, n, s1.UnixNano(), s2.UnixNano(), tc.n, tc.n*gib)
		}
	}
	// (2^62-1) >> 30 = 2^32-1.
	if got := w.MaxIntervalNum(); got != 1<<32-1 {
		t.Fatalf("MaxIntervalNum = %d, want %d", got, int64(1<<32-1))
	}
	n, err := w.IntervalNum(timingwheel.MaxTime)
	ok(t, err)
	if n != w.MaxIntervalNum() {
		t.Fatalf("IntervalNum(MaxTime) = %d", n)
	}
	last, err := w.IntervalNumStart(w.MaxIntervalNum())
	ok(t, err)
	if !last.Equal(atNs(1<<62 - 1<<30)) {
		t.Fatalf("IntervalNumStart(max) = %v", last)
	}
	for _, n := range []int64{-1, math.MinInt64, 1 << 32, 1<<62 - 1, math.MaxInt64} {
		_, err := w.IntervalNumStart(n)
		isErr(t, err, timingwheel.ErrIntervalNumOutOfRange, fmt.Sprintf("IntervalNumStart(%d)", n))
	}
	_, err = w.IntervalNum(timingwheel.MaxTime.Add(1))
	isErr(t, err, timingwheel.ErrTimeOutOfRange, "IntervalNum(MaxTime+1ns)")
}

func TestMaxIntervalNumPerPrecision(t *testing.T) {
	for _, a := range []int{0, 1, 10, 20, 30, 46, 61} {
		w := mkWheel[int](t, wheelCfg{p: config.AlarmPrecision(a)}, atNs(0))
		if got, want := w.MaxIntervalNum(), maxNs>>a; got != want {
			t.Errorf("2^%d: MaxIntervalNum %d, want %d", a, got, want)
		}
		if got := w.AlarmPrecision(); got != time.Duration(1)<<a {
			t.Errorf("2^%d: AlarmPrecision %v", a, got)
		}
	}
}

// The allowed alarm range right after New at the epoch, for the original's
// grid of level bits and precisions.
func TestMaxAllowedAlarmTime(t *testing.T) {
	precisions := []config.AlarmPrecision{
		config.OneNanosecond, config.AboutOneMicrosecond, config.AboutOneMillisecond,
		config.AboutOneSecond, config.AboutOneDay,
	}
	for _, p := range precisions {
		a := int64(p.Log2())
		tests := []struct {
			bits []int
			want int64 // ns
		}{
			{nil, maxNs},               // the default always reaches MaxTime
			{[]int{1}, 2<<a - 1},       // intervals 0 and 1
			{[]int{10}, 1<<(10+a) - 1}, // intervals 0..1023
		}
		for _, tc := range tests {
			w := mkWheel[int](t, wheelCfg{p: p, bits: tc.bits}, atNs(0))
			if got := w.MaxAllowedAlarmTime(); !got.Equal(atNs(tc.want)) {
				t.Errorf("2^%d %v: MaxAllowedAlarmTime = %d ns, want %d", a, tc.bits, got.UnixNano(), tc.want)
			}
			if got := w.MaxAllowedAlarmIntervalNum(); got != tc.want>>a {
				t.Errorf("2^%d %v: MaxAllowedAlarmIntervalNum = %d, want %d", a, tc.bits, got, tc.want>>a)
			}
			if w.MinAllowedAlarmIntervalNum() != 0 {
				t.Errorf("MinAllowedAlarmIntervalNum = %d, want 0", w.MinAllowedAlarmIntervalNum())
			}
		}
	}
	// Two of the original's printed times, as a check of the arithmetic:
	// [10] at 2^46 ns reaches 2^56-1 ns, [1] at 2^46 reaches 2^47-1 ns.
	w := mkWheel[int](t, wheelCfg{p: config.AboutOneDay, bits: []int{10}}, atNs(0))
	if want := time.Date(1972, 4, 13, 23, 59, 54, 37927935, time.UTC); !w.MaxAllowedAlarmTime().Equal(want) {
		t.Errorf("[10] at 2^46: %v, want %v", w.MaxAllowedAlarmTime(), want)
	}
	w = mkWheel[int](t, wheelCfg{p: config.AboutOneDay, bits: []int{1}}, atNs(0))
	if want := time.Date(1970, 1, 2, 15, 5, 37, 488355327, time.UTC); !w.MaxAllowedAlarmTime().Equal(want) {
		t.Errorf("[1] at 2^46: %v, want %v", w.MaxAllowedAlarmTime(), want)
	}
}

// Extended level bits [1 1 ... 1] reach MaxTime at every precision, with
// 62 - A bits.
func TestMaxAllowedAlarmTimeExtended(t *testing.T) {
	for _, a := range []int{0, 10, 20, 30, 33} {
		c := wheelCfg{p: config.AlarmPrecision(a), bits: []int{1}, extend: true}
		w := mkWheel[int](t, c, atNs(0))
		if n := w.Config().LevelBits().NumBits(); n != 62-a {
			t.Errorf("2^%d: %d level bits, want %d", a, n, 62-a)
		}
		if !w.MaxAllowedAlarmTime().Equal(timingwheel.MaxTime) {
			t.Errorf("2^%d: MaxAllowedAlarmTime %v", a, w.MaxAllowedAlarmTime())
		}
	}
	// 10 * 2^30 ns floors to 2^33 ns, as in the original's fifth case.
	p, err := config.FloorPow2(time.Duration(10 * gib))
	ok(t, err)
	if p.Log2() != 33 {
		t.Fatalf("FloorPow2(10 gib) = %v", p)
	}
}

// MaxAllowedAlarmIntervalNum for small level bits: level i spans 2^b_i slots
// of 2^(b_0+...+b_(i-1)) keys each, starting at the slot after level i-1.
func TestAllowedIntervalRangePerLevelBits(t *testing.T) {
	tests := []struct {
		bits []int
		max  int64
	}{
		{[]int{1}, 1},
		{[]int{1, 1}, 5},     // level 0 [0,1], level 1 [2,5]
		{[]int{1, 1, 1}, 11}, // level 2 starts at 6 (slot of 4 keys containing 6 is [4,7]) ... [4,11]
		{[]int{2}, 3},
		{[]int{3}, 7},
		{[]int{3, 1}, 23}, // level 1: slots of 8 keys from 8, two of them... [8,23]
	}
	for _, tc := range tests {
		w := mkWheel[int](t, wheelCfg{p: config.AboutOneSecond, bits: tc.bits}, atNs(0))
		if w.MinAllowedAlarmIntervalNum() != 0 || w.MaxAllowedAlarmIntervalNum() != tc.max {
			t.Errorf("%v: allowed [%d, %d], want [0, %d]", tc.bits, w.MinAllowedAlarmIntervalNum(),
				w.MaxAllowedAlarmIntervalNum(), tc.max)
		}
		// Every interval in the range takes an alarm; the next one does not.
		for n := int64(0); n <= tc.max; n++ {
			_, err := w.AddAtIntervalNum(n, int(n))
			ok(t, err)
		}
		_, err := w.AddAtIntervalNum(tc.max+1, -1)
		isErr(t, err, timingwheel.ErrTooFarInFuture, fmt.Sprintf("%v: AddAtIntervalNum(%d)", tc.bits, tc.max+1))
		inv(t, w)
	}
}

// The original's "[add] failures": level bits [1], precision 2^30. The
// allowed range is two intervals wide and follows the clock.
func TestAddAtIntervalNumFailures(t *testing.T) {
	w := mkWheel[int](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1}}, atNs(0))
	check := func(lo, hi int64) {
		t.Helper()
		if w.MinAllowedAlarmIntervalNum() != lo || w.MaxAllowedAlarmIntervalNum() != hi {
			t.Fatalf("allowed [%d, %d], want [%d, %d]", w.MinAllowedAlarmIntervalNum(), w.MaxAllowedAlarmIntervalNum(), lo, hi)
		}
		cases := []struct {
			n    int64
			want error
		}{
			{math.MinInt64, timingwheel.ErrIntervalNumOutOfRange},
			{-1, timingwheel.ErrIntervalNumOutOfRange},
			{lo - 1, timingwheel.ErrBeforeCurrentInterval},
			{hi + 1, timingwheel.ErrTooFarInFuture},
			{w.MaxIntervalNum() + 1, timingwheel.ErrIntervalNumOutOfRange},
			{1<<62 - 1, timingwheel.ErrIntervalNumOutOfRange},
			{math.MaxInt64, timingwheel.ErrIntervalNumOutOfRange},
		}
		for _, c := range cases {
			if c.n == lo-1 && lo == 0 {
				continue // -1: out of range, tested above
			}
			if c.n == hi+1 && hi == w.MaxIntervalNum() {
				continue // past the last interval: out of range, tested above
			}
			n := w.Len()
			_, err := w.AddAtIntervalNum(c.n, 0)
			isErr(t, err, c.want, fmt.Sprintf("AddAtIntervalNum(%d) with range [%d, %d]", c.n, lo, hi))
			if w.Len() != n {
				t.Fatal("a failed AddAtIntervalNum changed Len")
			}
		}
		for n := lo; n <= hi; n++ {
			_, err := w.AddAtIntervalNum(n, int(n))
			ok(t, err)
		}
		inv(t, w)
	}
	advance := func(n int64) {
		t.Helper()
		to, err := w.IntervalNumStart(n)
		ok(t, err)
		ok(t, w.AdvanceClock(to, nil))
	}
	check(0, 1)
	advance(1)
	check(1, 2)
	advance(w.MaxAllowedAlarmIntervalNum())
	check(2, 3)
	// At MaxTime the range is just the last interval, 2^32-1. (The original
	// reports a max allowed interval one past the last.)
	ok(t, w.AdvanceClock(timingwheel.MaxTime, nil))
	check(1<<32-1, 1<<32-1)
	if !w.MaxAllowedAlarmTime().Equal(timingwheel.MaxTime) {
		t.Fatalf("MaxAllowedAlarmTime at the end = %v", w.MaxAllowedAlarmTime())
	}
}

// Add by time: ErrTooFarInFuture is checked first, then
// ErrBeforeCurrentInterval; a time inside the current interval but before
// now is accepted and fires at the next FirePastAlarms or advance.
func TestAddErrorsByTime(t *testing.T) {
	w := mkWheel[string](t, wheelCfg{p: config.AboutOneSecond, bits: []int{10}}, atNs(0))
	// [10] at 2^30: intervals [0, 1023]: the last allowed ns is 1024 gib - 1.
	if !w.MaxAllowedAlarmTime().Equal(atNs(1024*gib - 1)) {
		t.Fatalf("MaxAllowedAlarmTime = %d", w.MaxAllowedAlarmTime().UnixNano())
	}
	_, err := w.Add(atNs(1024*gib), "too far")
	isErr(t, err, timingwheel.ErrTooFarInFuture, "Add(max+1ns)")
	_, err = w.AddAtIntervalNum(1024, "too far")
	isErr(t, err, timingwheel.ErrTooFarInFuture, "AddAtIntervalNum(1024)")
	_, err = w.Add(atNs(1024*gib-1), "last")
	ok(t, err)
	_, err = w.AddAtIntervalNum(1023, "last interval")
	ok(t, err)
	_, err = w.Add(atNs(-gib), "before the epoch")
	isErr(t, err, timingwheel.ErrBeforeCurrentInterval, "Add(-1 gib)")
	_, err = w.Add(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), "after MaxTime")
	isErr(t, err, timingwheel.ErrTooFarInFuture, "Add(year 3000)")
	_, err = w.Add(time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), "long ago")
	isErr(t, err, timingwheel.ErrBeforeCurrentInterval, "Add(year 1000)")

	// Now at 1.5 gib: interval 1 starts at 1 gib.
	ok(t, w.AdvanceClock(atGib(3, 2), nil))
	_, err = w.Add(atGib(99, 100), "previous interval")
	isErr(t, err, timingwheel.ErrBeforeCurrentInterval, "Add(0.99 gib) at 1.5")
	late, err := w.Add(atGib(11, 10), "in this interval, before now")
	ok(t, err)
	exact, err := w.Add(atGib(1, 1), "at the interval start")
	ok(t, err)
	if n, _ := w.AlarmIntervalNum(late); n != 1 {
		t.Fatalf("interval %d", n)
	}
	var got []string
	w.FirePastAlarms(record(t, w, &got))
	if want := []string{"in this interval, before now", "at the interval start"}; !slices.Equal(got, want) {
		t.Fatalf("FirePastAlarms fired %q, want %q", got, want)
	}
	if w.Mem(late) || w.Mem(exact) {
		t.Fatal("fired alarms still members")
	}
	// Far future, from a later clock: the range moved up by one interval.
	_, err = w.Add(atNs(1025*gib-1), "new last")
	ok(t, err)
	_, err = w.Add(atNs(1025*gib), "too far")
	isErr(t, err, timingwheel.ErrTooFarInFuture, "Add(1025 gib)")
	inv(t, w)
}

// The original's "[is_empty], [interval_num], [length], [mem]".
func TestMembershipAndIntervalNums(t *testing.T) {
	w := mkWheel[string](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1}}, atNs(0))
	if !w.IsEmpty() || w.Len() != 0 || w.Mem(alarm.Alarm{}) {
		t.Fatal("new wheel not empty, or the null alarm is a member")
	}
	a1, err := w.AddAtIntervalNum(0, "a1")
	ok(t, err)
	a2, err := w.AddAtIntervalNum(0, "a2")
	ok(t, err)
	if w.IsEmpty() || w.Len() != 2 || !w.Mem(a1) || !w.Mem(a2) || a1 == a2 {
		t.Fatal("after two adds")
	}
	for _, a := range []alarm.Alarm{a1, a2} {
		if n, err := w.AlarmIntervalNum(a); err != nil || n != 0 {
			t.Fatalf("AlarmIntervalNum = %d, %v", n, err)
		}
	}
	ok(t, w.Remove(a1))
	if w.Len() != 1 || w.Mem(a1) || !w.Mem(a2) {
		t.Fatal("after Remove(a1)")
	}
	_, err = w.AlarmIntervalNum(a1)
	isErr(t, err, timingwheel.ErrInvalidAlarm, "AlarmIntervalNum(removed)")
	_, err = w.AlarmAt(a1)
	isErr(t, err, timingwheel.ErrInvalidAlarm, "AlarmAt(removed)")
	_, err = w.AlarmValue(a1)
	isErr(t, err, timingwheel.ErrInvalidAlarm, "AlarmValue(removed)")

	ok(t, w.RescheduleAtIntervalNum(a2, 1))
	if n, err := w.AlarmIntervalNum(a2); err != nil || n != 1 {
		t.Fatalf("after reschedule: interval %d, %v", n, err)
	}
	if at, _ := w.AlarmAt(a2); !at.Equal(atNs(gib)) {
		t.Fatalf("after reschedule: at %v, want the start of interval 1", at)
	}
	isErr(t, w.RescheduleAtIntervalNum(a1, 1), timingwheel.ErrInvalidAlarm, "reschedule removed")
	isErr(t, w.Reschedule(a1, atNs(gib)), timingwheel.ErrInvalidAlarm, "reschedule removed")
	ok(t, w.Remove(a2))
	if !w.IsEmpty() || w.Mem(a2) {
		t.Fatal("after removing both")
	}
	isErr(t, w.Remove(a2), timingwheel.ErrInvalidAlarm, "remove twice")
	isErr(t, w.Remove(alarm.Alarm{}), timingwheel.ErrInvalidAlarm, "remove null")
}

// The original's "access to a removed alarm": every accessor rejects it.
func TestRemovedAlarmAccessors(t *testing.T) {
	w := mkWheel[*int](t, wheelCfg{p: config.AboutOneSecond}, atNs(0))
	one := 1
	a, err := w.Add(atNs(5*gib), &one)
	ok(t, err)
	if v, err := w.AlarmValue(a); err != nil || v != &one {
		t.Fatal("AlarmValue before Remove")
	}
	ok(t, w.Remove(a))
	if w.Mem(a) {
		t.Fatal("Mem after Remove")
	}
	if v, err := w.AlarmValue(a); !errors.Is(err, timingwheel.ErrInvalidAlarm) || v != nil {
		t.Fatalf("AlarmValue after Remove = %v, %v", v, err)
	}
	if at, err := w.AlarmAt(a); !errors.Is(err, timingwheel.ErrInvalidAlarm) || !at.IsZero() {
		t.Fatalf("AlarmAt after Remove = %v, %v", at, err)
	}
	if _, err := w.AlarmIntervalNum(a); !errors.Is(err, timingwheel.ErrInvalidAlarm) {
		t.Fatalf("AlarmIntervalNum after Remove: %v", err)
	}
}

// The original's "[clear]": Clear drops the alarms and keeps the clock.
func TestClear(t *testing.T) {
	w := mkWheel[string](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1, 1}}, atNs(0))
	w.Clear() // on an empty wheel: nothing happens
	inv(t, w)
	e1, err := w.AddAtIntervalNum(0, "e1")
	ok(t, err)
	e2, err := w.AddAtIntervalNum(2, "e2")
	ok(t, err)
	times := map[string]int64{}
	for a := range w.All() {
		at, _ := w.AlarmAt(a)
		times[valueOf(t, w, a)] = at.UnixNano()
	}
	if len(times) != 2 || times["e1"] != 0 || times["e2"] != 2*gib {
		t.Fatalf("All: %v", times)
	}
	ok(t, w.AdvanceClock(atGib(1, 2), nil))
	w.Clear()
	if !w.IsEmpty() || w.Mem(e1) || w.Mem(e2) || !w.Now().Equal(atGib(1, 2)) || !w.Start().Equal(atNs(0)) {
		t.Fatalf("after Clear: Len %d, now %v", w.Len(), w.Now())
	}
	for range w.All() {
		t.Fatal("All yields an alarm after Clear")
	}
	if _, ok := w.NextAlarmFiresAt(); ok {
		t.Fatal("NextAlarmFiresAt after Clear")
	}
	if _, ok := w.MinAlarmIntervalNum(); ok {
		t.Fatal("MinAlarmIntervalNum after Clear")
	}
	isErr(t, w.Remove(e1), timingwheel.ErrInvalidAlarm, "Remove after Clear")
	// New alarms reuse the records; the old handles stay rejected.
	n1, err := w.AddAtIntervalNum(1, "n1")
	ok(t, err)
	n2, err := w.AddAtIntervalNum(2, "n2")
	ok(t, err)
	if w.Mem(e1) || w.Mem(e2) || !w.Mem(n1) || !w.Mem(n2) || w.Len() != 2 {
		t.Fatal("a handle from before Clear names a new alarm")
	}
	if _, err := w.AlarmValue(e2); !errors.Is(err, timingwheel.ErrInvalidAlarm) {
		t.Fatalf("AlarmValue(old handle) = %v", err)
	}
	inv(t, w)
}

// The original's "[advance_clock] to max interval num".
func TestAdvanceToMaxIntervalNum(t *testing.T) {
	w := mkWheel[int64](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1}}, atNs(0))
	for n := int64(0); n <= 1; n++ {
		_, err := w.AddAtIntervalNum(n, n)
		ok(t, err)
	}
	_, err := w.IntervalNumStart(math.MaxInt64)
	isErr(t, err, timingwheel.ErrIntervalNumOutOfRange, "IntervalNumStart(MaxInt64)")
	isErr(t, w.AdvanceClock(timingwheel.MaxTime.Add(1), nil), timingwheel.ErrTimeOutOfRange, "AdvanceClock(MaxTime+1ns)")
	isErr(t, w.AdvanceClock(atNs(-1), nil), timingwheel.ErrTimeOutOfRange, "AdvanceClock(-1ns)")
	last, err := w.IntervalNumStart(w.MaxIntervalNum())
	ok(t, err)
	var got []int64
	ok(t, w.AdvanceClock(last, record(t, w, &got)))
	if !slices.Equal(got, []int64{0, 1}) || !w.IsEmpty() {
		t.Fatalf("fired %v, Len %d", got, w.Len())
	}
	// Start of interval 2^32-1: 2^62 - 2^30 ns, 2116-02-20 23:53:37.35364608.
	if !w.Now().Equal(atNs(1<<62-1<<30)) || !w.Now().Equal(time.Date(2116, 2, 20, 23, 53, 37, 353646080, time.UTC)) {
		t.Fatalf("Now = %v", w.Now())
	}
	a, err := w.AddAtIntervalNum(w.MaxIntervalNum(), 99)
	ok(t, err)
	if at, _ := w.AlarmAt(a); !at.Equal(last) {
		t.Fatalf("alarm at %v", at)
	}
	// Advancing to MaxTime does not fire it (it is not before the interval
	// start); FirePastAlarms at MaxTime does.
	ok(t, w.AdvanceClock(timingwheel.MaxTime, record(t, w, &got)))
	if w.Len() != 1 {
		t.Fatal("an alarm in the last interval fired on AdvanceClock")
	}
	w.FirePastAlarms(record(t, w, &got))
	if !slices.Equal(got, []int64{0, 1, 99}) || !w.IsEmpty() {
		t.Fatalf("fired %v", got)
	}
	inv(t, w)
}

// compositions returns every list of positive ints summing to n.
func compositions(n int) [][]int {
	if n == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for first := 1; first <= n; first++ {
		for _, rest := range compositions(n - first) {
			out = append(out, append([]int{first}, rest...))
		}
	}
	return out
}

// The original's exhaustive "[advance_clock_to_interval_num]": for every
// level bits summing to 6, every step 1..64, and a clock at 0 or near the
// end of time: fill every allowed interval, advance by step until empty;
// every alarm fires exactly once, only after its interval, and (ours, not
// the original) in ascending interval.
func TestAdvanceByEveryStepEveryLevelBits(t *testing.T) {
	const numBits = 6
	comps := compositions(numBits)
	if len(comps) != 1<<(numBits-1) {
		t.Fatalf("%d compositions of %d", len(comps), numBits)
	}
	steps := 1 << numBits
	if testing.Short() {
		steps = 8
	}
	runs := 0
	for _, large := range []bool{false, true} {
		for step := int64(1); step <= int64(steps); step++ {
			for _, bits := range comps {
				runs++
				w := mkWheel[int64](t, wheelCfg{p: config.AboutOneSecond, bits: bits}, atNs(0))
				maxN := w.MaxIntervalNum()
				init := int64(0)
				if large {
					init = maxN - 1<<numBits
				}
				s, err := w.IntervalNumStart(init)
				ok(t, err)
				ok(t, w.AdvanceClock(s, nil))
				lo, hi := w.MinAllowedAlarmIntervalNum(), w.MaxAllowedAlarmIntervalNum()
				if lo != init || hi < lo+1<<numBits-1 {
					t.Fatalf("%v: allowed [%d, %d] from %d", bits, lo, hi, init)
				}
				var want []int64
				for n := lo; n < hi; n++ {
					_, err := w.AddAtIntervalNum(n, n)
					ok(t, err)
					want = append(want, n)
					if w.Len() != len(want) {
						t.Fatal("Len")
					}
				}
				var got []int64
				for w.Len() > 0 {
					to, err := w.IntervalNumStart(min(maxN, w.MinAllowedAlarmIntervalNum()+step))
					ok(t, err)
					ok(t, w.AdvanceClock(to, func(ev timingwheel.Fired[int64]) {
						a := ev.Alarm

						n, err := w.AlarmIntervalNum(a)
						if err != nil || n >= w.MinAllowedAlarmIntervalNum() {
							t.Fatalf("%v step %d: fired interval %d with now at interval %d", bits, step, n, w.MinAllowedAlarmIntervalNum())
						}
						got = append(got, n)
					}))
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%v step %d large %v: fired %v, want %v", bits, step, large, got, want)
				}
			}
		}
	}
	if !testing.Short() && runs != 4096 {
		t.Fatalf("%d runs, want 4096 as the original", runs)
	}
}

// The original's "[advance_clock]" with [1 1 1 1]: alarms at 0..10, advance
// one interval at a time; each advance fires the one alarm just passed.
func TestAdvanceOneIntervalAtATime(t *testing.T) {
	w := mkWheel[int64](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1, 1, 1, 1}}, atNs(0))
	if _, ok := w.MinAlarmIntervalNum(); ok {
		t.Fatal("MinAlarmIntervalNum on an empty wheel")
	}
	for n := int64(0); n <= 10; n++ {
		_, err := w.AddAtIntervalNum(n, n)
		ok(t, err)
		if m, ok := w.MinAlarmIntervalNum(); !ok || m != 0 {
			t.Fatalf("MinAlarmIntervalNum = %d %v after adding %d", m, ok, n)
		}
	}
	for n := int64(1); n <= 11; n++ {
		var got []int64
		to, _ := w.IntervalNumStart(n)
		ok(t, w.AdvanceClock(to, record(t, w, &got)))
		if !slices.Equal(got, []int64{n - 1}) {
			t.Fatalf("advance to %d fired %v", n, got)
		}
		m, ok := w.MinAlarmIntervalNum()
		if n <= 10 && (!ok || m != n) || n > 10 && ok {
			t.Fatalf("after advance to %d: MinAlarmIntervalNum %d %v", n, m, ok)
		}
	}
}

// The original's "[min_alarm_interval_num]": removing the minimum moves it to
// the next alarm.
func TestMinAlarmIntervalNumAfterRemove(t *testing.T) {
	w := mkWheel[int64](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1, 1, 1, 1}}, atNs(0))
	var hs []alarm.Alarm
	for n := int64(0); n <= 10; n++ {
		a, err := w.AddAtIntervalNum(n, n)
		ok(t, err)
		hs = append(hs, a)
	}
	for n, a := range hs {
		ok(t, w.Remove(a))
		m, ok := w.MinAlarmIntervalNum()
		if n < 10 && (!ok || m != int64(n+1)) || n == 10 && ok {
			t.Fatalf("after removing %d: MinAlarmIntervalNum %d %v", n, m, ok)
		}
	}
}

// The original's "[iter]" tests, on All.
func TestAll(t *testing.T) {
	w := mkWheel[int64](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1, 1, 1, 1}}, atNs(0))
	count := func() int {
		n := 0
		for range w.All() {
			n++
		}
		return n
	}
	if count() != 0 {
		t.Fatal("All on an empty wheel")
	}
	added := map[alarm.Alarm]int64{}
	for n := int64(0); n <= w.MaxAllowedAlarmIntervalNum(); n++ {
		a, err := w.AddAtIntervalNum(n, n)
		ok(t, err)
		added[a] = n
	}
	seen := map[alarm.Alarm]int64{}
	for a := range w.All() {
		if _, dup := seen[a]; dup {
			t.Fatal("All yields an alarm twice")
		}
		seen[a] = valueOf(t, w, a)
	}
	if len(seen) != len(added) {
		t.Fatalf("All yields %d alarms, added %d", len(seen), len(added))
	}
	for a, v := range added {
		if seen[a] != v {
			t.Fatalf("All misses alarm %d", v)
		}
	}
	// Stopping early is allowed.
	for range w.All() {
		break
	}
	to, _ := w.IntervalNumStart(1)
	ok(t, w.AdvanceClock(to, nil))
	if count() != len(added)-1 {
		t.Fatalf("after firing one: %d", count())
	}
	to, _ = w.IntervalNumStart(w.MaxAllowedAlarmIntervalNum() + 1)
	ok(t, w.AdvanceClock(to, nil))
	if count() != 0 {
		t.Fatalf("after firing all: %d", count())
	}
}

func TestNewAndStart(t *testing.T) {
	cfg := wheelCfg{p: config.AboutOneSecond}.config(t)
	for _, start := range []time.Time{atNs(0), atNs(gib), atGib(7, 3), timingwheel.MaxTime} {
		w, err := timingwheel.NewWithConfig[int](cfg, start)
		ok(t, err)
		n, _ := w.IntervalNum(start)
		if !w.Start().Equal(start) || !w.Now().Equal(start) || w.NowIntervalNum() != n || w.MinAllowedAlarmIntervalNum() != n {
			t.Fatalf("New at %v: Start %v Now %v", start, w.Start(), w.Now())
		}
		if !w.Config().LevelBits().Equal(cfg.LevelBits()) || w.Config().Precision() != cfg.Precision() {
			t.Fatal("Config() differs")
		}
		inv(t, w)
	}
	for _, start := range []time.Time{atNs(-1), timingwheel.MaxTime.Add(1), {}, time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)} {
		_, err := timingwheel.NewWithConfig[int](cfg, start)
		isErr(t, err, timingwheel.ErrTimeOutOfRange, fmt.Sprintf("New at %v", start))
	}
	_, err := timingwheel.NewWithConfig[int](config.Config{}, atNs(0))
	isErr(t, err, timingwheel.ErrInvalidConfig, "New with the zero Config")
}

// rescheduleScenario is the original's reschedule test, run with Reschedule
// or RescheduleAtIntervalNum. Level bits [10], precision 2^30, times in gib.
func rescheduleScenario(t *testing.T, resched func(w *timingwheel.Wheel[string], a alarm.Alarm, at time.Time) error) {
	w := mkWheel[string](t, wheelCfg{p: config.AboutOneSecond, bits: []int{10}}, atNs(0))
	g := func(n int64) time.Time { return atNs(n * gib) }
	a1, err := w.Add(g(5), "a1")
	ok(t, err)
	a2, err := w.Add(g(10), "a2")
	ok(t, err)
	state := func(now, next int64, at1, at2 int64) {
		t.Helper()
		if !w.Now().Equal(g(now)) {
			t.Fatalf("Now %v, want %d gib", w.Now(), now)
		}
		nx, ok := w.NextAlarmFiresAt()
		if next < 0 && ok || next >= 0 && (!ok || !nx.Equal(g(next))) {
			t.Fatalf("NextAlarmFiresAt %v %v, want %d gib", nx, ok, next)
		}
		for _, c := range []struct {
			a  alarm.Alarm
			at int64
		}{{a1, at1}, {a2, at2}} {
			got, err := w.AlarmAt(c.a)
			if c.at < 0 && (err == nil || w.Mem(c.a)) || c.at >= 0 && (err != nil || !got.Equal(g(c.at))) {
				t.Fatalf("AlarmAt = %v %v, want %d gib", got, err, c.at)
			}
		}
		inv(t, w)
	}
	fail := func(timingwheel.Fired[string]) { t.Fatal("an alarm fired") }
	state(0, 6, 5, 10)
	// Reschedule a1 after a2: a2 becomes next.
	ok(t, resched(w, a1, g(15)))
	state(0, 11, 15, 10)
	// Advance past a1's old time: nothing fires.
	ok(t, w.AdvanceClock(g(7), fail))
	state(7, 11, 15, 10)
	// Reschedule a1 before a2 again: a1 is next.
	ok(t, resched(w, a1, g(8)))
	state(7, 9, 8, 10)
	// Advance past a1: it fires, a2 does not.
	var got []string
	ok(t, w.AdvanceClock(g(9), record(t, w, &got)))
	if !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("fired %v", got)
	}
	state(9, 11, -1, 10)
	isErr(t, resched(w, a1, g(20)), timingwheel.ErrInvalidAlarm, "reschedule a fired alarm")
	state(9, 11, -1, 10)
	isErr(t, resched(w, a2, g(8)), timingwheel.ErrBeforeCurrentInterval, "reschedule before now")
	state(9, 11, -1, 10)
	// Now at interval 9 the levels hold [9, 1032].
	if !w.MaxAllowedAlarmTime().Equal(atNs(1033*gib - 1)) {
		t.Fatalf("MaxAllowedAlarmTime %v", w.MaxAllowedAlarmTime().UnixNano())
	}
	isErr(t, resched(w, a2, w.MaxAllowedAlarmTime().Add(time.Duration(gib))), timingwheel.ErrTooFarInFuture, "reschedule too far")
	state(9, 11, -1, 10)
	ok(t, w.AdvanceClock(g(11), record(t, w, &got)))
	if !slices.Equal(got, []string{"a1", "a2"}) {
		t.Fatalf("fired %v", got)
	}
	state(11, -1, -1, -1)
}

func TestReschedule(t *testing.T) {
	rescheduleScenario(t, func(w *timingwheel.Wheel[string], a alarm.Alarm, at time.Time) error {
		return w.Reschedule(a, at)
	})
}

func TestRescheduleAtIntervalNum(t *testing.T) {
	rescheduleScenario(t, func(w *timingwheel.Wheel[string], a alarm.Alarm, at time.Time) error {
		// Times in the scenario are interval starts; out-of-range times map
		// to out-of-range interval numbers.
		n := at.UnixNano() >> 30
		if at.UnixNano() < 0 {
			n = -1
		}
		return w.RescheduleAtIntervalNum(a, n)
	})
}

// A rescheduled alarm keeps its handle and value and goes to the back of its
// new interval, even when that is the interval it was in.
func TestRescheduleGoesToBack(t *testing.T) {
	w := mkWheel[string](t, wheelCfg{p: config.AboutOneMicrosecond}, atNs(0))
	h := map[string]alarm.Alarm{}
	for _, v := range []string{"a", "b", "c"} {
		a, err := w.Add(atNs(5000), v) // interval 4
		ok(t, err)
		h[v] = a
	}
	for _, v := range []string{"x", "y"} {
		a, err := w.Add(atNs(9000), v) // interval 8
		ok(t, err)
		h[v] = a
	}
	ok(t, w.Reschedule(h["a"], atNs(4200))) // same interval, earlier time: still to the back
	ok(t, w.RescheduleAtIntervalNum(h["x"], 8))
	ok(t, w.Reschedule(h["b"], atNs(8300))) // to interval 8, after x and y
	for v, a := range h {
		if !w.Mem(a) || valueOf(t, w, a) != v {
			t.Fatalf("handle of %s lost", v)
		}
	}
	if at, _ := w.AlarmAt(h["x"]); !at.Equal(atNs(8192)) {
		t.Fatalf("x at %v, want the start of interval 8", at.UnixNano())
	}
	var got []string
	ok(t, w.AdvanceClock(atNs(1<<20), record(t, w, &got)))
	if want := []string{"c", "a", "y", "x", "b"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
}

// The original's "fires alarms at the right time": for several precisions,
// alarm spacings and advance steps, every alarm fires at an advance past its
// interval, and after each advance the clock is in to's interval.
func TestFiresAtTheRightTime(t *testing.T) {
	type adder func(w *timingwheel.Wheel[time.Time], at time.Time) error
	adders := map[string]adder{
		"Add": func(w *timingwheel.Wheel[time.Time], at time.Time) error {
			_, err := w.Add(at, at)
			return err
		},
		"AddAtIntervalNum": func(w *timingwheel.Wheel[time.Time], at time.Time) error {
			n, err := w.IntervalNum(at)
			if err != nil {
				return err
			}
			s, _ := w.IntervalNumStart(n)
			_, err = w.AddAtIntervalNum(n, s)
			return err
		},
	}
	tenths := func(xs ...int64) (out []int64) {
		for _, x := range xs {
			out = append(out, x*gib/100)
		}
		return out
	}
	numAlarms := int64(100)
	if checked.On || testing.Short() {
		numAlarms = 20 // checked mode runs Invariant() after every call
	}
	for name, add := range adders {
		for _, prec := range tenths(100, 50, 10) {
			p, err := config.FloorPow2(time.Duration(prec))
			ok(t, err)
			for _, sep := range tenths(1, 10, 50, 100, 200, 1000) {
				for _, by := range tenths(10, 50, 100, 200, 1000) {
					w := mkWheel[time.Time](t, wheelCfg{p: p}, atNs(0))
					for i := int64(1); i <= numAlarms; i++ {
						ok(t, add(w, atNs(i*sep)))
					}
					fired := 0
					for !w.IsEmpty() {
						to := w.Now().Add(time.Duration(by))
						ok(t, w.AdvanceClock(to, func(ev timingwheel.Fired[time.Time]) {
							a := ev.Alarm

							at := valueOf(t, w, a)
							start, _ := w.IntervalStart(w.Now())
							if !at.Before(start) {
								t.Fatalf("%s: alarm at %v fired early: now %v", name, at, w.Now())
							}
							fired++
						}))
						n1, _ := w.IntervalNum(to)
						if w.NowIntervalNum() != n1 {
							t.Fatalf("NowIntervalNum %d, want %d", w.NowIntervalNum(), n1)
						}
					}
					if fired != int(numAlarms) {
						t.Fatalf("%s: %d fired", name, fired)
					}
				}
			}
		}
	}
}

// The original's "[add] and [advance_clock]": an alarm 30 intervals ahead
// does not fire when the clock reaches its time, only one interval later.
func TestAddAndAdvance(t *testing.T) {
	w := mkWheel[string](t, wheelCfg{p: config.AboutOneSecond, bits: []int{10}}, atNs(0))
	if !w.MaxAllowedAlarmTime().Add(1).Equal(w.Now().Add(time.Duration(1024 * gib))) {
		t.Fatalf("MaxAllowedAlarmTime %v", w.MaxAllowedAlarmTime())
	}
	_, err := w.Add(w.Now().Add(-time.Duration(gib)), "past")
	isErr(t, err, timingwheel.ErrBeforeCurrentInterval, "Add(now - 1 gib)")
	_, err = w.Add(atNs(30*gib), "x")
	ok(t, err)
	var got []string
	ok(t, w.AdvanceClock(atNs(30*gib), record(t, w, &got)))
	if len(got) != 0 || w.Len() != 1 {
		t.Fatalf("fired %v at its own time", got)
	}
	ok(t, w.AdvanceClock(atNs(31*gib), record(t, w, &got)))
	if !slices.Equal(got, []string{"x"}) || !w.IsEmpty() {
		t.Fatalf("fired %v", got)
	}
}

// The original's "[next_alarm_fires_at]", times in gib.
func TestNextAlarmFiresAt(t *testing.T) {
	w := mkWheel[int](t, wheelCfg{p: config.AboutOneSecond, bits: []int{10}}, atNs(0))
	next := func(want int64) { // want in gib; -1: none
		t.Helper()
		got, ok := w.NextAlarmFiresAt()
		if want < 0 && ok || want >= 0 && (!ok || !got.Equal(atNs(want*gib))) {
			t.Fatalf("NextAlarmFiresAt = %v %v, want %d gib", got.UnixNano(), ok, want)
		}
	}
	next(-1)
	steps := []struct {
		add      bool
		num, den int64
		want     int64
	}{
		{true, 2, 1, 3}, {true, 3, 2, 2}, {true, 1, 1, 2}, {true, 1, 2, 1}, {true, 1, 10, 1},
		{false, 1, 2, 1}, {false, 1, 1, 2}, {false, 3, 2, 2}, {false, 2, 1, 3}, {false, 3, 1, -1},
	}
	for _, s := range steps {
		if s.add {
			_, err := w.Add(atGib(s.num, s.den), 0)
			ok(t, err)
		} else {
			ok(t, w.AdvanceClock(atGib(s.num, s.den), nil))
		}
		next(s.want)
	}
}

// An alarm at MaxTime is in the last interval, which no advance passes: no
// next firing time, but MinAlarmIntervalNum sees it.
func TestAlarmAtMaxTime(t *testing.T) {
	for _, toMax := range []bool{false, true} {
		for _, a := range []int{0, 1, 30} {
			w := mkWheel[int](t, wheelCfg{p: config.AlarmPrecision(a), bits: []int{1}, extend: true}, atNs(0))
			if toMax {
				ok(t, w.AdvanceClock(timingwheel.MaxTime, nil))
			}
			_, err := w.Add(timingwheel.MaxTime, 1)
			ok(t, err)
			if m, ok := w.MinAlarmIntervalNum(); !ok || m != maxNs>>a {
				t.Fatalf("2^%d toMax %v: MinAlarmIntervalNum %d %v", a, toMax, m, ok)
			}
			if _, ok := w.NextAlarmFiresAt(); ok {
				t.Fatalf("2^%d: NextAlarmFiresAt true with the only alarm in the last interval", a)
			}
			for _, f := range []func() (time.Time, bool){w.MinAlarmTimeInMinInterval, w.MaxAlarmTimeInMinInterval} {
				if at, ok := f(); !ok || !at.Equal(timingwheel.MaxTime) {
					t.Fatalf("min-interval time %v %v", at, ok)
				}
			}
			n := 0
			ok(t, w.AdvanceClock(timingwheel.MaxTime, func(timingwheel.Fired[int]) { n++ }))
			if n != 0 {
				t.Fatal("AdvanceClock(MaxTime) fired an alarm at MaxTime")
			}
			w.FirePastAlarms(func(timingwheel.Fired[int]) { n++ })
			if n != 1 || !w.IsEmpty() {
				t.Fatalf("FirePastAlarms at MaxTime fired %d", n)
			}
			inv(t, w)
		}
	}
}

// The original's "[advance_clock ~to_:max_time]": alarms at MaxTime - i for
// i = 10..0, then advances to MaxTime - i. An alarm fires on the first
// advance whose interval is past its own, in time order; what is left (the
// last interval) fires with FirePastAlarms.
func TestAdvanceToMaxTime(t *testing.T) {
	for _, a := range []int{0, 1, 2} {
		for b0 := 1; b0 <= 3; b0++ {
			w := mkWheel[int64](t, wheelCfg{p: config.AlarmPrecision(a), bits: []int{b0}, extend: true}, atNs(0))
			for i := int64(10); i >= 0; i-- {
				_, err := w.Add(atNs(maxNs-i), i)
				ok(t, err)
			}
			firedSoFar := map[int64]bool{}
			for i := int64(10); i >= 0; i-- {
				to := maxNs - i
				var want []int64
				for j := int64(10); j >= 0; j-- { // ascending time
					if !firedSoFar[j] && (maxNs-j)>>a < to>>a {
						want = append(want, j)
						firedSoFar[j] = true
					}
				}
				var got []int64
				ok(t, w.AdvanceClock(atNs(to), record(t, w, &got)))
				if !slices.Equal(got, want) {
					t.Fatalf("2^%d [%d ...]: advance to MaxTime-%d fired %v, want %v", a, b0, i, got, want)
				}
				inv(t, w)
			}
			var want, got []int64
			for j := int64(10); j >= 0; j-- {
				if !firedSoFar[j] {
					want = append(want, j)
				}
			}
			// With 1 ns precision the last interval holds one alarm; with
			// 4 ns, four.
			if len(want) != 1<<a {
				t.Fatalf("2^%d: %d alarms left in the last interval", a, len(want))
			}
			w.FirePastAlarms(record(t, w, &got))
			if !slices.Equal(got, want) || !w.IsEmpty() {
				t.Fatalf("FirePastAlarms at MaxTime fired %v, want %v", got, want)
			}
		}
	}
}

// The original's "[fire_past_alarms]" over every sequence of up to five
// alarms at 1 or 2 gib, all in interval 0 of a 2^35 ns wheel: advancing to 1
// gib fires nothing, FirePastAlarms fires exactly those at 1 gib, in order.
func TestFirePastAlarmsSubsets(t *testing.T) {
	p, err := config.FloorPow2(time.Duration(60 * gib))
	ok(t, err)
	if p.Log2() != 35 {
		t.Fatalf("FloorPow2(60 gib) = %v", p)
	}
	at1, at2 := atNs(gib), atNs(2*gib)
	tests := 0
	var rec func(seq []time.Time)
	rec = func(seq []time.Time) {
		tests++
		w := mkWheel[int](t, wheelCfg{p: p}, atNs(0))
		var want []int
		for i, at := range seq {
			a, err := w.Add(at, i)
			ok(t, err)
			if n, _ := w.AlarmIntervalNum(a); n != 0 {
				t.Fatalf("interval %d", n)
			}
			if at.Equal(at1) {
				want = append(want, i)
			}
		}
		ok(t, w.AdvanceClock(at1, func(timingwheel.Fired[int]) { t.Fatal("fired on advance within the interval") }))
		var got []int
		w.FirePastAlarms(record(t, w, &got))
		if !slices.Equal(got, want) || w.Len() != len(seq)-len(want) {
			t.Fatalf("%v: FirePastAlarms fired %v, want %v", seq, got, want)
		}
		if len(seq) < 5 {
			rec(append(slices.Clip(seq), at1))
			rec(append(slices.Clip(seq), at2))
		}
	}
	rec(nil)
	if tests != 63 { // 1 + 2 + 4 + ... + 32
		t.Fatalf("%d cases", tests)
	}
}

// The original's "alarm buckets": alarms a fraction of an interval apart fire
// one by one with FirePastAlarms as the clock reaches each.
func TestAlarmBuckets(t *testing.T) {
	w := mkWheel[string](t, wheelCfg{p: config.AboutOneSecond}, atNs(0))
	p := w.AlarmPrecision()
	fifth := p / 5
	_, err := w.Add(atNs(0).Add(p), "first")
	ok(t, err)
	base, okk := w.NextAlarmFiresAt()
	if !okk || !base.Equal(atNs(2*gib)) {
		t.Fatalf("NextAlarmFiresAt %v", base)
	}
	step0 := base.Add(fifth)
	step1 := step0.Add(fifth)
	step2 := step1.Add(fifth)
	step3 := step2.Add(p)
	for i, s := range []time.Time{step0, step1, step2, step3} {
		n, _ := w.IntervalNum(s)
		if want := []int64{2, 2, 2, 3}[i]; n != want {
			t.Fatalf("step%d in interval %d, want %d", i, n, want)
		}
	}
	for _, s := range []struct {
		at time.Time
		v  string
	}{{step1, "step1"}, {step2, "step2"}, {step3, "step3"}} {
		_, err := w.Add(s.at, s.v)
		ok(t, err)
	}
	var got []string
	h := record(t, w, &got)
	expect := func(want ...string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("fired %v, want %v", got, want)
		}
	}
	ok(t, w.AdvanceClock(step0, h))
	expect("first")
	w.FirePastAlarms(h)
	expect("first")
	ok(t, w.AdvanceClock(step1, h))
	expect("first")
	w.FirePastAlarms(h)
	expect("first", "step1")
	ok(t, w.AdvanceClock(step2, h))
	expect("first", "step1")
	w.FirePastAlarms(h)
	expect("first", "step1", "step2")
	w.FirePastAlarms(h)
	expect("first", "step1", "step2")
}

// The original's "[max_alarm_time_in_min_interval]", plus its twin: two
// alarms in different intervals that share a slot of level 1 must not be
// mixed up.
func TestMinIntervalQueries(t *testing.T) {
	w := mkWheel[int](t, wheelCfg{p: config.AboutOneSecond, bits: []int{1, 1}}, atNs(0))
	none := func() {
		t.Helper()
		if _, ok := w.MaxAlarmTimeInMinInterval(); ok {
			t.Fatal("MaxAlarmTimeInMinInterval on an empty wheel")
		}
		if _, ok := w.MinAlarmTimeInMinInterval(); ok {
			t.Fatal("MinAlarmTimeInMinInterval on an empty wheel")
		}
	}
	both := func(lo, hi int64) {
		t.Helper()
		l, ok1 := w.MinAlarmTimeInMinInterval()
		h, ok2 := w.MaxAlarmTimeInMinInterval()
		if !ok1 || !ok2 || !l.Equal(atNs(lo)) || !h.Equal(atNs(hi)) {
			t.Fatalf("min-interval times [%d, %d], want [%d, %d]", l.UnixNano(), h.UnixNano(), lo, hi)
		}
	}
	none()
	a, err := w.Add(atGib(1, 2), 0)
	ok(t, err)
	both(gib/2, gib/2)
	ok(t, w.Remove(a))
	none()
	// 2.1 and 3.9 gib: intervals 2 and 3, one slot of level 1 ([2, 3]).
	_, err = w.Add(atGib(39, 10), 0)
	ok(t, err)
	_, err = w.Add(atGib(21, 10), 0)
	ok(t, err)
	both(21*gib/10, 21*gib/10)
	if m, _ := w.MinAlarmIntervalNum(); m != 2 {
		t.Fatalf("MinAlarmIntervalNum %d", m)
	}
	// More alarms in interval 2, added out of time order.
	_, err = w.Add(atGib(29, 10), 0)
	ok(t, err)
	_, err = w.Add(atGib(20, 10), 0)
	ok(t, err)
	both(2*gib, 29*gib/10)
	// Advance into interval 2 (alarms stay), then past it.
	ok(t, w.AdvanceClock(atGib(25, 10), nil))
	both(2*gib, 29*gib/10)
	ok(t, w.AdvanceClock(atGib(3, 1), nil))
	both(39*gib/10, 39*gib/10)
}

// The original's "multiple alarms at the same time are fired in insertion
// order".
func TestSameTimeInsertionOrder(t *testing.T) {
	w := mkWheel[int](t, wheelCfg{p: config.AboutOneSecond}, atNs(0))
	for i := 0; i < 6; i++ {
		_, err := w.Add(atNs(int64(time.Second)), i)
		ok(t, err)
	}
	var got []int
	ok(t, w.AdvanceClock(atNs(int64(2*time.Second)), record(t, w, &got)))
	if !slices.Equal(got, []int{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("fired %v", got)
	}
}
