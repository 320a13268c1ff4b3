package queue

// Corruption tests: each builds a valid queue, breaks exactly one fact, and
// checks that Invariant reports the invariant that fact belongs to. Without
// them a check that can never fire would look the same as one that holds.

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// fixture is a valid queue with level bits [2 2 2] and elements on every level
// and in the due list. Its handles are named by the key they were added with.
type fixture struct {
	q *Queue[string]
	h map[string]pool.Handle
}

// newFixture builds, with MinAllowedKey 3 at the end:
//
//	due list: keys 1, 2      (left by a handler that panicked at key 0)
//	level 0:  keys 3, 6      covering [3, 6]
//	level 1:  keys 5, 13     covering [4, 19], 4 keys a slot
//	level 2:  keys 30, 70    covering [16, 79], 16 keys a slot
func newFixture(t *testing.T) *fixture {
	t.Helper()
	lb, err := levelbits.New(2, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{q: New[string](lb, 0), h: map[string]pool.Handle{}}
	add := func(name string, key int64) {
		t.Helper()
		a, err := f.q.Add(key, name)
		if err != nil {
			t.Fatalf("Add(%d): %v", key, err)
		}
		f.h[name] = a
	}
	add("k0", 0)
	add("k1", 1)
	add("k2", 2)
	add("k5", 5)
	add("k13", 13)
	add("k30", 30)
	add("k70", 70)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("handler did not panic")
			}
		}()
		_ = f.q.IncreaseMinAllowedKey(3, func(Element[string]) { panic("stop") })
	}()
	add("k3", 3)
	add("k6", 6)

	q := f.q
	if err := q.Invariant(); err != nil {
		t.Fatalf("fixture is not valid: %v", err)
	}
	if q.DueLen() != 2 || q.LevelLen(0) != 2 || q.LevelLen(1) != 2 || q.LevelLen(2) != 2 || q.Len() != 8 {
		t.Fatalf("fixture: due %d, levels %d %d %d, Len %d; want 2, 2 2 2, 8",
			q.DueLen(), q.LevelLen(0), q.LevelLen(1), q.LevelLen(2), q.Len())
	}
	if q.levels[0].minKey != 3 || q.levels[1].minKey != 4 || q.levels[1].maxKey != 19 ||
		q.levels[2].minKey != 16 || q.levels[2].maxKey != 79 {
		t.Fatalf("fixture geometry: %+v", q.levels)
	}
	for _, name := range []string{"k5", "k13"} {
		if r := f.rec(name); r.State() != 2 {
			t.Fatalf("%s in state %d, want level 1", name, r.State())
		}
	}
	for _, name := range []string{"k30", "k70"} {
		if r := f.rec(name); r.State() != 3 {
			t.Fatalf("%s in state %d, want level 2", name, r.State())
		}
	}
	return f
}

func (f *fixture) idx(name string) uint32 {
	i, r := f.q.pool.Lookup(f.h[name])
	if r == nil {
		panic("fixture: no record for " + name)
	}
	return i
}

func (f *fixture) rec(name string) *pool.Record[string] { return f.q.rec(f.idx(name)) }

func TestFixtureValid(t *testing.T) {
	f := newFixture(t)
	// The fixture's due list is legitimate: the next increase removes it first.
	var got []string
	if err := f.q.IncreaseMinAllowedKey(3, func(ev Element[string]) {
		a := ev.Alarm

		e, _ := f.q.Lookup(a)
		v := e.Value
		got = append(got, v)
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "k1" || got[1] != "k2" {
		t.Fatalf("due list removed %q, want [k1 k2]", got)
	}
	if err := f.q.Invariant(); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptPQ1(t *testing.T) {
	t.Run("reach not the top level's max", func(t *testing.T) {
		f := newFixture(t)
		f.q.reach--
		invtest.Expect(t, f.q.Invariant(), "PQ1")
	})
	t.Run("min off alignment", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[1].minKey = 5 // level 1's slots are 4 keys wide
		invtest.Expect(t, f.q.Invariant(), "PQ1")
	})
	t.Run("max not min+span", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[2].maxKey--
		invtest.Expect(t, f.q.Invariant(), "PQ1")
	})
	t.Run("shift", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[1].shift = 3
		invtest.Expect(t, f.q.Invariant(), "PQ1")
	})
	t.Run("span", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[0].span = 4
		invtest.Expect(t, f.q.Invariant(), "PQ1")
	})
	t.Run("slot count", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[1].slots = f.q.levels[1].slots[:3]
		invtest.Expect(t, f.q.Invariant(), "PQ1")
	})
}

