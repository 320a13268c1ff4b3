package queue_test

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/internal/pool"
	queue "github.com/gotimingwheel/timingwheel/internal/queue"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// movingLoad returns one step of a load that moves across the slots: each
// step adds 100 elements spread over the 64 keys of one level-2 slot (level
// bits [2 4 4]: no small mode), 128 to 191 keys ahead, and then raises
// MinAllowedKey by 64, which cascades and fires the elements of two steps
// before. So each step fills a level-2 slot that the previous step did not
// use, and the same numbers of elements pass through different level-1 and
// level-0 slots each time; the queue holds about 200.
func movingLoad(t *testing.T) (*queue.Queue[int], func()) {
	q := queue.New[int](mustLB(t, 2, 4, 4), 0)
	fired := 0
	removed := func(queue.Element[int]) { fired++ }
	step := func() {
		m := q.MinAllowedKey()
		for i := range 100 {
			if _, err := q.Add(m+128+int64(i*37%64), i); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.IncreaseMinAllowedKey(m+64, removed); err != nil {
			t.Fatal(err)
		}
	}
	return q, step
}

// A queue whose load keeps its size but moves across the slots allocates
// nothing once it has seen that load: a slot that grows takes a vector that
// another slot gave back when it emptied (PQ16). Without the recycling,
// every slot the load reaches for the first time grows its own vectors (one
// rotation of the 16 level-2 slots takes 16 steps). Steps 3 and 4 still
// allocate (the spares' stacks reach their size), so the count covers
// steps 5 to 14, exactly (runtime.MemStats; testing.AllocsPerRun would
// round an average down).
func TestMovingLoadAllocatesNothing(t *testing.T) {
	if checked.On {
		t.Skip("checked mode runs Invariant, which allocates, after every call")
	}
	q, step := movingLoad(t)
	for range 4 {
		step()
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range 10 {
		step()
	}
	runtime.ReadMemStats(&m1)
	if n := m1.Mallocs - m0.Mallocs; n != 0 {
		t.Errorf("%d allocations in 10 steps of a load the queue has held before, want 0", n)
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
	if q.Len() != 200 {
		t.Fatalf("Len %d after the steps, want 200", q.Len())
	}
}

// largeSlotsPanic is what largeSlotsRun's handlers panic with.
type largeSlotsPanic struct{}

// Random calls on queues whose slots grow vectors of far more than 32
// entries (a quarter of the keys fall in one 8-key cluster half the levels'
// span ahead), so that vectors move through the spares, against a model of
// the order in which every element must leave: by key, then by the order
// of Add or Change. Removals and Changes leave tombstones, so slots
// compact; handlers call back into the queue (Add, Remove, Change, Shrink,
// Clear, a nested IncreaseMinAllowedKey) or panic. Invariant() and Len()
// after every top-level call. Six layouts of level bits, 8 seeds each (2
// in checked mode).
func TestLargeSlotsAgainstModel(t *testing.T) {
	for _, bits := range [][]int{{2, 3, 3, 3}, {3, 4, 4}, {6, 3, 3}, {4, 2, 2, 2, 2}, {1, 5, 5}, {2, 2}} {
		lb := mustLB(t, bits...)
		seeds := uint64(8)
		if checked.On {
			seeds = 2 // Invariant after every call, handlers' calls included
		}
		for seed := range seeds {
			largeSlotsRun(t, lb, seed)
		}
	}
}

// largeSlotsRun is one run of TestLargeSlotsAgainstModel: 3000 random calls
// on a queue with level bits lb, from seed.
func largeSlotsRun(t *testing.T, lb levelbits.LevelBits, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 77))
	q := queue.New[int](lb, 0)
	type elt struct {
		key int64
		seq int
	}
	model := map[int]elt{}
	handles := map[int]pool.Handle{}
	var due []int // the global expected firing order
	seq, next := 0, 0
	span := int64(1)
	for i := range lb.Len() {
		span <<= uint(lb.At(i))
	}
	span = min(span, 1<<16)
	fail := func(f string, a ...any) {
		t.Helper()
		t.Fatalf("bits %v seed %d: "+f, append([]any{lb, seed}, a...)...)
	}
	inDue := func(v int) int { return slices.Index(due, v) }
	keyFor := func() int64 {
		lo := q.MinAllowedKey()
		var k int64
		switch r.IntN(4) {
		case 0:
			k = lo + r.Int64N(span)
		case 1: // cluster: many elements in one high slot
			k = lo + span/2 + r.Int64N(8)
		default:
			k = lo + r.Int64N(min(span, 256))
		}
		return min(k, q.MaxAllowedKey())
	}
	add := func(k int64) {
		h, err := q.Add(k, next)
		if err != nil {
			fail("Add(%d): %v", k, err)
		}
		handles[next] = h
		model[next] = elt{k, seq}
		seq++
		next++
	}
	remove := func(v int) {
		if err := q.Remove(handles[v]); err != nil {
			fail("Remove(%d): %v", v, err)
		}
		delete(model, v)
		delete(handles, v)
		if j := inDue(v); j >= 0 {
			due = slices.Delete(due, j, j+1)
		}
	}
	change := func(v int, k int64) {
		if err := q.Change(handles[v], k); err != nil {
			fail("Change(%d, %d): %v", v, k, err)
		}
		model[v] = elt{k, seq}
		seq++
		if j := inDue(v); j >= 0 {
			due = slices.Delete(due, j, j+1)
		}
	}
	notDue := func(pred func(e elt) bool) []int {
		var vs []int
		for v, e := range model {
			if pred(e) && inDue(v) < 0 {
				vs = append(vs, v)
			}
		}
		slices.SortFunc(vs, func(a, b int) int {
			if c := cmp.Compare(model[a].key, model[b].key); c != 0 {
				return c
			}
			return cmp.Compare(model[a].seq, model[b].seq)
		})
		return vs
	}
	randomLive := func() (int, bool) {
		if len(model) == 0 {
			return 0, false
		}
		n := r.IntN(len(model))
		for v := range model {
			if n == 0 {
				return v, true
			}
			n--
		}
		return 0, false
	}
	depth := 0
	var increase func(k int64)
	var handler func(e queue.Element[int])
	handler = func(e queue.Element[int]) {
		if len(due) == 0 || due[0] != e.Value {
			fail("fired %d, want head of %v", e.Value, due[:min(len(due), 5)])
		}
		due = due[1:]
		delete(model, e.Value)
		delete(handles, e.Value)
		switch op := r.IntN(40); {
		case op < 10:
			add(keyFor())
		case op < 14:
			if v, ok := randomLive(); ok {
				remove(v)
			}
		case op < 17:
			if v, ok := randomLive(); ok {
				change(v, keyFor())
			}
		case op < 19:
			q.Shrink()
		case op < 20 && depth < 2:
			depth++
			increase(q.MinAllowedKey() + r.Int64N(64))
			depth--
		case op < 21 && r.IntN(8) == 0:
			q.Clear()
			clear(model)
			clear(handles)
			due = nil
		case op < 22:
			panic(largeSlotsPanic{})
		}
	}
	increase = func(k int64) {
		k = min(k, q.MaxAllowedKey())
		if k > q.MinAllowedKey() {
			due = append(due, notDue(func(e elt) bool { return e.key < k })...)
		}
		if err := q.IncreaseMinAllowedKey(k, handler); err != nil {
			fail("IncreaseMinAllowedKey(%d): %v", k, err)
		}
	}
	protect := func(f func()) {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(largeSlotsPanic); !ok {
					panic(p)
				}
			}
		}()
		f()
	}
	for step := range 3000 {
		switch op := r.IntN(20); {
		case op < 9:
			for range 1 + r.IntN(40) {
				add(keyFor())
			}
		case op < 11:
			if v, ok := randomLive(); ok {
				remove(v)
			}
		case op < 12:
			if v, ok := randomLive(); ok {
				change(v, keyFor())
			}
		case op < 17:
			protect(func() { increase(q.MinAllowedKey() + r.Int64N(span/4+1)) })
		case op < 18:
			m := q.MinAllowedKey()
			due = append(due, notDue(func(e elt) bool { return e.key == m })...)
			protect(func() { q.RemoveAtMinKey(queue.MaxKey, handler) })
		case op < 19:
			q.Shrink()
		default:
			if r.IntN(10) == 0 {
				q.Clear()
				clear(model)
				clear(handles)
				due = nil
			}
		}
		if err := q.Invariant(); err != nil {
			fail("step %d: %v", step, err)
		}
		if q.Len() != len(model) {
			fail("step %d: Len %d, model %d", step, q.Len(), len(model))
		}
	}
}

