package pool_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/gotimingwheel/timingwheel/internal/pool"
)

// TestPoolAgainstModel drives a pool, flat or in segments, with random
// Alloc, Free, Reset and Shrink calls. The model is the set of live handles with their values; every
// handle ever issued and since freed (or dropped by Reset) must be rejected,
// every live one must find its record, and Invariant must hold throughout.
func TestPoolAgainstModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// A pool made with a capacity above a segment starts in segment
		// mode, and a Shrink takes it back to flat mode.
		p := pool.NewPool[int](rapid.SampledFrom([]int{0, 1, 2, 4, pool.SegSize + 2}).Draw(t, "cap"))
		live := map[pool.Handle]int{}
		var order []pool.Handle // live handles, for drawing one
		var stale []pool.Handle
		next := 0
		other := pool.NewPool[int](0)

		drop := func(i int) {
			stale = append(stale, order[i])
			delete(live, order[i])
			order = append(order[:i], order[i+1:]...)
		}
		t.Repeat(map[string]func(*rapid.T){
			"Alloc": func(t *rapid.T) {
				next++
				h, r := p.Alloc(int64(next), next, 1)
				if r != p.Rec(pool.Index(h)) || r.Value != next || p.Handle(pool.Index(h)) != h {
					t.Fatalf("Alloc returned %v and a record not its own, or holding %d (want %d)", h, r.Value, next)
				}
				if pool.Owner(h) != p.Owner() || h.IsNull() {
					t.Fatalf("handle %v from pool %d", h, p.Owner())
				}
				if _, dup := live[h]; dup {
					t.Fatalf("handle %v issued twice", h)
				}
				live[h] = next
				order = append(order, h)
			},
			"Free": func(t *rapid.T) {
				if len(order) == 0 {
					t.Skip("nothing live")
				}
				k := rapid.IntRange(0, len(order)-1).Draw(t, "k")
				i, r := p.Lookup(order[k])
				if r == nil {
					t.Fatalf("live %v not found", order[k])
				}
				p.Free(i, r)
				drop(k)
			},
			"Reset": func(t *rapid.T) {
				if rapid.IntRange(0, 4).Draw(t, "rare") != 0 {
					return
				}
				p.Reset()
				for len(order) > 0 {
					drop(0)
				}
			},
			"Age": func(t *rapid.T) {
				// As if the free stack's top had been reused almost 2^25
				// times: the next Allocs and Frees reach the last
				// generation, where the record must retire.
				if !pool.AgeFreeHead(p, uint32(rapid.IntRange(0, 2).Draw(t, "k"))) {
					t.Skip("no free record")
				}
			},
			"Shrink": func(t *rapid.T) {
				p.Shrink(func(from, to uint32) {
					if from <= to {
						t.Fatalf("Shrink moved %d up to %d", from, to)
					}
				})
				// The records that stay: the live and retired ones, and all
				// up to the last worn record (AP8).
				if want := max(p.Live()+p.Retired(), pool.HighestWorn(p)); p.Len() != want {
					t.Fatalf("after Shrink: %d records for %d live, %d retired, last worn at %d",
						p.Len(), p.Live(), p.Retired(), pool.HighestWorn(p))
				}
			},
			"": func(t *rapid.T) {
				if err := p.Invariant(); err != nil {
					t.Fatal(err)
				}
				if p.Live() != len(live) {
					t.Fatalf("Live %d, model %d", p.Live(), len(live))
				}
				for h, v := range live {
					i, r := p.Lookup(h)
					if r == nil || r != p.Rec(i) || r.Value != v {
						t.Fatalf("live %v: found %v at %d, want value %d there", h, r, i, v)
					}
					if p.Handle(i) != h {
						t.Fatalf("record %d has handle %v, was issued %v", i, p.Handle(i), h)
					}
					if _, r := other.Lookup(h); r != nil {
						t.Fatalf("another pool accepts %v", h)
					}
				}
				for _, h := range stale {
					if _, r := p.Lookup(h); r != nil {
						t.Fatalf("stale %v accepted", h)
					}
				}
				if _, r := p.Lookup(pool.Handle{}); r != nil {
					t.Fatal("null alarm accepted")
				}
			},
		})
	})
}
