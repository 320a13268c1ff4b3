package queue

// Checked mode's local checks (checklocal.go): corruption tests that break
// one fact of what a call touched (an entry it wrote, its neighbour, its
// slot or bucket, a counter) and expect the local check of that call to
// name the invariant; and a soundness test: on valid queues, in every state
// random calls reach, the local checks of every entry, slot and bucket
// report nothing. They call checkLocal with the refs the call's log would
// hold (built here from the records), so they run without -tags twcheck
// too, where the log itself has no fields.

import (
	"math/rand/v2"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// entryRef returns the ref an Add or a move of a's element logs: its slot
// entry, or its bucket entry in small mode, and the slot's ref.
func entryRef[T any](t *testing.T, q *Queue[T], a pool.Handle) (entry, slot chkRef) {
	t.Helper()
	i, r := q.pool.Lookup(a)
	if r == nil {
		t.Fatalf("%v not in the queue", a)
	}
	if q.small {
		b, p, ok := q.rad.entryOf(r.Pos, i)
		if !ok {
			t.Fatalf("%v: no bucket entry", a)
		}
		return chkRef{-1, int32(b), uint32(p)}, chkRef{}
	}
	l := int(r.State()) - 1
	s := q.levels[l].slot(q.keyOf(r))
	return chkRef{int32(l), int32(s), r.Pos}, chkRef{l: int32(l), s: int32(s)}
}

// localQueue returns a valid queue with level bits [2 2 2] (no small
// mode): keys 0..3 on level 0, keys 5 and 6 in level 1's slot 1, and
// walkMax+4 elements of key 9 in level 1's slot 2 (a slot the local checks
// do not walk whole); big holds the handles of key 9's elements, in order.
func localQueue(t *testing.T) (q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) {
	t.Helper()
	q = New[int](mustLevelBits(t, 2, 2, 2), 0)
	h = map[int64]pool.Handle{}
	for _, k := range []int64{0, 1, 2, 3, 5, 6} {
		a, err := q.Add(k, int(k))
		if err != nil {
			t.Fatal(err)
		}
		h[k] = a
	}
	for j := range walkMax + 4 {
		a, err := q.Add(9, 100+j)
		if err != nil {
			t.Fatal(err)
		}
		big = append(big, a)
	}
	if q.small {
		t.Fatal("the queue is in small mode")
	}
	if err := q.Invariant(); err != nil {
		t.Fatalf("not valid: %v", err)
	}
	return q, h, big
}

func mustLevelBits(t *testing.T, bits ...int) levelbits.LevelBits {
	t.Helper()
	lb, err := levelbits.New(bits...)
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

// local runs the local checks of a call that wrote the entries of the
// handles as (the refs taken before the corruption, as the log holds them).
func local[T any](q *Queue[T], entries, slots []chkRef, buckets uint64) error {
	return q.checkLocal(entries, slots, buckets)
}

func TestLocalChecksCatchLevelCorruption(t *testing.T) {
	type tc struct {
		name    string
		corrupt func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) (entries, slots []chkRef)
		want    string
	}
	refs := func(t *testing.T, q *Queue[int], as ...pool.Handle) (entries, slots []chkRef) {
		for _, a := range as {
			e, s := entryRef(t, q, a)
			entries, slots = append(entries, e), append(slots, s)
		}
		return entries, slots
	}
	idx := func(q *Queue[int], a pool.Handle) uint32 {
		i, _ := q.pool.Lookup(a)
		return i
	}
	for _, c := range []tc{
		{"added entry's record lost its position (large slot)", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			last := big[len(big)-1]
			e, s := refs(t, q, last)
			q.rec(idx(q, last)).Pos-- // points at its neighbour's entry
			return e, s
		}, "PQ5"},
		{"added entry's neighbour in another slot's range (large slot)", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, big[len(big)-1])
			q.rec(idx(q, big[len(big)-2])).Time = 13 // level 1, but slot 3
			return e, s
		}, "PQ4"},
		{"added entry's neighbour out of its level's range (large slot)", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, big[0])
			q.rec(idx(q, big[1])).Time = 1 << 20
			return e, s
		}, "PQ3"},
		{"walked slot's count", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[5])
			q.levels[1].slots[1].count++
			return e, s
		}, "PQ6"},
		{"walked slot's bit", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[2])
			q.levels[0].occupied.unset(2)
			return e, s
		}, "PQ7"},
		{"walked slot's cached minimum", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[6])
			q.levels[1].slots[1].minKey = 6 // key 5 is there too
			return e, s
		}, "PQ13"},
		{"walked slot's back vector capacity", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[6])
			v := &q.levels[1].slots[1]
			v.back = append(make([]uint32, 0, 5), v.back...)
			return e, s
		}, "PQ16"},
		{"large slot counts more than its entries", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, big[5])
			q.levels[1].slots[2].count = uint32(walkMax + 10)
			q.levels[1].length += 6
			return e, s
		}, "PQ6"},
		{"large slot's bit", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, big[5])
			q.levels[1].occupied.unset(2)
			return e, s
		}, "PQ7"},
		{"queue's count", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[3])
			q.length++
			return e, s
		}, "PQ6"},
		{"a level's count", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[3])
			q.levels[0].length--
			return e, s
		}, "PQ6"},
		{"cached minimum", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[3])
			q.minKey, q.minValid = 1, true
			return e, s
		}, "PQ8"},
		{"geometry", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[3])
			q.levels[2].maxKey--
			return e, s
		}, "PQ1"},
		{"records in use", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) ([]chkRef, []chkRef) {
			e, s := refs(t, q, h[3])
			q.firing = append(q.firing, idx(q, h[3]))
			return e, s
		}, "PQ11"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, h, big := localQueue(t)
			entries, slots := c.corrupt(q, h, big)
			invtest.Expect(t, local(q, entries, slots, 0), c.want)
			// The whole check finds it too (perhaps first as another ID).
			if q.Invariant() == nil {
				t.Error("Invariant() finds nothing")
			}
		})
	}
}

