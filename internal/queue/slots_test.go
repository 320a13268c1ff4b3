package queue

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// A compaction of a slot whose front vector holds entries rewrites the slot
// into its back vector, gives the front vector to the spares (the slot no
// longer holds it: PQ16), and keeps the slot's order.
func TestCompactionRecyclesFront(t *testing.T) {
	lb, err := levelbits.New(2, 4, 4) // level 0: 4 keys; level 1: 16 slots of 4; level 2: 16 of 64
	if err != nil {
		t.Fatal(err)
	}
	q := New[string](lb, 0)
	add := func(key int64, v string) pool.Handle {
		a, err := q.Add(key, v)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	increase := func(key int64, removed func(Element[string])) {
		if err := q.IncreaseMinAllowedKey(key, removed); err != nil {
			t.Fatal(err)
		}
	}
	var as, bs, cs []pool.Handle
	for range 20 {
		as = append(as, add(100, "a")) // level 2, slot [64, 128)
	}
	increase(40, nil) // level 1 now covers [44, 107]
	for range 10 {
		bs = append(bs, add(101, "b")) // level 1, slot 9 of keys [100, 104)
	}
	increase(60, nil) // level 1 covers [64, 127]: the a's cascade ahead of the b's
	lv := &q.levels[1]
	v := &lv.slots[9]
	if len(v.front) != 20 || len(v.back) != 10 {
		t.Fatalf("slot 9 of level 1: %d entries in front, %d in back; want 20 and 10", len(v.front), len(v.back))
	}
	cs = append(cs, add(102, "c1"), add(102, "c2")) // 32 entries
	for _, h := range append(append(as[1:], bs[1:]...), cs[1]) {
		if err := q.Remove(h); err != nil {
			t.Fatal(err)
		}
	}
	front := v.front
	add(102, "d") // 3 elements in 32 entries: the put compacts the slot first
	if v.front != nil || len(v.back) != 4 {
		t.Fatalf("after the compaction: front vector of capacity %d, %d entries in back; want none and 4", cap(v.front), len(v.back))
	}
	if len(q.spare) <= vecClass(cap(front)) || !slices.ContainsFunc(q.spare[vecClass(cap(front))], func(s []uint32) bool { return vecAddr(s) == vecAddr(front) }) {
		t.Fatalf("the front vector (capacity %d) is not among the spares %v", cap(front), q.spare)
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
	var got []string
	increase(200, func(e Element[string]) { got = append(got, e.Value) })
	if want := []string{"a", "b", "c1", "d"}; !slices.Equal(got, want) {
		t.Fatalf("fired %q, want %q", got, want)
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// Shrink drops the spares and rewrites each slot into the smallest vector
// that holds it.
func TestShrinkDropsSpares(t *testing.T) {
	f := newVectorFixture(t) // level 2: slot 0 holds 7 elements in 8 entries, slot 1 holds 9 in 16; one spare
	q := f.q
	var at70, at30 []pool.Handle // the "more" elements at keys 70 and 30
	for h := range q.All() {
		e, _ := q.Lookup(h)
		if v, k := e.Value, e.Key; v == "more" && k == 70 {
			at70 = append(at70, h)
		} else if v == "more" && k == 30 {
			at30 = append(at30, h)
		}
	}
	if len(at70) != 6 || len(at30) != 8 {
		t.Fatalf("%d and %d elements at keys 70 and 30 added by the fixture, want 6 and 8", len(at70), len(at30))
	}
	for _, h := range append(at70[:4], at30[:2]...) {
		if err := q.Remove(h); err != nil {
			t.Fatal(err)
		}
	}
	q.Shrink()
	lv := &q.levels[2]
	if q.spare != nil {
		t.Errorf("spares after Shrink: %v", q.spare)
	}
	if b := lv.slots[0].back; len(b) != 3 || cap(b) != 8 {
		t.Errorf("slot 0 (3 elements) has %d entries in %d, want 3 in 8", len(b), cap(b))
	}
	if b := lv.slots[1].back; len(b) != 7 || cap(b) != 8 {
		t.Errorf("slot 1 (7 elements) has %d entries in %d, want 7 in 8", len(b), cap(b))
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// vecAddr is the address of v's first entry (v has capacity).
func vecAddr(v []uint32) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(v))) }
