package queue

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// array is the array a slice's capacity spans: what the slice keeps alive.
type array struct {
	addr uintptr
	cap  int
}

func arrayOf[E any](s []E) array {
	return array{uintptr(unsafe.Pointer(unsafe.SliceData(s[:cap(s)]))), cap(s)}
}

// keptWhole fails unless after, a buffer after Shrink, is in a new array or
// spans the whole of before's: an array kept under a smaller capacity stays
// alive uncounted, since BytesHeld counts capacities.
func keptWhole[E any](t *testing.T, name string, before array, after []E) {
	t.Helper()
	if a := arrayOf(after); a.addr == before.addr && a.addr != 0 && a.cap != before.cap {
		t.Errorf("Shrink kept %s's array of %d entries under a capacity of %d, which BytesHeld counts", name, before.cap, a.cap)
	}
}

// TestShrinkLetsTheDueBufferGo: a burst fired at once leaves a due buffer
// of one entry per element; Shrink must let its array go, both after the
// burst and from inside its last handlers, keeping the order of what is
// still due.
func TestShrinkLetsTheDueBufferGo(t *testing.T) {
	lb, err := levelbits.New(11, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4096 // past any buffer Shrink keeps, small enough for TWCHECK=full
	fill := func() *Queue[int] {
		q := New[int](lb, 0)
		for v := range n {
			if _, err := q.Add(int64(v), v); err != nil {
				t.Fatal(err)
			}
		}
		return q
	}

	q := fill()
	if err := q.IncreaseMinAllowedKey(n, nil); err != nil {
		t.Fatal(err)
	}
	before := arrayOf(q.dueBuf)
	if before.cap < n {
		t.Fatalf("due buffer of %d entries after firing %d at once", before.cap, n)
	}
	q.Shrink()
	keptWhole(t, "the due buffer", before, q.dueBuf)
	if q.dueBuf != nil {
		t.Errorf("empty queue keeps a due buffer of %d entries", cap(q.dueBuf))
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}

	q = fill()
	var got []int
	err = q.IncreaseMinAllowedKey(n, func(e Element[int]) {
		got = append(got, e.Value)
		if e.Value == n-10 {
			q.Shrink()
			if c := cap(q.dueBuf); c > 64 {
				t.Errorf("Shrink with 9 elements due keeps a due buffer of %d entries", c)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for v := range n {
		if v >= len(got) || got[v] != v {
			t.Fatalf("removed %d elements, the %dth not %d", len(got), v, v)
		}
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// TestShrinkLetsSmallBucketsGo: a small-mode bucket that held many
// elements and keeps one must not keep its array under a capacity of one.
func TestShrinkLetsSmallBucketsGo(t *testing.T) {
	lb, err := levelbits.New(11, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	q := New[int](lb, 0)
	const n = 4000 // beyond level 0: small mode grows to hold them
	var last pool.Handle
	for v := range n {
		if last, err = q.Add(2048+int64(v), v); err != nil {
			t.Fatal(err)
		}
	}
	if !q.small {
		t.Fatalf("%d wide keys spilled (cap %d)", n, q.curCap)
	}
	b := len(q.rad.b) - 1
	before := arrayOf(q.rad.b[b].e)
	for _, h := range slices.Collect(q.All()) {
		if h != last {
			if err := q.Remove(h); err != nil {
				t.Fatal(err)
			}
		}
	}
	q.Shrink()
	keptWhole(t, "a bucket", before, q.rad.b[b].e)
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
}
