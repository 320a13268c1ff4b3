package priorityqueue_test

// Table tests of the level geometry (expected values worked out by hand from
// the formulas in the package comment), of every error path, and of removal
// handlers that call back into the queue.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

const maxKey = priorityqueue.MaxKey

func mustLB(t testing.TB, bits ...int) levelbits.LevelBits {
	t.Helper()
	lb, err := levelbits.New(bits...)
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustAdd[T any](t testing.TB, q *priorityqueue.Queue[T], key int64, v T) alarm.Alarm {
	t.Helper()
	a, err := q.Add(key, v)
	if err != nil {
		t.Fatalf("Add(%d): %v", key, err)
	}
	return a
}

// TestMaxAllowedKey: with min_0 = m, max_0 = m + 2^b_0 - 1, and each higher
// level starts at floor(max_(i-1)+1, 2^s_i) and spans 2^(b_i+s_i) keys.
func TestMaxAllowedKey(t *testing.T) {
	tests := []struct {
		bits []int
		min  int64 // IncreaseMinAllowedKey(min) first, when > 0
		want int64
	}{
		// At creation (min_0 = 0).
		{[]int{1}, 0, 1},            // [0,1]
		{[]int{1, 1}, 0, 5},         // [0,1] [2,5]
		{[]int{1, 1, 1}, 0, 11},     // [0,1] [2,5] [4,11]
		{[]int{2}, 0, 3},            // [0,3]
		{[]int{3}, 0, 7},            // [0,7]
		{[]int{3, 1}, 0, 23},        // [0,7] [8,23]
		{[]int{2, 2, 2}, 0, 79},     // [0,3] [4,19] [16,79]
		{[]int{11, 10}, 0, 2099199}, // [0,2047] [2048, 2048+2^21-1]
		// Default: level 6 (1 bit, shift 61) starts at 2^61 and is clamped.
		{levelbits.Default().Bits(), 0, maxKey},
		// After raising the minimum.
		{[]int{1, 1}, 1, 5},     // [1,2] [2,5]
		{[]int{1, 1}, 2, 7},     // [2,3] [4,7]
		{[]int{1, 1}, 3, 7},     // [3,4] [4,7]
		{[]int{2}, 10, 13},      // [10,13]
		{[]int{3, 1}, 5, 23},    // [5,12] [8,23]
		{[]int{3, 1}, 8, 31},    // [8,15] [16,31]
		{[]int{1, 1, 1}, 5, 15}, // [5,6] [6,9] [8,15]
		// Near MaxKey = 2^62-1 (odd): every range clamps there.
		{[]int{1}, maxKey, maxKey},
		{[]int{1}, maxKey - 1, maxKey},
		{[]int{1, 1}, maxKey - 2, maxKey}, // [M-2,M-1] [M-1,M]
		{[]int{2, 2}, maxKey - 1, maxKey},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v from %d", tc.bits, tc.min), func(t *testing.T) {
			q := priorityqueue.New[int](mustLB(t, tc.bits...), 0)
			if tc.min > 0 {
				mustOK(t, q.IncreaseMinAllowedKey(tc.min, nil))
			}
			if got := q.MinAllowedKey(); got != tc.min {
				t.Errorf("MinAllowedKey %d, want %d", got, tc.min)
			}
			if got := q.MaxAllowedKey(); got != tc.want {
				t.Errorf("MaxAllowedKey %d, want %d", got, tc.want)
			}
			mustOK(t, q.Invariant())
			// Both ends are accepted, one past either is not.
			mustAdd(t, q, tc.min, 1)
			mustAdd(t, q, tc.want, 2)
			if tc.want < maxKey {
				if _, err := q.Add(tc.want+1, 3); !errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
					t.Errorf("Add(max+1): %v", err)
				}
			}
			mustOK(t, q.Invariant())
		})
	}
}

// snapshot is what an error must leave unchanged.
type snapshot struct {
	len            int
	all            []alarm.Alarm
	minKey         int64
	minOK          bool
	minAllowed     int64
	maxAllowed     int64
	keys           []int64
	invariantError error
}

func snap[T any](q *priorityqueue.Queue[T]) snapshot {
	s := snapshot{len: q.Len(), minAllowed: q.MinAllowedKey(), maxAllowed: q.MaxAllowedKey()}
	for a := range q.All() {
		s.all = append(s.all, a)
	}
	slices.SortFunc(s.all, func(a, b alarm.Alarm) int { return int(pool.Index(a)) - int(pool.Index(b)) })
	for _, a := range s.all {
		k, _ := q.Key(a)
		s.keys = append(s.keys, k)
	}
	s.minKey, s.minOK = q.MinKey()
	s.invariantError = q.Invariant()
	return s
}