func TestCorruptPQ2(t *testing.T) {
	f := newFixture(t)
	// A level-1 range that is itself well formed (aligned, max = min + 15)
	// but leaves a gap after level 0's [3, 6]: keys 7 and 8 would have no level.
	lv := &f.q.levels[1]
	lv.minKey, lv.maxKey = 8, 8+lv.span
	invtest.Expect(t, f.q.Invariant(), "PQ2")
}

func TestCorruptPQ3(t *testing.T) {
	t.Run("key out of range", func(t *testing.T) {
		f := newFixture(t)
		// Key 21 maps to level 1's slot 1, where key 5 sits, so only the range
		// (level 1 ends at 19) is wrong, not the slot.
		f.rec("k5").Time = 21
		invtest.Expect(t, f.q.Invariant(), "PQ3")
	})
	t.Run("state names another level", func(t *testing.T) {
		f := newFixture(t)
		f.rec("k30").SetState(2)
		invtest.Expect(t, f.q.Invariant(), "PQ3")
	})
}

func TestCorruptPQ4(t *testing.T) {
	f := newFixture(t)
	q := f.q
	i := f.idx("k5") // level 1, slot (5>>2)&3 = 1
	q.del(1, 1, q.rec(i))
	q.put(1, 2, i, q.rec(i), 5, false) // slot 2 covers keys 8-11; counts, bits and positions stay consistent
	invtest.Expect(t, q.Invariant(), "PQ4")
}

func TestCorruptPQ5(t *testing.T) {
	// The slots are vectors, not linked lists: a record's Next is its
	// position in its slot (the "link"), and a slot's entries name records.
	t.Run("position", func(t *testing.T) {
		f := newFixture(t)
		f.rec("k13").Pos++
		invtest.Expect(t, f.q.Invariant(), "PQ5")
	})
	t.Run("front bit", func(t *testing.T) {
		f := newFixture(t)
		f.rec("k70").Pos ^= frontBit
		invtest.Expect(t, f.q.Invariant(), "PQ5")
	})
	t.Run("index beyond the pool", func(t *testing.T) {
		f := newFixture(t)
		lv := &f.q.levels[2]
		s := lv.slot(70)
		v := &lv.slots[s]
		v.back[f.rec("k70").Pos] = uint32(f.q.pool.Len() + 5)
		invtest.Expect(t, f.q.Invariant(), "PQ5")
	})
}

func TestCorruptPQ6(t *testing.T) {
	t.Run("level length", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[1].length++
		invtest.Expect(t, f.q.Invariant(), "PQ6")
	})
	t.Run("slot count", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[2].slots[f.q.levels[2].slot(30)].count++
		invtest.Expect(t, f.q.Invariant(), "PQ6")
	})
	t.Run("due count", func(t *testing.T) {
		f := newFixture(t)
		f.q.dueLen--
		invtest.Expect(t, f.q.Invariant(), "PQ6")
	})
	t.Run("queue length", func(t *testing.T) {
		f := newFixture(t)
		f.q.length++
		invtest.Expect(t, f.q.Invariant(), "PQ6")
	})
}

