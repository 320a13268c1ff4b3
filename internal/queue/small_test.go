package queue

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// TestSmallModeAgainstModel drives queues whose level 0 is large enough for
// small mode (small caps 2 to 128) with random calls, many at equal keys,
// so that they enter and leave small mode often (spill when full, back when
// the levels empty or at Shrink), and compares what every removing call
// removes (the exact elements, in order), MinKey, MinElt and Len with a
// reference model that removes by (key, order of Add or Change), and runs
// Invariant after every call. Half the queues key times by time >> 1 or >> 2,
// so that RemoveAtMinKey's bound on the time splits a key.
func TestSmallModeAgainstModel(t *testing.T) {
	for _, bits := range [][]int{{4, 2, 2}, {5, 1, 3}, {6, 3, 3}, {8, 4}, {11, 10, 10}, {11, 10, 10, 10, 10}} {
		lb, err := levelbits.New(bits...)
		if err != nil {
			t.Fatal(err)
		}
		spills, backs := 0, 0
		for seed := range uint64(30) {
			s, b := runSmallModel(t, lb, seed)
			spills, backs = spills+s, backs+b
		}
		// The runs must cross the cap both ways, or they test one mode only.
		if spills == 0 || backs == 0 {
			t.Errorf("level bits %v: %d spills, %d returns to small mode; want some of each", lb, spills, backs)
		}
		t.Logf("level bits %v (small cap %d): %d spills, %d returns to small mode", lb, smallCapFor(uint(lb.At(0))), spills, backs)
	}
}

type modelElt struct {
	key   int64
	time  int64
	seq   int
	value int
}

