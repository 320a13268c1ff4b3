package queue

import (
	"slices"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
)

// orderedQueue returns a valid queue of shift 2 (four times a key) with a
// step order: key 5 holds times 23, 21, 21, 22 (added in that order) and
// key 9 time 37. With level bits [2 2 2] it has no small mode; with [11 10]
// it is in small mode.
func orderedQueue(t *testing.T, bits ...int) *Queue[int] {
	t.Helper()
	q := NewTimed[int](mustLevelBits(t, bits...), 0, 2)
	for j, tm := range []int64{23, 21, 21, 22, 37} {
		if _, err := q.Add(tm, j); err != nil {
			t.Fatal(err)
		}
	}
	if lo, hi, _ := q.MinTimes(false); lo != 21 || hi != 23 {
		t.Fatalf("MinTimes %d, %d; want 21, 23", lo, hi)
	}
	if q.ordKey != 5 || len(q.ord) != 4 {
		t.Fatalf("step order of key %d with %d elements, want key 5 with 4", q.ordKey, len(q.ord))
	}
	if err := q.Invariant(); err != nil {
		t.Fatalf("not valid: %v", err)
	}
	return q
}

func TestCorruptPQ17(t *testing.T) {
	for _, bits := range [][]int{{2, 2, 2}, {11, 10}} {
		for _, c := range []struct {
			name    string
			corrupt func(q *Queue[int])
		}{
			// The order is the sorted array [21 21 22 23] (records 2 3 4 1).
			{"ties out of removal order", func(q *Queue[int]) {
				// A valid heap, but record 3, added after record 2, numbered
				// before it.
				q.ord[0].n, q.ord[1].n = q.ord[1].n, q.ord[0].n
				q.ord[0], q.ord[1] = q.ord[1], q.ord[0]
				q.ordAt[q.ord[0].i], q.ordAt[q.ord[1].i] = 0, 1
			}},
			{"out of time order", func(q *Queue[int]) {
				q.ord[0], q.ord[2] = q.ord[2], q.ord[0]
				q.ordAt[q.ord[0].i], q.ordAt[q.ord[2].i] = 0, 2
			}},
			{"an element missing", func(q *Queue[int]) { q.ord = q.ord[:len(q.ord)-1] }},
			{"an element twice", func(q *Queue[int]) { q.ord[3] = q.ord[0] }},
			{"a position not noted", func(q *Queue[int]) { q.ordAt[q.ord[1].i] = 0 }},
			{"a number not below the next", func(q *Queue[int]) { q.ordNext = 2 }},
			{"another key's order", func(q *Queue[int]) { q.ordKey = 9 }},
			{"a time changed under it", func(q *Queue[int]) { q.rec(q.ord[0].i).Time = 23 }},
		} {
			t.Run(c.name, func(t *testing.T) {
				q := orderedQueue(t, bits...)
				c.corrupt(q)
				invtest.Expect(t, q.checkPQ17(walkMax), "PQ17")
			})
		}
	}
	t.Run("shift 0", func(t *testing.T) {
		q := New[int](mustLevelBits(t, 2, 2, 2), 0)
		if _, err := q.Add(3, 0); err != nil {
			t.Fatal(err)
		}
		q.ord, q.ordAt, q.ordNext, q.ordKey = []ordEnt{{t: 3, i: 1}}, []uint32{0, 0}, 1, 3
		invtest.Expect(t, q.Invariant(), "PQ17")
	})
}

// TestStepOrderFollowsChanges checks that an Add, Remove or Change of an
// element of the step order's key keeps the order right: each step takes
// the key's smallest time, in removal order.
func TestStepOrderFollowsChanges(t *testing.T) {
	for _, bits := range [][]int{{2, 2, 2}, {11, 10}} {
		q := orderedQueue(t, bits...)
		now := int64(0)
		step := func(want ...int) {
			t.Helper()
			var got []int
			q.Step(&now, func(e Element[int]) { got = append(got, e.Value) })
			if !slices.Equal(got, want) {
				t.Fatalf("level bits %v: step took %v, want %v", bits, got, want)
			}
			if err := q.Invariant(); err != nil {
				t.Fatal(err)
			}
		}
		step(1, 2) // time 21
		if _, err := q.Add(20, 10); err != nil {
			t.Fatal(err)
		}
		step(10) // added before now, late: it fires at the next step
		b, _ := q.Add(22, 11)
		step(3, 11) // time 22, in removal order
		c, _ := q.Add(23, 12)
		q.MinTimes(false) // the order again, with c
		if err := q.Remove(c); err != nil {
			t.Fatal(err)
		}
		if err := q.Change(b, 37); err == nil {
			t.Fatal("Change of a fired element succeeded")
		}
		d, _ := q.Add(23, 13)
		if _, err := q.Add(23, 14); err != nil {
			t.Fatal(err)
		}
		q.MinTimes(false)
		if err := q.Change(d, 22); err != nil { // to now, ahead of 0 and 14
			t.Fatal(err)
		}
		step(13)
		step(0, 14) // time 23, in removal order, without c
		step(4)     // key 9
	}
}

// TestStepOrderLongKey steps through a key while each step adds an element
// at the key's last time, as a simulation whose events are closer together
// than the precision does: every step takes the next time in order, and the
// order's buffer does not grow with the steps.
func TestStepOrderLongKey(t *testing.T) {
	for _, bits := range [][]int{{2, 2, 2}, {11, 10}} {
		q := NewTimed[int](mustLevelBits(t, bits...), 0, 10) // 1024 times a key
		for j := range 40 {
			if _, err := q.Add(1024+int64(j), j); err != nil {
				t.Fatal(err)
			}
		}
		next, now := 40, int64(0)
		for step := range 900 { // the adds stay within key 1 (times 1024 to 2047)
			_, hi, _ := q.MinTimes(false)
			var got []int
			q.Step(&now, func(e Element[int]) { got = append(got, e.Value) })
			if len(got) != 1 || got[0] != step || now != 1024+int64(step) {
				t.Fatalf("level bits %v step %d: took %v at time %d, want [%d] at %d", bits, step, got, now, step, 1024+step)
			}
			if _, err := q.Add(hi+1, next); err != nil {
				t.Fatal(err)
			}
			next++
			if err := q.Invariant(); err != nil {
				t.Fatalf("level bits %v step %d: %v", bits, step, err)
			}
		}
		if q.ordKey != 1 || cap(q.ord) > 256 {
			t.Fatalf("level bits %v: step order of key %d with a buffer of %d, want key 1 and at most 256", bits, q.ordKey, cap(q.ord))
		}
	}
}