func TestCorruptPQ7(t *testing.T) {
	t.Run("bit set on an empty slot", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[1].occupied.set(2) // slot 2 of level 1 (keys 8-11) is empty
		invtest.Expect(t, f.q.Invariant(), "PQ7")
	})
	t.Run("bit clear on a full slot", func(t *testing.T) {
		f := newFixture(t)
		f.q.levels[2].occupied.unset(f.q.levels[2].slot(70))
		invtest.Expect(t, f.q.Invariant(), "PQ7")
	})
	t.Run("bit set on a level never used", func(t *testing.T) {
		lb, _ := levelbits.New(2, 2)
		q := New[int](lb, 0)
		if _, err := q.Add(1, 1); err != nil {
			t.Fatal(err)
		}
		if q.levels[1].slots != nil {
			t.Fatal("level 1 has slots; the test needs an unused level")
		}
		q.levels[1].occupied = newBitmap(4) // a bitmap without slots, with a bit set
		q.levels[1].occupied.set(3)
		invtest.Expect(t, q.Invariant(), "PQ7")
	})
}

func TestCorruptPQ8(t *testing.T) {
	t.Run("wrong cached min", func(t *testing.T) {
		f := newFixture(t)
		f.q.minKey, f.q.minValid = 4, true // the smallest key on the levels is 3
		invtest.Expect(t, f.q.Invariant(), "PQ8")
	})
	t.Run("cached min on empty levels", func(t *testing.T) {
		lb, _ := levelbits.New(2, 2, 2)
		q := New[int](lb, 0)
		q.minKey, q.minValid = 0, true
		invtest.Expect(t, q.Invariant(), "PQ8")
	})
}

func TestCorruptPQ9(t *testing.T) {
	t.Run("target below level 0", func(t *testing.T) {
		f := newFixture(t)
		f.q.minAllowed = 2 // level 0 starts at 3
		invtest.Expect(t, f.q.Invariant(), "PQ9")
	})
	t.Run("target above level 0", func(t *testing.T) {
		f := newFixture(t)
		f.q.minAllowed = 4 // only small mode may leave the levels behind
		invtest.Expect(t, f.q.Invariant(), "PQ9")
	})
	t.Run("small mode: target below level 0", func(t *testing.T) {
		q := newSmallFixture(t)
		q.setMin(q.minAllowed + 1) // the geometry may lag, never lead
		invtest.Expect(t, q.Invariant(), "PQ9")
	})
}

func TestCorruptPQ10(t *testing.T) {
	t.Run("due record's state", func(t *testing.T) {
		f := newFixture(t)
		f.rec("k2").SetState(2) // says level 1, but it is in the due list
		invtest.Expect(t, f.q.Invariant(), "PQ10")
	})
	t.Run("due keys out of order", func(t *testing.T) {
		f := newFixture(t)
		q := f.q
		b := q.dueBuf[q.duePos:]
		b[0], b[1] = b[1], b[0] // key 2 before key 1
		invtest.Expect(t, q.Invariant(), "PQ10")
	})
	t.Run("due key above MinAllowedKey", func(t *testing.T) {
		f := newFixture(t)
		r := f.rec("k2")
		r.SetState(pool.StateDue)
		r.Time = 4 // explicitly due, but key 4 > MinAllowedKey 3
		invtest.Expect(t, f.q.Invariant(), "PQ10")
	})
	t.Run("due position", func(t *testing.T) {
		f := newFixture(t)
		f.q.duePos = len(f.q.dueBuf) + 1
		invtest.Expect(t, f.q.Invariant(), "PQ10")
	})
}

func TestCorruptPQ11(t *testing.T) {
	t.Run("leaked record", func(t *testing.T) {
		f := newFixture(t)
		// A record the pool counts as live but the queue does not hold: the
		// pool itself stays consistent (AP1-AP9), only PQ11 sees the leak.
		f.q.pool.Alloc(4, "leaked", 1)
		invtest.Expect(t, f.q.Invariant(), "PQ11")
	})
	t.Run("record freed while held", func(t *testing.T) {
		f := newFixture(t)
		f.q.firing = append(f.q.firing, 99) // claims a running handler with no live record
		invtest.Expect(t, f.q.Invariant(), "PQ11")
	})
}