func runSmallModel(t *testing.T, lb levelbits.LevelBits, seed uint64) (spills, backs int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(lb.Len())))
	shift := uint(seed % 3)
	q := NewTimed[int](lb, 0, shift)
	capSmall := smallCapFor(uint(lb.At(0)))
	timeFor := func(k int64) int64 { return k<<shift + r.Int64N(1<<shift) }
	sum := 0
	for i := range lb.Len() {
		sum += lb.At(i)
	}
	var model []modelElt
	handles := map[int]pool.Handle{}
	seq, next := 0, 0
	// The model's removal order: by key, then by the order of Add or Change.
	sortModel := func() {
		slices.SortFunc(model, func(a, b modelElt) int {
			if c := cmp.Compare(a.key, b.key); c != 0 {
				return c
			}
			return cmp.Compare(a.seq, b.seq)
		})
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("level bits %v seed %d: "+format, append([]any{lb, seed}, args...)...)
	}
	// keyFor draws a key near MinAllowedKey, often equal to another.
	keyFor := func() int64 {
		lo := q.MinAllowedKey()
		span := int64(1) << uint(r.IntN(sum+1))
		k := lo + r.Int64N(min(span, 64))
		switch r.IntN(16) {
		case 0: // anywhere the level bits reach: the high buckets
			k = lo + r.Int64N(span)
		case 1: // just below and above a power of two away
			if sum > 33 {
				k = lo + 1<<32 - 32 + r.Int64N(64)
			}
		}
		if len(model) > 0 && r.IntN(3) == 0 {
			k = model[r.IntN(len(model))].key
		}
		return min(k, q.MaxAllowedKey())
	}
	removeModel := func(v int) {
		for j, e := range model {
			if e.value == v {
				model = slices.Delete(model, j, j+1)
				delete(handles, v)
				return
			}
		}
		fail("model has no value %d", v)
	}
	// expectFired checks that got is want, the values the model says the
	// call removes, in order, and drops them from the model.
	expectFired := func(call string, got, want []int) {
		t.Helper()
		if !slices.Equal(got, want) {
			sortModel()
			fail("%s removed %v, want %v; model's order starts %v", call, got, want, model[:min(len(model), len(want)+2)])
		}
		for _, v := range got {
			removeModel(v)
		}
	}
	for step := range 400 {
		wasSmall := q.small
		add := func() { // one Add at a drawn key, mirrored in the model
			k := keyFor()
			tm := timeFor(k)
			h, err := q.Add(tm, next)
			if err != nil {
				fail("Add(%d): %v", tm, err)
			}
			handles[next] = h
			model = append(model, modelElt{k, tm, seq, next})
			seq++
			next++
		}
		var got []int
		collect := func(e Element[int]) { got = append(got, e.Value) }
		switch op := r.IntN(20); {
		case op < 8 || len(model) == 0: // Add, biased so the load crosses the cap
			add()
		case op < 11: // Remove
			e := model[r.IntN(len(model))]
			if err := q.Remove(handles[e.value]); err != nil {
				fail("Remove: %v", err)
			}
			removeModel(e.value)
		case op < 13: // Change: goes after every other element of its new key
			j := r.IntN(len(model))
			k := keyFor()
			tm := timeFor(k)
			if err := q.Change(handles[model[j].value], tm); err != nil {
				fail("Change(%d): %v", tm, err)
			}
			model[j].key, model[j].time, model[j].seq = k, tm, seq
			seq++
		case op < 16: // IncreaseMinAllowedKey
			k := q.MinAllowedKey() + r.Int64N(8)
			if r.IntN(4) == 0 {
				k += 64 // everything keyFor drew near MinAllowedKey
			}
			if sum > 33 && r.IntN(6) == 0 {
				k += 1 << 31 // half way to the far keys
			}
			var want []int
			sortModel()
			for _, e := range model {
				if e.key < k {
					want = append(want, e.value)
				}
			}
			if err := q.IncreaseMinAllowedKey(k, collect); err != nil {
				fail("IncreaseMinAllowedKey(%d): %v", k, err)
			}
			expectFired("IncreaseMinAllowedKey", got, want)
		case op < 17: // CollectTo with a limit, then FireDue
			// Whole keys below k, in order, until at least limit are taken.
			k, limit := q.MinAllowedKey()+r.Int64N(16), 1+r.IntN(3)
			var want []int
			sortModel()
			for j := 0; j < len(model) && model[j].key < k && len(want) < limit; {
				for key := model[j].key; j < len(model) && model[j].key == key; j++ {
					want = append(want, model[j].value)
				}
			}
			q.CollectTo(k, limit)
			if n := q.FireDue(collect); n != len(got) {
				fail("FireDue removed %v but returned %d", got, n)
			}
			expectFired("CollectTo+FireDue", got, want)
		case op < 18: // RemoveAtMinKey: key MinAllowedKey, time up to a bound inside it
			m := q.MinAllowedKey()
			maxTime := m<<shift - 1 + r.Int64N(1<<shift+1)
			step := len(model) > 0 && r.IntN(2) == 0
			if step { // Step, from the start of MinAllowedKey: the model's smallest time
				sortModel()
				m, maxTime = model[0].key, model[0].time
				for _, e := range model {
					if e.key == m {
						maxTime = min(maxTime, e.time)
					}
				}
			}
			var want []int
			sortModel()
			for _, e := range model {
				if e.key == m && e.time <= maxTime {
					want = append(want, e.value)
				}
			}
			if step {
				now := q.MinAllowedKey() << shift
				q.Step(&now, collect)
				if now != maxTime || q.MinAllowedKey() != m {
					fail("Step moved to %d, MinAllowedKey %d; want %d, %d", now, q.MinAllowedKey(), maxTime, m)
				}
				expectFired("Step", got, want)
				break
			}
			q.RemoveAtMinKey(maxTime, collect)
			expectFired(fmt.Sprintf("RemoveAtMinKey(%d)", maxTime), got, want)
		case op < 19:
			q.Shrink()
		default:
			if r.IntN(4) == 0 {
				q.Clear()
				model = model[:0]
				clear(handles)
				break
			}
			for range 1 + r.IntN(capSmall+1) { // a burst of adds
				add()
			}
		}
		if wasSmall && !q.small {
			spills++
		}
		if !wasSmall && q.small {
			backs++
		}
		if err := q.Invariant(); err != nil {
			fail("step %d: %v", step, err)
		}
		if q.Len() != len(model) {
			fail("step %d: Len %d, model %d", step, q.Len(), len(model))
		}
		sortModel()
		k, ok := q.MinKey()
		if ok != (len(model) > 0) || ok && k != model[0].key {
			fail("step %d: MinKey %d %v, model %v", step, k, ok, model[:min(len(model), 1)])
		}
		if ok {
			h, _ := q.MinElt()
			if e, _ := q.Lookup(h); e.Value != model[0].value {
				fail("step %d: MinElt's value %d, model's first %d", step, e.Value, model[0].value)
			}
			lo, hi := model[0].time, model[0].time
			for _, e := range model {
				if e.key == model[0].key {
					lo, hi = min(lo, e.time), max(hi, e.time)
				}
			}
			// Not at every step: the calls after MinTime and MinTimes take
			// from the step order they build, and without it they walk.
			switch due := r.IntN(2) == 0; r.IntN(4) {
			case 0:
				if glo, ghi, _ := q.MinTimes(due); glo != lo || ghi != hi {
					fail("step %d: MinTimes %d, %d; model %d, %d", step, glo, ghi, lo, hi)
				}
			case 1:
				if glo, _ := q.MinTime(due); glo != lo {
					fail("step %d: MinTime %d; model %d", step, glo, lo)
				}
			}
		}
	}
	return spills, backs
}

