package queue_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/pool"
	queue "github.com/gotimingwheel/timingwheel/internal/queue"
)

// TestTimedAddKeepsTimeInRange: on a queue made by NewTimed, Add and Change
// take a time t, keyed by t >> shift. MaxAllowedKey is "the largest key Add
// accepts", so Add(MaxAllowedKey() << shift) must succeed, and every
// element's time must stay in [0, MaxKey] (PQ12) with Lookup returning the
// key added. The level bits here
// obey NewTimed's rule (they sum to at most 62 - shift), yet the levels'
// ranges, clamped at MaxKey in key space and not at MaxKey >> shift, reach
// keys whose time is above MaxKey, or overflows int64 to a negative number:
// Add and Change must refuse the times of those keys (key << shift above
// MaxKey, or overflowing int64).
//
// Before commit 825501d (which caps MaxAllowedKey at MaxKey >> shift), when
// Add took a key and stored the time key << shift: [1 1]
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
				a, err := q.Add(key<<tc.shift, 0)
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
				if err := q.Change(b, key<<tc.shift); err == nil {
					checkTimed(t, q, b, key)
				}
			}
		})
	}
}

func checkTimed(t *testing.T, q *queue.Queue[int], a pool.Handle, key int64) {
	t.Helper()
	e, _ := q.Lookup(a)
	tm, k := e.Time, e.Key
	if tm < 0 || tm > queue.MaxKey || k != key {
		t.Fatalf("key %d (MaxAllowedKey %d, shift %d): stored time %d, Key %d",
			key, q.MaxAllowedKey(), q.Shift(), tm, k)
	}
	if err := q.Invariant(); err != nil {
		t.Fatalf("after Add/Change(%d): %v", key, err)
	}
}

// On a queue with a shift, Add, Change and Lookup reject times out of range
// and bad handles, and change nothing when they do.
func TestTimedCallsRejectBadInput(t *testing.T) {
	q := queue.NewTimed[int](mustLB(t, 2, 2, 2), 0, 3)
	a, err := q.Add(80, 1)
	mustOK(t, err)
	for _, tm := range []int64{-1, queue.MaxKey + 1, 1<<63 - 1, int64(q.MaxAllowedKey()+1) << 3} {
		if _, err := q.Add(tm, 0); !errors.Is(err, queue.ErrKeyOutOfRange) {
			t.Errorf("Add(%d): %v, want ErrKeyOutOfRange", tm, err)
		}
		if err := q.Change(a, tm); !errors.Is(err, queue.ErrKeyOutOfRange) {
			t.Errorf("Change(%d): %v, want ErrKeyOutOfRange", tm, err)
		}
	}
	mustOK(t, q.Remove(a))
	if err := q.Change(a, 80); !errors.Is(err, queue.ErrInvalidAlarm) {
		t.Errorf("Change of a removed element: %v, want ErrInvalidAlarm", err)
	}
	if _, err := q.Lookup(a); !errors.Is(err, queue.ErrInvalidAlarm) {
		t.Errorf("Lookup of a removed element: %v, want ErrInvalidAlarm", err)
	}
	if q.Len() != 0 {
		t.Fatalf("Len = %d after the rejected calls, want 0", q.Len())
	}
	mustOK(t, q.Invariant())
}
