package proptest

import (
	"fmt"
	"time"
)

// CompareQueries checks w.Invariant() and then compares every wheel-wide
// query of w with the model's: Len, IsEmpty, Now, NowIntervalNum,
// MaxAllowedAlarmTime, NextAlarmFiresAt, MinAlarmIntervalNum,
// MinAlarmTimeInMinInterval and MaxAlarmTimeInMinInterval. It returns the
// first difference, or nil. The per-alarm queries (AlarmAt, Mem, ...) need a
// map between the two sides' handles and are left to the caller. Both the
// state machines of this package and proptest/exhaustive use it after every
// call, so they cannot drift apart.
func CompareQueries[T any](w Wheel, m *Model[T]) error {
	if err := w.Invariant(); err != nil {
		return fmt.Errorf("Invariant: %w", err)
	}
	if w.Len() != m.Len() || w.IsEmpty() != m.IsEmpty() {
		return fmt.Errorf("Len %d (IsEmpty %v), model %d (%v)", w.Len(), w.IsEmpty(), m.Len(), m.IsEmpty())
	}
	if !w.Now().Equal(m.Now()) {
		return fmt.Errorf("Now %d, model %d", w.Now().UnixNano(), m.Now().UnixNano())
	}
	if w.NowIntervalNum() != m.NowIntervalNum() {
		return fmt.Errorf("NowIntervalNum %d, model %d", w.NowIntervalNum(), m.NowIntervalNum())
	}
	if got, want := w.MaxAllowedAlarmTime(), m.MaxAllowedAlarmTime(); !got.Equal(want) {
		return fmt.Errorf("MaxAllowedAlarmTime %d, model %d", got.UnixNano(), want.UnixNano())
	}
	if err := sameTime("NextAlarmFiresAt", w.NextAlarmFiresAt, m.NextAlarmFiresAt); err != nil {
		return err
	}
	g, ok := w.MinAlarmIntervalNum()
	x, mok := m.MinAlarmIntervalNum()
	if ok != mok || ok && g != x {
		return fmt.Errorf("MinAlarmIntervalNum %d %v, model %d %v", g, ok, x, mok)
	}
	if err := sameTime("MinAlarmTimeInMinInterval", w.MinAlarmTimeInMinInterval, m.MinAlarmTimeInMinInterval); err != nil {
		return err
	}
	return sameTime("MaxAlarmTimeInMinInterval", w.MaxAlarmTimeInMinInterval, m.MaxAlarmTimeInMinInterval)
}

// sameTime compares an optional time query of the wheel with the model's.
func sameTime(name string, got, want func() (time.Time, bool)) error {
	g, ok := got()
	x, mok := want()
	if ok != mok || ok && !g.Equal(x) {
		return fmt.Errorf("%s %v %v, model %v %v", name, g, ok, x, mok)
	}
	return nil
}