// TestSmallModeGrowsWhileWide checks the rule that sizes small mode at the
// default level bits: it holds 128 elements whatever their keys, grows past
// that (doubling, clamped at wideCap) while more than half the keys lie
// beyond level 0's range, and spills otherwise; every element still leaves in
// (key, insertion) order.
func TestSmallModeGrowsWhileWide(t *testing.T) {
	lb, err := levelbits.New(11, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("narrow keys spill at the small cap", func(t *testing.T) {
		q := New[int](lb, 0)
		for v := range smallMax + 1 {
			if _, err := q.Add(int64(v%2000), v); err != nil { // level 0 holds keys 0 to 2047
				t.Fatal(err)
			}
		}
		if q.small {
			t.Fatalf("small mode holds %d narrow keys, cap %d; want a spill at %d", q.rad.n, q.curCap, smallMax)
		}
	})
	t.Run("wide keys grow to the wide cap, then spill", func(t *testing.T) {
		q := New[int](lb, 0)
		q.wideCap = 300 // not a power-of-two multiple of 128: the last doubling is clamped
		r := rand.New(rand.NewPCG(3, 4))
		var keys []int64
		for v := range 301 {
			k := 2048 + r.Int64N(1<<20) // beyond level 0
			if v%7 == 0 && v > 0 {
				k = keys[r.IntN(len(keys))] // equal keys, to check their order
			}
			keys = append(keys, k)
			if _, err := q.Add(k, v); err != nil {
				t.Fatal(err)
			}
			if err := q.Invariant(); err != nil {
				t.Fatalf("after %d adds: %v", v+1, err)
			}
			if want := v < 300; q.small != want {
				t.Fatalf("after %d adds: small %v (cap %d), want %v", v+1, q.small, q.curCap, want)
			}
		}
		want := make([]int, len(keys))
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
		var got []int
		if err := q.IncreaseMinAllowedKey(1<<21, func(e Element[int]) { got = append(got, e.Value) }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("removed %v, want %v", got, want)
		}
	})
	t.Run("the cap returns to the small cap when small mode empties", func(t *testing.T) {
		q := New[int](lb, 0)
		for v := range 1000 { // beyond level 0: the cap grows to 1024
			if _, err := q.Add(2048+int64(v)*97, v); err != nil {
				t.Fatal(err)
			}
		}
		if !q.small || q.curCap < 1000 {
			t.Fatalf("after 1000 wide adds: small %v, cap %d", q.small, q.curCap)
		}
		if err := q.IncreaseMinAllowedKey(q.MaxAllowedKey(), nil); err != nil || q.Len() != 0 {
			t.Fatalf("drain: %v, %d left", err, q.Len())
		}
		base := q.MinAllowedKey()
		for v := range smallMax + 1 { // within level 0 from the new minimum
			if _, err := q.Add(base+int64(v%2000), v); err != nil {
				t.Fatal(err)
			}
			if err := q.Invariant(); err != nil {
				t.Fatal(err)
			}
		}
		if q.small {
			t.Fatalf("small mode holds %d narrow keys, cap %d (small cap %d); want a spill at %d", q.rad.n, q.curCap, q.smallCap, smallMax)
		}
	})
	t.Run("the first add after the levels empty returns to small mode", func(t *testing.T) {
		q := New[int](lb, 0)
		for round := range 3 {
			base := q.MinAllowedKey()
			for v := range smallMax + 1 { // within level 0: a spill at the small cap
				if _, err := q.Add(base+int64(v%2000), v); err != nil {
					t.Fatal(err)
				}
			}
			if q.small {
				t.Fatalf("round %d: small mode holds %d narrow keys; want them on the levels", round, q.rad.n)
			}
			if err := q.IncreaseMinAllowedKey(base+2000, nil); err != nil || q.Len() != 0 {
				t.Fatalf("round %d: drain: %v, %d left", round, err, q.Len())
			}
			// Keys within level 0 and beyond it: either way the radix heap
			// takes an Add to an empty queue.
			if _, err := q.Add(q.MinAllowedKey()+int64(round)*5000, -1); err != nil {
				t.Fatal(err)
			}
			if !q.small || q.rad.n != 1 || q.curCap != q.smallCap {
				t.Fatalf("round %d: after an Add to the emptied levels: small %v with %d, cap %d; want small mode with 1, cap %d",
					round, q.small, q.rad.n, q.curCap, q.smallCap)
			}
			if err := q.Invariant(); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if err := q.IncreaseMinAllowedKey(q.MinAllowedKey()+20000, nil); err != nil || q.Len() != 0 {
				t.Fatalf("round %d: second drain: %v, %d left", round, err, q.Len())
			}
		}
	})
}

// reachOf is the last key levels of the given bits cover when level 0
// starts at lo, worked out from the layout's definition (docs/design.md):
// level 0 covers [lo, lo + 2^b_0 - 1]; level l covers the 2^(s_l + b_l)
// keys from the first multiple of 2^s_l after level l-1's last key, where
// s_l is the sum of the bits below it; every bound is capped at MaxKey.
func reachOf(bits []int, lo int64) int64 {
	hi, s := int64(0), 0
	for l, b := range bits {
		if l > 0 {
			if hi == MaxKey {
				return MaxKey
			}
			lo = (hi + 1) >> s << s
		}
		if b+s >= 62 || lo > MaxKey-(int64(1)<<(b+s)-1) {
			return MaxKey
		}
		hi = lo + int64(1)<<(b+s) - 1
		s += b
	}
	return hi
}

// TestSmallModeGeometryLags checks that the levels' geometry, which small
// mode brings up only when it is read, answers as if it had moved at every
// advance: MaxAllowedKey, what Add accepts at and past it, and a spill at the
// wide cap (the path on which makeRoom does not bring it up first) put the
// elements where the current geometry says, in order.
func TestSmallModeGeometryLags(t *testing.T) {
	bits := []int{5, 3, 3} // level 0: 32 keys; the levels reach key 2303 from 0
	lb, err := levelbits.New(bits...)
	if err != nil {
		t.Fatal(err)
	}
	// From 224 on, level 2 moves (level 1 then starts at 256 or later), so
	// the reach the levels have lags the true one too.
	for _, to := range []int64{1, 230, 1000} {
		q := New[int](lb, 0)
		q.wideCap = 16
		r := rand.New(rand.NewPCG(uint64(to), 1))
		var keys []int64
		var vals []int
		add := func(k int64, v int) {
			t.Helper()
			if _, err := q.Add(k, v); err != nil {
				t.Fatalf("to %d: Add(%d): %v", to, k, err)
			}
			keys, vals = append(keys, k), append(vals, v)
		}
		// Fill small mode to the wide cap with keys beyond level 0 before
		// and after the advance, then advance: the geometry lags.
		for v := range 16 {
			add(1100+r.Int64N(1200), v)
		}
		if err := q.IncreaseMinAllowedKey(to, nil); err != nil {
			t.Fatal(err)
		}
		if !q.small || q.curCap != q.wideCap || q.levels[0].minKey >= to {
			t.Fatalf("to %d: small %v, cap %d of %d, level 0 at %d: the test needs a full radix heap and a lagging geometry",
				to, q.small, q.curCap, q.wideCap, q.levels[0].minKey)
		}
		if err := q.Invariant(); err != nil {
			t.Fatalf("to %d: %v", to, err)
		}
		maxKey := reachOf(bits, to)
		if to >= 224 && q.reach >= maxKey {
			t.Fatalf("to %d: the levels reach %d, the true reach is %d: the test needs them to lag", to, q.reach, maxKey)
		}
		if got := q.MaxAllowedKey(); got != maxKey {
			t.Fatalf("to %d: MaxAllowedKey %d, want %d", to, got, maxKey)
		}
		if _, err := q.Add(maxKey+1, -1); !errors.Is(err, ErrKeyOutOfRange) {
			t.Fatalf("to %d: Add(MaxAllowedKey+1) = %v, want ErrKeyOutOfRange", to, err)
		}
		// The radix heap is full at the wide cap: this Add spills.
		add(maxKey, 16)
		if q.small {
			t.Fatalf("to %d: still in small mode after %d adds at the wide cap %d", to, len(keys), q.wideCap)
		}
		if err := q.Invariant(); err != nil {
			t.Fatalf("to %d: after the spill: %v", to, err)
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
		var got, want []int
		for _, i := range order {
			want = append(want, vals[i])
		}
		if err := q.IncreaseMinAllowedKey(maxKey+1, func(e Element[int]) { got = append(got, e.Value) }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("to %d: removed %v, want %v", to, got, want)
		}
	}
}