// TestLocalChecksOnlyTouched shows what the local checks leave to the whole
// check: a corruption of a slot no call touched.
func TestLocalChecksOnlyTouched(t *testing.T) {
	q, h, _ := localQueue(t)
	e, s := entryRef(t, q, h[0])
	q.levels[1].slots[1].count++ // level 1's slot 1: keys 5 and 6, not touched
	if err := local(q, []chkRef{e}, []chkRef{s}, 0); err != nil {
		t.Fatalf("the local checks of slot 0 of level 0 report %v", err)
	}
	invtest.Expect(t, q.Invariant(), "PQ6")
}

func TestLocalChecksCatchDueCorruption(t *testing.T) {
	f := newFixture(t)
	f.rec("k2").Time = 50 // above MinAllowedKey 3
	invtest.Expect(t, local(f.q, nil, nil, 0), "PQ10")
	f = newFixture(t)
	f.q.dueLen++
	f.q.length++
	invtest.Expect(t, local(f.q, nil, nil, 0), "PQ6")
}

// smallQueue returns a valid queue in small mode with level bits [11 10]:
// keys 10, 11 and 12, and walkMax+4 elements of key 1000 in one bucket.
func smallQueue(t *testing.T) (q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) {
	t.Helper()
	q = New[int](mustLevelBits(t, 11, 10), 0)
	h = map[int64]pool.Handle{}
	for _, k := range []int64{10, 11, 12} {
		a, err := q.Add(k, int(k))
		if err != nil {
			t.Fatal(err)
		}
		h[k] = a
	}
	for j := range walkMax + 4 {
		a, err := q.Add(1000, j)
		if err != nil {
			t.Fatal(err)
		}
		big = append(big, a)
	}
	if !q.small {
		t.Fatal("the queue is not in small mode")
	}
	if err := q.Invariant(); err != nil {
		t.Fatalf("not valid: %v", err)
	}
	return q, h, big
}