func (s snapshot) diff(o snapshot) string {
	if s.len != o.len || !slices.Equal(s.all, o.all) || !slices.Equal(s.keys, o.keys) ||
		s.minKey != o.minKey || s.minOK != o.minOK || s.minAllowed != o.minAllowed ||
		s.maxAllowed != o.maxAllowed || (s.invariantError == nil) != (o.invariantError == nil) {
		return fmt.Sprintf("before %+v\nafter  %+v", s, o)
	}
	return ""
}

// errorQueue is a queue with MinAllowedKey 10, elements on three levels and
// the handles of those elements.
func errorQueue(t *testing.T) (*priorityqueue.Queue[int], []alarm.Alarm) {
	q := priorityqueue.New[int](mustLB(t, 2, 2, 2), 0)
	mustOK(t, q.IncreaseMinAllowedKey(10, nil))
	var hs []alarm.Alarm
	for _, k := range []int64{10, 12, 20, 40, 75} {
		hs = append(hs, mustAdd(t, q, k, int(k)))
	}
	mustOK(t, q.Invariant())
	return q, hs
}

func TestKeyOutOfRange(t *testing.T) {
	q, hs := errorQueue(t)
	lo, hi := q.MinAllowedKey(), q.MaxAllowedKey()
	for _, k := range []int64{lo - 1, 0, -1, hi + 1, maxKey, -maxKey} {
		before := snap(q)
		if _, err := q.Add(k, 0); !errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
			t.Errorf("Add(%d) outside [%d, %d]: %v", k, lo, hi, err)
		}
		if err := q.Change(hs[2], k); !errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
			t.Errorf("Change(%d) outside [%d, %d]: %v", k, lo, hi, err)
		}
		if d := before.diff(snap(q)); d != "" {
			t.Errorf("key %d: a failed call changed the queue:\n%s", k, d)
		}
	}
	// An increase beyond MaxKey is refused and changes nothing.
	before := snap(q)
	called := false
	for _, k := range []int64{maxKey + 1, 1<<63 - 1} {
		err := q.IncreaseMinAllowedKey(k, func(priorityqueue.Element[int]) { called = true })
		if !errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
			t.Errorf("IncreaseMinAllowedKey(%d): %v", k, err)
		}
	}
	if called {
		t.Error("a refused increase called the handler")
	}
	if d := before.diff(snap(q)); d != "" {
		t.Errorf("a refused increase changed the queue:\n%s", d)
	}
	// An increase to MaxKey itself is allowed and removes everything.
	mustOK(t, q.IncreaseMinAllowedKey(maxKey, nil))
	if q.Len() != 0 || q.MinAllowedKey() != maxKey || q.MaxAllowedKey() != maxKey {
		t.Errorf("after increase to MaxKey: Len %d, allowed [%d, %d]", q.Len(), q.MinAllowedKey(), q.MaxAllowedKey())
	}
	mustAdd(t, q, maxKey, 1)
	mustOK(t, q.Invariant())
}

