package timingwheel_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// TestAddAcceptsAsReschedule checks that Add and Reschedule accept the same
// times, those the contract names, and refuse the others with the same
// error: a time at is accepted iff IntervalStart(Now()) <= at <=
// MaxAllowedAlarmTime(); past that bound the error is ErrTooFarInFuture,
// before the current interval ErrBeforeCurrentInterval (times outside
// [epoch, MaxTime] included). Both pass the time to the queue's range check
// and translate its error; this checks that they agree, at the bounds of
// wheels in small mode and on the levels, with a clock inside an interval
// and at its start.
func TestAddAcceptsAsReschedule(t *testing.T) {
	cfgs := []wheelCfg{
		{p: config.OneNanosecond},
		{p: config.AboutOneMicrosecond},
		{p: config.AboutOneSecond, bits: []int{10}},        // MaxAllowedAlarmTime close by
		{p: config.AboutOneMicrosecond, bits: []int{3, 2}}, // 8 slots at level 0: small mode holds one alarm
	}
	for _, c := range cfgs {
		for _, pending := range []int{0, 3, 2000} {
			for _, clockNs := range []int64{0, 1, 5_000_000_017} {
				name := fmt.Sprintf("precision %v bits %v pending %d clock %d", c.p, c.bits, pending, clockNs)
				t.Run(name, func(t *testing.T) {
					checkAcceptsAsReschedule(t, c, pending, clockNs)
				})
			}
		}
	}
}

func checkAcceptsAsReschedule(t *testing.T, c wheelCfg, pending int, clockNs int64) {
	w := mkWheel[int](t, c, atNs(0))
	start, err := w.IntervalStart(atNs(clockNs))
	ok(t, err)
	// Alarms from the interval after the clock's on, spread over the reach.
	span := w.MaxAllowedAlarmTime().Sub(start)
	var live []alarm.Alarm
	for i := range pending {
		at := start.Add(w.AlarmPrecision() + span/time.Duration(pending+1)*time.Duration(i))
		if at.After(w.MaxAllowedAlarmTime()) {
			break
		}
		a, err := w.Add(at, i)
		ok(t, err)
		live = append(live, a)
	}
	ok(t, w.AdvanceClock(atNs(clockNs), nil))
	resched, err := w.Add(w.MaxAllowedAlarmTime(), -1) // the alarm Reschedule moves
	ok(t, err)

	start, err = w.IntervalStart(w.Now())
	ok(t, err)
	maxAt := w.MaxAllowedAlarmTime()
	ns := time.Nanosecond
	probes := []time.Time{
		{}, time.Unix(-1, 0), atNs(0), atNs(1),
		start.Add(-ns), start, start.Add(ns),
		w.Now().Add(-ns), w.Now(), w.Now().Add(ns),
		start.Add(w.AlarmPrecision()), start.Add(w.AlarmPrecision() - ns),
		maxAt.Add(-ns), maxAt, maxAt.Add(ns), maxAt.Add(w.AlarmPrecision()),
		timingwheel.MaxTime, timingwheel.MaxTime.Add(ns),
		time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for _, at := range probes {
		var want error
		switch {
		case at.After(maxAt):
			want = timingwheel.ErrTooFarInFuture
		case at.Before(start):
			want = timingwheel.ErrBeforeCurrentInterval
		}
		a, err := w.Add(at, -2)
		if !sameOutcome(err, want) {
			t.Errorf("Add(%v) with now %v, interval start %v, max %v: error %v, want %v",
				at.UnixNano(), w.Now().UnixNano(), start.UnixNano(), maxAt.UnixNano(), err, want)
		}
		if err == nil {
			ok(t, w.Remove(a))
		}
		if err := w.Reschedule(resched, at); !sameOutcome(err, want) {
			t.Errorf("Reschedule(%v) with now %v, interval start %v, max %v: error %v, want %v",
				at.UnixNano(), w.Now().UnixNano(), start.UnixNano(), maxAt.UnixNano(), err, want)
		}
	}
	// Nothing the refused calls did is left behind.
	if got, want := w.Len(), len(live)+1; got != want {
		t.Fatalf("Len() = %d after the probes, want %d", got, want)
	}
	for _, a := range append(live, resched) {
		if !w.Mem(a) {
			t.Fatalf("alarm %v left the wheel", a)
		}
	}
}

// sameOutcome reports whether err is nil when want is, and wraps want
// otherwise.
func sameOutcome(err, want error) bool {
	if want == nil {
		return err == nil
	}
	return errors.Is(err, want)
}