func TestLocalChecksCatchSmallModeCorruption(t *testing.T) {
	type tc struct {
		name    string
		corrupt func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef
		want    string
	}
	for _, c := range []tc{
		{"added entry's key (large bucket)", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, big[len(big)-1])
			q.rad.b[e.s].e[e.pos].key = 1001
			return e
		}, "PQ15"},
		{"added entry's neighbour's record (large bucket)", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, big[len(big)-1])
			i := q.rad.b[e.s].e[e.pos-1].idx
			q.rec(i).Pos++
			return e
		}, "PQ15"},
		{"walked bucket's count", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, h[11])
			q.rad.b[e.s].live++
			q.rad.n++
			q.length++
			return e
		}, "PQ15"},
		{"large bucket's occupancy bit", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, big[0])
			q.rad.occ &^= 1 << e.s
			return e
		}, "PQ15"},
		{"large bucket counts more than its entries", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, big[0])
			q.rad.b[e.s].live = uint32(walkMax + 10)
			return e
		}, "PQ15"},
		{"small mode's count", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, h[10])
			q.rad.n--
			q.length--
			return e
		}, "PQ15"},
		{"base above MinAllowedKey", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, h[10])
			q.rad.last = 5
			return e
		}, "PQ15"},
		{"cached minimum", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, h[10])
			q.minKey, q.minValid = 11, true
			return e
		}, "PQ8"},
		{"mode", func(q *Queue[int], h map[int64]pool.Handle, big []pool.Handle) chkRef {
			e, _ := entryRef(t, q, h[10])
			q.curCap = q.wideCap + 1
			return e
		}, "PQ14"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, h, big := smallQueue(t)
			ref := c.corrupt(q, h, big)
			invtest.Expect(t, local(q, []chkRef{ref}, nil, 1<<ref.s), c.want)
			if q.Invariant() == nil {
				t.Error("Invariant() finds nothing")
			}
		})
	}
}

// TestLocalChecksSound: on valid queues, in every state random calls
// reach, the local checks of every element's entry, every occupied slot
// and every bucket report nothing, whatever the queue's size (slots and
// buckets above and below walkMax entries). A local check that reported a
// violation on a valid queue would stop a correct program in checked mode.
func TestLocalChecksSound(t *testing.T) {
	for _, bits := range [][]int{{2, 2, 2}, {3, 3, 3}, {6, 4}, {11, 10}} {
		lb := mustLevelBits(t, bits...)
		for seed := range uint64(3) {
			r := rand.New(rand.NewPCG(seed, 32))
			q := New[int](lb, 0)
			var live []pool.Handle
			for step := range 1500 {
				switch op := r.IntN(10); {
				case op < 5 || len(live) == 0:
					k := q.MinAllowedKey() + r.Int64N(min(200, q.MaxAllowedKey()-q.MinAllowedKey()+1))
					if r.IntN(4) == 0 {
						k = q.MinAllowedKey() // many of one key: large slots and buckets
					}
					a, err := q.Add(k, step)
					if err != nil {
						t.Fatal(err)
					}
					live = append(live, a)
				case op < 7:
					j := r.IntN(len(live))
					if err := q.Remove(live[j]); err != nil {
						t.Fatal(err)
					}
					live[j] = live[len(live)-1]
					live = live[:len(live)-1]
				case op < 8:
					k := q.MinAllowedKey() + r.Int64N(min(300, q.MaxAllowedKey()-q.MinAllowedKey()+1))
					if err := q.Change(live[r.IntN(len(live))], k); err != nil {
						t.Fatal(err)
					}
				default:
					gone := map[pool.Handle]bool{}
					if err := q.IncreaseMinAllowedKey(q.MinAllowedKey()+r.Int64N(40), func(e Element[int]) { gone[e.Alarm] = true }); err != nil {
						t.Fatal(err)
					}
					kept := live[:0]
					for _, a := range live {
						if !gone[a] {
							kept = append(kept, a)
						}
					}
					live = kept
				}
				if err := q.Invariant(); err != nil {
					t.Fatalf("%v seed %d step %d: %v", bits, seed, step, err)
				}
				var entries, slots []chkRef
				for _, a := range live {
					e, s := entryRef(t, q, a)
					entries = append(entries, e)
					if e.l >= 0 {
						slots = append(slots, s)
					}
				}
				if err := local(q, entries, slots, ^uint64(0)); err != nil {
					t.Fatalf("%v seed %d step %d: the local checks report %v on a valid queue", bits, seed, step, err)
				}
			}
		}
	}
}