func TestInvalidAlarm(t *testing.T) {
	type tc struct {
		name string
		make func(t *testing.T, q *priorityqueue.Queue[int]) alarm.Alarm
	}
	cases := []tc{
		{"null", func(t *testing.T, q *priorityqueue.Queue[int]) alarm.Alarm {
			return alarm.Alarm{}
		}},
		{"removed", func(t *testing.T, q *priorityqueue.Queue[int]) alarm.Alarm {
			a := mustAdd(t, q, 30, 30)
			mustOK(t, q.Remove(a))
			return a
		}},
		{"removed, record reused", func(t *testing.T, q *priorityqueue.Queue[int]) alarm.Alarm {
			a := mustAdd(t, q, 30, 30)
			mustOK(t, q.Remove(a))
			b := mustAdd(t, q, 31, 31)
			if pool.Index(b) != pool.Index(a) {
				t.Fatalf("record %d not reused (got %d)", pool.Index(a), pool.Index(b))
			}
			return a
		}},
		{"fired", func(t *testing.T, q *priorityqueue.Queue[int]) alarm.Alarm {
			// Key 11 is the smallest; raising the minimum to 12 fires only it.
			a := mustAdd(t, q, 11, 11)
			var fired []alarm.Alarm
			mustOK(t, q.IncreaseMinAllowedKey(12, func(ev priorityqueue.Element[int]) {
				x := ev.Alarm
				fired = append(fired, x)
			}))
			if len(fired) != 2 || fired[1] != a { // key 10 fires first
				t.Fatalf("fired %v, want key 10 then %v", fired, a)
			}
			return a
		}},
		{"cleared", func(t *testing.T, q *priorityqueue.Queue[int]) alarm.Alarm {
			a := mustAdd(t, q, 30, 30)
			q.Clear()
			// Refill, so that the same record indices are in use again.
			for _, k := range []int64{30, 30, 40, 50, 60, 70} {
				mustAdd(t, q, k, int(k))
			}
			return a
		}},
		{"another queue's", func(t *testing.T, q *priorityqueue.Queue[int]) alarm.Alarm {
			// The same calls on a twin queue give a handle with the same
			// index and generation as a live one here; only the owner differs.
			twin, _ := errorQueue(t)
			b := mustAdd(t, twin, 30, 30)
			a := mustAdd(t, q, 30, 30)
			// A handle prints as alarm(owner/index@gen).
			var oa, ia, ga, ob, ib, gb uint64
			na, _ := fmt.Sscanf(a.String(), "alarm(%d/%d@%d)", &oa, &ia, &ga)
			nb, _ := fmt.Sscanf(b.String(), "alarm(%d/%d@%d)", &ob, &ib, &gb)
			if na != 3 || nb != 3 || ia != ib || ga != gb || oa == ob {
				t.Fatalf("twin handles %v and %v", a, b)
			}
			return b
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, _ := errorQueue(t)
			a := c.make(t, q)
			before := snap(q)
			if q.Mem(a) {
				t.Errorf("Mem(%v) is true", a)
			}
			if err := q.Remove(a); !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
				t.Errorf("Remove: %v", err)
			}
			if err := q.Change(a, q.MinAllowedKey()); !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
				t.Errorf("Change: %v", err)
			}
			// An invalid handle is reported before a bad key.
			if err := q.Change(a, -1); !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
				t.Errorf("Change with a bad key: %v", err)
			}
			if _, err := q.Key(a); !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
				t.Errorf("Key: %v", err)
			}
			if v, err := q.Value(a); !errors.Is(err, priorityqueue.ErrInvalidAlarm) || v != 0 {
				t.Errorf("Value: %d, %v", v, err)
			}
			if d := before.diff(snap(q)); d != "" {
				t.Errorf("a rejected call changed the queue:\n%s", d)
			}
		})
	}
}

// TestClearResetsMin: a cached minimum must not survive Clear (the original
// keeps a stale one).
func TestClearResetsMin(t *testing.T) {
	q := priorityqueue.New[int](mustLB(t, 2, 2, 2), 0)
	mustAdd(t, q, 5, 5)
	mustAdd(t, q, 9, 9)
	if k, ok := q.MinKey(); !ok || k != 5 {
		t.Fatalf("MinKey %d %v, want 5", k, ok)
	}
	q.Clear()
	if k, ok := q.MinKey(); ok {
		t.Fatalf("MinKey after Clear: %d, want none", k)
	}
	a := mustAdd(t, q, 7, 7)
	if k, ok := q.MinKey(); !ok || k != 7 {
		t.Fatalf("MinKey %d %v, want 7", k, ok)
	}
	if m, ok := q.MinElt(); !ok || m != a {
		t.Fatalf("MinElt %v, want %v", m, a)
	}
	mustOK(t, q.Invariant())
}

// fired collects the values a handler saw, in order.
type fired []int

// reentrantQueue: level bits [2 2 2], values = keys*10 + n for the n-th
// element with that key.
func reentrantQueue(t *testing.T) (*priorityqueue.Queue[int], map[int]alarm.Alarm) {
	q := priorityqueue.New[int](mustLB(t, 2, 2, 2), 0)
	h := map[int]alarm.Alarm{}
	for _, v := range []int{10, 11, 20, 30, 50, 51, 130, 300, 700} {
		h[v] = mustAdd(t, q, int64(v/10), v)
	}
	return q, h
}

func TestHandlerAdds(t *testing.T) {
	q, _ := reentrantQueue(t)
	var got fired
	added := false
	mustOK(t, q.IncreaseMinAllowedKey(6, func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		v, _ := q.Value(a)
		got = append(got, v)
		if added {
			return
		}
		added = true
		if q.MinAllowedKey() != 6 {
			t.Errorf("MinAllowedKey inside the handler %d, want 6", q.MinAllowedKey())
		}
		// Below the new minimum: refused, although the removal is under way.
		if _, err := q.Add(5, 59); !errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
			t.Errorf("Add(5) inside the handler: %v", err)
		}
		mustAdd(t, q, 6, 60) // at the new minimum: stays
		mustAdd(t, q, 9, 90)
		if err := q.Invariant(); err != nil {
			t.Errorf("inside the handler: %v", err)
		}
	}))
	if want := (fired{10, 11, 20, 30, 50, 51}); !slices.Equal(got, want) {
		t.Fatalf("removed %v, want %v", got, want)
	}
	mustOK(t, q.Invariant())
	if q.Len() != 5 {
		t.Fatalf("Len %d, want 5", q.Len())
	}
	got = nil
	mustOK(t, q.IncreaseMinAllowedKey(maxKey, func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		v, _ := q.Value(a)
		got = append(got, v)
	}))
	if want := (fired{60, 90, 130, 300, 700}); !slices.Equal(got, want) {
		t.Fatalf("then removed %v, want %v", got, want)
	}
}

