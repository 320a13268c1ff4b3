package priorityqueue_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

// TestTimedAddKeepsTimeInRange: on a queue made by NewTimed, Add(key) stores
// the time key << shift. MaxAllowedKey is "the largest key Add accepts", so
// Add(MaxAllowedKey()) must succeed, and every element's time must stay in
// [0, MaxKey] (PQ12) with Key returning the key added. The level bits here
// obey NewTimed's rule (they sum to at most 62 - shift), yet the levels'
// ranges, clamped at MaxKey in key space and not at MaxKey >> shift, reach
// keys whose time is above MaxKey, or overflows int64 to a negative number:
// Add and Change must refuse those keys.
//
// Before commit 825501d (which caps MaxAllowedKey at MaxKey >> shift): [1 1]
// shift 60 had MaxAllowedKey 5, and Add(4) stored time 2^62 > MaxKey
// (Invariant: PQ12); [1] shift 2 after IncreaseMinAllowedKey(2^61) took
// Add(2^61), stored time -2^63, Key -2^61 (Invariant: PQ3), and a Change of
// that element panicked in the due list. Kept as a regression test.
func TestTimedAddKeepsTimeInRange(t *testing.T) {
	tests := []struct {
		bits  []int
		shift uint
		min   int64 // IncreaseMinAllowedKey(min) first
	}{
		{[]int{1, 1}, 60, 0},
		{[]int{2}, 60, 0},      // the control: one level, no overlap, fine
		{[]int{1}, 2, 1 << 61}, // keys no time reaches, accepted by IncreaseMinAllowedKey
		{[]int{10, 10, 10, 10, 10, 10}, 2, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v shift %d from %d", tc.bits, tc.shift, tc.min), func(t *testing.T) {
			newQ := func() *priorityqueue.Queue[int] {
				q := priorityqueue.NewTimed[int](mustLB(t, tc.bits...), 0, tc.shift)
				mustOK(t, q.IncreaseMinAllowedKey(tc.min, nil))
				return q
			}
			q := newQ()
			for _, key := range []int64{q.MaxAllowedKey(), q.MinAllowedKey(),
				priorityqueue.MaxKey >> tc.shift, priorityqueue.MaxKey>>tc.shift + 1} {
				q := newQ() // a fresh queue for each key: one broken element must not hide another
				a, err := q.Add(key, 0)
				if errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
					if key <= q.MaxAllowedKey() && key >= q.MinAllowedKey() {
						t.Fatalf("Add(%d) refused, but MaxAllowedKey is %d", key, q.MaxAllowedKey())
					}
					continue
				}
				mustOK(t, err)
				checkTimed(t, q, a, key)
				// Change reaches the same keys.
				b, err := q.Add(q.MinAllowedKey(), 1)
				mustOK(t, err)
				if err := q.Change(b, key); err == nil {
					checkTimed(t, q, b, key)
				}
			}
		})
	}
}

func checkTimed(t *testing.T, q *priorityqueue.Queue[int], a alarm.Alarm, key int64) {
	t.Helper()
	tm, _ := q.Time(a)
	k, _ := q.Key(a)
	if tm < 0 || tm > priorityqueue.MaxKey || k != key {
		t.Fatalf("key %d (MaxAllowedKey %d, shift %d): stored time %d, Key %d",
			key, q.MaxAllowedKey(), q.Shift(), tm, k)
	}
	if err := q.Invariant(); err != nil {
		t.Fatalf("after Add/Change(%d): %v", key, err)
	}
}