// A queue whose record pool grows inside removal handlers, through its
// flat slice's copies and past it into segments, keeps every element's key
// and value: values hold pointers, collections run now and then, and every
// element leaves once, in key order, with the value it was added with.
func TestPoolGrowthInHandlersKeepsValues(t *testing.T) {
	if checked.On {
		t.Skip("150,000 adds with Invariant, O(capacity), after each: the pool's own tests cover its growth in checked mode")
	}
	q := queue.New[string](mustLB(t, 11, 10, 10), 0)
	val := func(id int) string { return "v" + strconv.Itoa(id) }
	keyOf := map[int]int64{}
	next := 0
	add := func(k int64) {
		if _, err := q.Add(k, val(next)); err != nil {
			t.Fatal(err)
		}
		keyOf[next] = k
		next++
	}
	for i := range 1000 {
		add(int64(i % 97))
	}
	seen := map[string]bool{}
	last := int64(-1)
	calls := 0
	removed := func(e queue.Element[string]) {
		calls++
		if seen[e.Value] || e.Key < last {
			t.Fatalf("element %q (key %d) after key %d, seen before: %v", e.Value, e.Key, last, seen[e.Value])
		}
		id, err := strconv.Atoi(strings.TrimPrefix(e.Value, "v"))
		if err != nil || keyOf[id] != e.Key {
			t.Fatalf("element of key %d has value %q (%v), added with key %d", e.Key, e.Value, err, keyOf[id])
		}
		seen[e.Value], last = true, e.Key
		if next < 150_000 {
			for range 3 { // the queue grows by two per removal
				add(q.MinAllowedKey() + int64(next%997))
			}
		}
		if calls%20_000 == 0 {
			runtime.GC()
		}
	}
	for q.Len() > 0 {
		if err := q.IncreaseMinAllowedKey(q.MinAllowedKey()+50, removed); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != next {
		t.Fatalf("%d elements left, %d added", len(seen), next)
	}
}