func TestHandlerRemoves(t *testing.T) {
	q, h := reentrantQueue(t)
	var got fired
	mustOK(t, q.IncreaseMinAllowedKey(6, func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		v, _ := q.Value(a)
		got = append(got, v)
		switch v {
		case 10:
			// 30 and 51 are due in this call, 130 is not.
			for _, w := range []int{30, 51, 130} {
				if err := q.Remove(h[w]); err != nil {
					t.Errorf("Remove(%d) inside the handler: %v", w, err)
				}
			}
			// Removing itself or something already fired is refused.
			if err := q.Remove(a); !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
				t.Errorf("handler removing its own alarm: %v", err)
			}
			if err := q.Invariant(); err != nil {
				t.Errorf("inside the handler: %v", err)
			}
		case 11:
			if err := q.Remove(h[10]); !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
				t.Errorf("Remove of a fired alarm: %v", err)
			}
		}
	}))
	if want := (fired{10, 11, 20, 50}); !slices.Equal(got, want) {
		t.Fatalf("removed %v, want %v", got, want)
	}
	mustOK(t, q.Invariant())
	if q.Len() != 2 || !q.Mem(h[300]) || !q.Mem(h[700]) {
		t.Fatalf("Len %d, want 300 and 700 left", q.Len())
	}
}

func TestHandlerChanges(t *testing.T) {
	q, h := reentrantQueue(t)
	var got fired
	mustOK(t, q.IncreaseMinAllowedKey(6, func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		v, _ := q.Value(a)
		got = append(got, v)
		if v != 10 {
			return
		}
		mustOK(t, q.Change(h[30], 8))  // due, moved beyond the new minimum: not removed now
		mustOK(t, q.Change(h[700], 6)) // not due, moved to the new minimum: not removed now
		// A refused change leaves 50 due: it is removed in its turn.
		if err := q.Change(h[50], 2); !errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
			t.Errorf("Change below the new minimum: %v", err)
		}
		if err := q.Invariant(); err != nil {
			t.Errorf("inside the handler: %v", err)
		}
	}))
	if want := (fired{10, 11, 20, 50, 51}); !slices.Equal(got, want) {
		t.Fatalf("removed %v, want %v", got, want)
	}
	mustOK(t, q.Invariant())
	for w, k := range map[int]int64{30: 8, 700: 6, 130: 13} {
		if got, err := q.Key(h[w]); err != nil || got != k {
			t.Errorf("Key of %d: %d %v, want %d", w, got, err, k)
		}
	}
	got = nil
	mustOK(t, q.IncreaseMinAllowedKey(maxKey, func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		v, _ := q.Value(a)
		got = append(got, v)
	}))
	if want := (fired{700, 30, 130, 300}); !slices.Equal(got, want) {
		t.Fatalf("then removed %v, want %v", got, want)
	}
}

