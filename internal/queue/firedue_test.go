package queue_test

import (
	"slices"
	"testing"

	queue "github.com/gotimingwheel/timingwheel/internal/queue"
)

// A handler that panics in FireDue leaves the queue consistent: the elements
// before it and its own are removed, the ones after it stay due, and the next
// FireDue removes them in order. Both modes: small mode (keys near
// MinAllowedKey) and the levels (after a spill).
func TestFireDuePanicLeavesQueueConsistent(t *testing.T) {
	for _, n := range []int{5, 300} { // 300 > small mode's cap of 128: the levels
		q := queue.New[int](mustLB(t, 11, 10, 10), 0)
		for v := range n {
			_, err := q.Add(int64(v%7), v) // keys 0..6, several elements each
			mustOK(t, err)
		}
		q.CollectTo(4, 0) // keys 0..3 are due
		var want []int
		for k := range int64(4) {
			for v := range n {
				if int64(v%7) == k {
					want = append(want, v)
				}
			}
		}
		var got []int
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("n=%d: the handler's panic did not reach the caller", n)
				}
			}()
			q.FireDue(func(e queue.Element[int]) {
				got = append(got, e.Value)
				if len(got) == 2 {
					panic("take")
				}
			})
		}()
		if err := q.Invariant(); err != nil {
			t.Fatalf("n=%d: after a panicking handler: %v", n, err)
		}
		if q.Len() != n-2 {
			t.Fatalf("n=%d: Len %d after two elements were taken, want %d", n, q.Len(), n-2)
		}
		if m := q.FireDue(func(e queue.Element[int]) { got = append(got, e.Value) }); m != len(want)-2 {
			t.Fatalf("n=%d: the second FireDue removed %d, want %d", n, m, len(want)-2)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: removed %v, want %v", n, got, want)
		}
		if err := q.Invariant(); err != nil {
			t.Fatal(err)
		}
	}
}