// TestCorruptPQ12 needs a queue whose levels reach keys that no time reaches:
// with shift 0 the time is the key, and with any shift a negative time gives a
// negative key, so the range check (PQ3) would fire first. With shift 57 and
// level bits [2 2 2] (6 bits, more than the 62-57 = 5 that times reach), the
// levels cover keys [0, 79] while times reach only keys [0, 31]. The record is
// refiled (del, put) in the slot of its new key so that every other check
// still holds: the one broken fact is its time, 40<<57 > MaxKey.
func TestCorruptPQ12(t *testing.T) {
	lb, _ := levelbits.New(2, 2, 2)
	const shift = 57
	q := NewTimed[int](lb, 0, shift)
	a, err := q.Add(5<<shift, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Add(1<<shift, 2); err != nil {
		t.Fatal(err)
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
	i, _ := q.pool.Lookup(a)
	r := q.rec(i)
	if r.State() != 2 {
		t.Fatalf("key 5 in state %d, want level 1", r.State())
	}
	q.del(1, q.levels[1].slot(5), r)
	r.Time = 40 << shift // key 40: level 2 [16, 79], slot 2
	q.put(2, q.levels[2].slot(40), i, r, 40, false)
	invtest.Expect(t, q.Invariant(), "PQ12")
}

// The pool's own invariants reach the queue's Invariant through PQ11's check.
func TestCorruptPoolThroughQueue(t *testing.T) {
	t.Run("AP1", func(t *testing.T) {
		f := newFixture(t)
		f.q.pool.Rec(0).SetState(1)
		invtest.Expect(t, f.q.Invariant(), "AP1")
	})
	t.Run("AP2", func(t *testing.T) {
		f := newFixture(t)
		i := f.idx("k70")
		if err := f.q.Remove(f.h["k70"]); err != nil {
			t.Fatal(err)
		}
		f.q.pool.Rec(i).SetState(3) // on the free stack, but says "level 2"
		invtest.Expect(t, f.q.Invariant(), "AP2")
	})
	t.Run("AP7", func(t *testing.T) {
		f := newFixture(t)
		if err := f.q.Remove(f.h["k30"]); err != nil {
			t.Fatal(err)
		}
		// The pool hands out k30's record, the one on its free stack, behind
		// the queue's back and in state free: the record is free, on neither
		// the stack nor the list, yet not retired. (The live count is one
		// too high as well, which AP3 would report; AP7 is checked first.)
		var zero string
		f.q.pool.Alloc(0, zero, pool.StateFree)
		invtest.Expect(t, f.q.Invariant(), "AP7")
	})
}

func TestCorruptPQ13(t *testing.T) {
	f := newFixture(t)
	q := f.q
	s := q.levels[1].slot(5)        // holds key 5 alone
	q.levels[1].slots[s].minKey = 4 // a key no element of the slot has
	invtest.Expect(t, q.Invariant(), "PQ13")
}

// TestSlotMinAfterRemove: removing the smallest key of a higher-level slot
// must not leave it as the slot's cached minimum (MinKey would then report a
// key no element has), and the walk that replaces it finds the next one.
func TestSlotMinAfterRemove(t *testing.T) {
	lb, err := levelbits.New(2, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	q := New[string](lb, 0)
	// Keys 8..11 share one level-1 slot (4 keys a slot); level 0 covers [0, 3].
	a8, _ := q.Add(8, "a")
	if _, err := q.Add(10, "b"); err != nil {
		t.Fatal(err)
	}
	if k, _ := q.MinKey(); k != 8 {
		t.Fatalf("MinKey = %d, want 8", k)
	}
	if err := q.Remove(a8); err != nil {
		t.Fatal(err)
	}
	if k, ok := q.MinKey(); !ok || k != 10 {
		t.Fatalf("after removing key 8: MinKey = %d, %v, want 10", k, ok)
	}
	if _, err := q.Add(9, "c"); err != nil { // unknown minimum stays unknown, then walks
		t.Fatal(err)
	}
	if k, _ := q.MinKey(); k != 9 {
		t.Fatalf("after adding key 9: MinKey = %d, want 9", k)
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// newSmallFixture builds a valid queue in small mode: level bits [5 2] (a
// radix heap of 4, up to 512 while its keys lie beyond level 0, which holds
// keys 0 to 31), keys 9, 5 and 7 against base 0: 5 and 7 in bucket 3, 9 in
// bucket 4.
func newSmallFixture(t *testing.T) *Queue[string] {
	t.Helper()
	lb, err := levelbits.New(5, 2)
	if err != nil {
		t.Fatal(err)
	}
	q := New[string](lb, 0)
	for _, k := range []int64{9, 5, 7} {
		if _, err := q.Add(k, "x"); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Invariant(); err != nil {
		t.Fatalf("small fixture is not valid: %v", err)
	}
	if !q.small || q.rad.n != 3 || len(q.rad.b[3].e) != 2 || len(q.rad.b[4].e) != 1 {
		t.Fatalf("small fixture: small %v, %d in the radix heap, buckets %v", q.small, q.rad.n, q.rad.b[:5])
	}
	return q
}

func TestCorruptPQ14(t *testing.T) {
	t.Run("radix heap in use outside small mode", func(t *testing.T) {
		q := newSmallFixture(t)
		q.small = false
		invtest.Expect(t, q.Invariant(), "PQ14")
	})
	t.Run("levels in use in small mode", func(t *testing.T) {
		f := newFixture(t) // elements on every level, an empty radix heap
		f.q.small, f.q.smallCap, f.q.curCap, f.q.wideCap = true, 8, 8, 8
		invtest.Expect(t, f.q.Invariant(), "PQ14")
	})
	t.Run("over its cap", func(t *testing.T) {
		q := newSmallFixture(t)
		q.smallCap, q.curCap = 2, 2 // both caps consistent; 3 elements held
		invtest.Expect(t, q.Invariant(), "PQ14")
	})
	t.Run("small mode without a small cap", func(t *testing.T) {
		q := newSmallFixture(t)
		q.smallCap = 0
		invtest.Expect(t, q.Invariant(), "PQ14")
	})
	t.Run("cap beyond the wide cap", func(t *testing.T) {
		q := newSmallFixture(t)
		q.curCap = q.wideCap + 1
		invtest.Expect(t, q.Invariant(), "PQ14")
	})
	t.Run("cap below the small cap", func(t *testing.T) {
		q := newSmallFixture(t)
		q.curCap = q.smallCap - 1
		invtest.Expect(t, q.Invariant(), "PQ14")
	})
}

// rpush appends record i, whose key is key, to bucket b, keeping the
// bucket's count, the occupancy word and the record's position (not the
// record's state, the radix heap's count or its base, which smallPut also
// sets): a fixture may put an element in a bucket that is not its key's.
func (q *Queue[T]) rpush(b int, i uint32, key int64) {
	r := &q.rad
	if b >= len(r.b) {
		r.reach(b)
	}
	bk := &r.b[b]
	q.rec(i).Pos = rpos(b, len(bk.e))
	bk.e = append(bk.e, rent{key, i})
	bk.live++
	r.occ |= 1 << (b & 63)
}

func TestCorruptPQ15(t *testing.T) {
	// move9 takes the fixture's key 9 out of bucket 4 and appends it, with
	// key key, to bucket b (counts, occupancy and the record's position
	// kept right), and returns its record index.
	move9 := func(q *Queue[string], key int64, b int) uint32 {
		e := q.rad.b[4].e[0]
		q.rad.b[4] = rbucket{}
		q.rad.occ &^= 1 << 4
		q.rpush(b, e.idx, key)
		return e.idx
	}
	t.Run("base above MinAllowedKey", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rad.last = 1 // 5, 7 and 9 keep their buckets against base 1
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("entry in the wrong bucket", func(t *testing.T) {
		q := newSmallFixture(t)
		move9(q, 9, 3)
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("key not the record's", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rad.b[3].e[1].key = 6 // key 7's entry: bucket 3 still, and 5 stays the minimum
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("record not in state 1", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rec(q.rad.b[3].e[0].idx).SetState(2)
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("record's position wrong", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rec(q.rad.b[3].e[1].idx).Pos = rpos(3, 0)
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("bad index", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rad.b[3].e[0].idx = 1000
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("bucket count wrong", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rad.b[3].live++
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("occupancy bit of an empty bucket", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rad.occ |= 1 << 1 // bucket 1 exists and is empty
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("occupancy bit of a missing bucket", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rad.occ |= 1 << 10 // the buckets end at 4
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("key above MaxAllowedKey", func(t *testing.T) {
		q := newSmallFixture(t)
		// Key 9 becomes one past MaxAllowedKey, in the record and in the
		// bucket that key belongs to: only the range is wrong.
		k := q.MaxAllowedKey() + 1
		q.rec(move9(q, k, q.rad.bucketOf(k))).Time = k
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("empty bucket keeps entries", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rad.b[4].e[0].idx = 0 // a tombstone left in place of the last element
		q.rad.b[4].live, q.rad.n = 0, q.rad.n-1
		q.rad.occ &^= 1 << 4
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("total wrong", func(t *testing.T) {
		q := newSmallFixture(t)
		q.rad.n++
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
	t.Run("key below MinAllowedKey", func(t *testing.T) {
		q := newSmallFixture(t)
		q.minAllowed = 6
		q.setMin(6) // keep the geometry (PQ2, PQ9); key 5 is now below the minimum
		invtest.Expect(t, q.Invariant(), "PQ15")
	})
}

// newVectorFixture is newFixture with grown slot vectors and a spare: six
// more elements at key 70 fill level 2's slot 0 to 7 of its 8
// entries, and eight more at key 30 grow slot 1 to 8 and then 16, which
// leaves the 8-entry vector among the spares.
func newVectorFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	q := f.q
	for range 6 {
		if _, err := q.Add(70, "more"); err != nil {
			t.Fatal(err)
		}
	}
	for range 8 {
		if _, err := q.Add(30, "more"); err != nil {
			t.Fatal(err)
		}
	}
	lv := &q.levels[2]
	if err := q.Invariant(); err != nil {
		t.Fatalf("vector fixture is not valid: %v", err)
	}
	if cap(lv.slots[0].back) != 8 || cap(lv.slots[1].back) != 16 || len(q.spare) != 1 || len(q.spare[0]) == 0 {
		t.Fatalf("vector fixture: level 2 back vectors of capacity %d and %d, spares %v",
			cap(lv.slots[0].back), cap(lv.slots[1].back), q.spare)
	}
	return f
}

func TestCorruptPQ16(t *testing.T) {
	t.Run("spare still a slot's vector", func(t *testing.T) {
		q := newVectorFixture(t).q
		q.spare = append(q.spare, [][]uint32{q.levels[2].slots[1].back[:0]})
		invtest.Expect(t, q.Invariant(), "PQ16")
	})
	t.Run("two slots share a vector", func(t *testing.T) {
		q := newVectorFixture(t).q
		q.levels[1].slots[3].front = q.levels[2].slots[0].back[:0] // an empty slot: no other check sees it
		invtest.Expect(t, q.Invariant(), "PQ16")
	})
	t.Run("spare not empty", func(t *testing.T) {
		q := newVectorFixture(t).q
		q.spare[0][0] = q.spare[0][0][:1]
		invtest.Expect(t, q.Invariant(), "PQ16")
	})
	t.Run("spare in another class", func(t *testing.T) {
		q := newVectorFixture(t).q
		q.spare = [][][]uint32{nil, q.spare[0]}
		invtest.Expect(t, q.Invariant(), "PQ16")
	})
	t.Run("capacity of no class", func(t *testing.T) {
		q := newVectorFixture(t).q
		q.levels[1].slots[3].front = make([]uint32, 0, 12)
		invtest.Expect(t, q.Invariant(), "PQ16")
	})
	t.Run("back vector of no class", func(t *testing.T) {
		q := newVectorFixture(t).q
		q.levels[1].slots[3].back = make([]uint32, 0, 4)
		invtest.Expect(t, q.Invariant(), "PQ16")
	})
}