// TestHandlerPanics: a panic leaves a valid queue whose remaining due
// elements are removed first by the next increase, none lost, none twice.
func TestHandlerPanics(t *testing.T) {
	for _, panicAt := range []int{10, 11, 30, 51} {
		t.Run(fmt.Sprint(panicAt), func(t *testing.T) {
			q, h := reentrantQueue(t)
			seen := map[int]int{}
			var got fired
			handler := func(ev priorityqueue.Element[int]) {
				a := ev.Alarm

				v, _ := q.Value(a)
				got = append(got, v)
				seen[v]++
				if v == panicAt && seen[v] == 1 {
					panic(fmt.Sprint("boom at ", v))
				}
			}
			func() {
				defer func() {
					if r := recover(); r != fmt.Sprint("boom at ", panicAt) {
						t.Fatalf("recovered %v", r)
					}
				}()
				_ = q.IncreaseMinAllowedKey(6, handler)
				t.Fatal("no panic")
			}()
			mustOK(t, q.Invariant())
			due := []int{10, 11, 20, 30, 50, 51}
			fromPanic := slices.Index(due, panicAt) + 1 // removed so far, the panicking one included
			if want := 9 - fromPanic; q.Len() != want {
				t.Fatalf("Len %d after the panic, want %d", q.Len(), want)
			}
			if q.MinAllowedKey() != 6 {
				t.Fatalf("MinAllowedKey %d, want 6", q.MinAllowedKey())
			}
			if q.Mem(h[panicAt]) {
				t.Fatal("the panicking alarm is still a member")
			}
			for _, v := range due[fromPanic:] {
				if !q.Mem(h[v]) {
					t.Fatalf("%d lost", v)
				}
			}
			if k, ok := q.MinKey(); fromPanic < len(due) && (!ok || k != int64(due[fromPanic]/10)) {
				t.Fatalf("MinKey %d %v, want the next due key %d", k, ok, due[fromPanic]/10)
			}
			// Add one element at the new minimum: it goes after the due ones.
			h[60] = mustAdd(t, q, 6, 60)
			// The next increase, even one that does not raise the minimum,
			// removes the due elements first.
			mustOK(t, q.IncreaseMinAllowedKey(0, handler))
			if want := (fired{10, 11, 20, 30, 50, 51}); !slices.Equal(got, want) {
				t.Fatalf("removed %v, want %v", got, want)
			}
			mustOK(t, q.Invariant())
			mustOK(t, q.IncreaseMinAllowedKey(maxKey, handler))
			if want := (fired{10, 11, 20, 30, 50, 51, 60, 130, 300, 700}); !slices.Equal(got, want) {
				t.Fatalf("removed %v, want %v", got, want)
			}
			for v, n := range seen {
				if n != 1 {
					t.Errorf("%d removed %d times", v, n)
				}
			}
			if q.Len() != 0 {
				t.Fatalf("Len %d at the end", q.Len())
			}
			mustOK(t, q.Invariant())
		})
	}
}

// TestHandlerNestedIncrease: an increase inside a handler continues the same
// removal order (due elements first, then the newly passed keys).
func TestHandlerNestedIncrease(t *testing.T) {
	q, _ := reentrantQueue(t)
	var got fired
	var handler func(priorityqueue.Element[int])
	handler = func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		v, _ := q.Value(a)
		got = append(got, v)
		if v == 20 {
			mustOK(t, q.IncreaseMinAllowedKey(20, handler))
		}
	}
	mustOK(t, q.IncreaseMinAllowedKey(4, handler))
	if want := (fired{10, 11, 20, 30, 50, 51, 130}); !slices.Equal(got, want) {
		t.Fatalf("removed %v, want %v", got, want)
	}
	mustOK(t, q.Invariant())
	if q.Len() != 2 || q.MinAllowedKey() != 20 {
		t.Fatalf("Len %d, MinAllowedKey %d", q.Len(), q.MinAllowedKey())
	}
}

// TestShrinkInsideRemovalHandler: a handler that calls Shrink moves the
// record being removed (here from index 8 to 1, the pool shrinking to two
// records); the removal must then free the record where it now is, and the
// handle must still answer inside the handler.
func TestShrinkInsideRemovalHandler(t *testing.T) {
	lb, err := levelbits.New(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	q := priorityqueue.New[int](lb, 0)
	var hs []alarm.Alarm
	for v := range 8 {
		a, err := q.Add(5, v)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, a)
	}
	for _, a := range hs[:7] {
		if err := q.Remove(a); err != nil {
			t.Fatal(err)
		}
	}
	var got []int
	err = q.IncreaseMinAllowedKey(6, func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		q.Shrink()
		v, err := q.Value(a)
		if err != nil {
			t.Errorf("Value inside the handler after Shrink: %v", err)
		}
		got = append(got, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int{7}) || !q.IsEmpty() {
		t.Fatalf("removed %v, Len %d; want [7], 0", got, q.Len())
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
	if q.Mem(hs[7]) {
		t.Fatal("the removed handle is still a member")
	}
}

// New refuses a capacity no queue can index, or a negative one, with a panic
// that names the value and the allowed range, instead of failing deep inside
// an allocation.
func TestNewRejectsCapacityOutOfRange(t *testing.T) {
	cs := []int{-1}
	if strconv.IntSize == 64 { // no int reaches the limit where int is 32 bits
		one := int64(1)
		cs = append(cs, int(one<<32), int(one<<62))
	}
	for _, c := range cs {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, fmt.Sprint(c)) || !strings.Contains(msg, "[0, 4294967294]") {
					t.Errorf("New with capacity %d: panic %q, want one naming the value and [0, 4294967294]", c, msg)
				}
			}()
			priorityqueue.New[int](levelbits.Default(), c)
		}()
	}
}
