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

// A Step whose handler panics leaves the queue consistent, its element
// removed and the rest in place; and while elements wait in the due list
// (left by a panicking handler), the next step's element goes after them,
// and the step moves MinAllowedKey with the clock.
// In small mode, with one element per key: a shortcut that fired a key's
// one element without the due list would break either.
func TestStepAfterPanics(t *testing.T) {
	q := queue.New[int](mustLB(t, 11, 10, 10), 0)
	for _, k := range []int64{3, 5, 9} {
		_, err := q.Add(k, int(k))
		mustOK(t, err)
	}
	var now int64
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the handler's panic did not reach the caller")
			}
		}()
		q.Step(&now, func(queue.Element[int]) { panic("step") })
	}()
	if err := q.Invariant(); err != nil {
		t.Fatalf("after a panicking handler in Step: %v", err)
	}
	if q.Len() != 2 || now != 3 {
		t.Fatalf("after a panicking Step: Len %d, now %d; want 2, 3", q.Len(), now)
	}

	// Keys 5 and 9 go due; the handler panics at the first, so 9 waits in
	// the due list. Then key 12 holds one element.
	q.CollectTo(10, 0)
	func() {
		defer func() { _ = recover() }()
		q.FireDue(func(queue.Element[int]) { panic("fire") })
	}()
	_, err := q.Add(12, 12)
	mustOK(t, err)
	now = 10
	var got []int
	record := func(e queue.Element[int]) { got = append(got, e.Value) }
	// The due element is the earliest: the first Step removes it alone and
	// leaves now; the second moves now to 12; more find nothing.
	if q.Step(&now, record); !slices.Equal(got, []int{9}) || now != 10 {
		t.Fatalf("the first Step removed %v, now %d; want [9], 10", got, now)
	}
	for range 3 {
		q.Step(&now, record)
	}
	if !slices.Equal(got, []int{9, 12}) {
		t.Fatalf("Step removed %v, want [9 12]: the due element first", got)
	}
	if now != 12 || q.MinAllowedKey() != 12 {
		t.Fatalf("after the steps: now %d, MinAllowedKey %d; want 12 and 12", now, q.MinAllowedKey())
	}
	// Key 20 holds two elements: the step splits the lowest bucket on 20,
	// and MinAllowedKey follows the clock there too.
	for _, v := range []int{20, 21} {
		_, err := q.Add(20, v)
		mustOK(t, err)
	}
	if q.Step(&now, record); !slices.Equal(got, []int{9, 12, 20, 21}) || now != 20 || q.MinAllowedKey() != 20 {
		t.Fatalf("the step to key 20 removed %v, now %d, MinAllowedKey %d; want [... 20 21], 20, 20", got, now, q.MinAllowedKey())
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
}
