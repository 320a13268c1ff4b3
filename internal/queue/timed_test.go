package queue_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/pool"
	queue "github.com/gotimingwheel/timingwheel/internal/queue"
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
			newQ := func() *queue.Queue[int] {
				q := queue.NewTimed[int](mustLB(t, tc.bits...), 0, tc.shift)
				mustOK(t, q.IncreaseMinAllowedKey(tc.min, nil))
				return q
			}
			q := newQ()
			for _, key := range []int64{q.MaxAllowedKey(), q.MinAllowedKey(),
				queue.MaxKey >> tc.shift, queue.MaxKey>>tc.shift + 1} {
				q := newQ() // a fresh queue for each key: one broken element must not hide another
				a, err := q.Add(key, 0)
				if errors.Is(err, queue.ErrKeyOutOfRange) {
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

func checkTimed(t *testing.T, q *queue.Queue[int], a pool.Handle, key int64) {
	t.Helper()
	tm, _ := q.Time(a)
	k, _ := q.Key(a)
	if tm < 0 || tm > queue.MaxKey || k != key {
		t.Fatalf("key %d (MaxAllowedKey %d, shift %d): stored time %d, Key %d",
			key, q.MaxAllowedKey(), q.Shift(), tm, k)
	}
	if err := q.Invariant(); err != nil {
		t.Fatalf("after Add/Change(%d): %v", key, err)
	}
}

// The wheel-only calls reject what Add, Change and Key reject, and change
// nothing when they do.
func TestTimedCallsRejectBadInput(t *testing.T) {
	q := queue.NewTimed[int](mustLB(t, 2, 2, 2), 0, 3)
	a, err := q.AddTime(80, 1)
	mustOK(t, err)
	for _, tm := range []int64{-1, queue.MaxKey + 1, 1<<63 - 1, int64(q.MaxAllowedKey()+1) << 3} {
		if _, err := q.AddTime(tm, 0); !errors.Is(err, queue.ErrKeyOutOfRange) {
			t.Errorf("AddTime(%d): %v, want ErrKeyOutOfRange", tm, err)
		}
		if err := q.ChangeTime(a, tm); !errors.Is(err, queue.ErrKeyOutOfRange) {
			t.Errorf("ChangeTime(%d): %v, want ErrKeyOutOfRange", tm, err)
		}
	}
	mustOK(t, q.Remove(a))
	if err := q.ChangeTime(a, 80); !errors.Is(err, queue.ErrInvalidAlarm) {
		t.Errorf("ChangeTime of a removed element: %v, want ErrInvalidAlarm", err)
	}
	if _, err := q.Time(a); !errors.Is(err, queue.ErrInvalidAlarm) {
		t.Errorf("Time of a removed element: %v, want ErrInvalidAlarm", err)
	}
	if q.Len() != 0 {
		t.Fatalf("Len = %d after the rejected calls, want 0", q.Len())
	}
	mustOK(t, q.Invariant())
}
