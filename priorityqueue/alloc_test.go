package priorityqueue_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

// TestAddAllocFreeInUsedSlots: adds and removes in slots that have held as
// many elements before allocate nothing.
func TestAddAllocFreeInUsedSlots(t *testing.T) {
	skipIfChecked(t)
	q := priorityqueue.New[int](levelbits.Default(), 0)
	keys := []int64{0, 1, 2047, 2048, 5000, 1 << 20, 3 << 21}
	for _, k := range keys { // grow the pool and the slots once
		mustOK(t, q.Remove(mustAdd(t, q, k, 0)))
	}
	allocs := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			a, _ := q.Add(k, 0)
			_ = q.Remove(a)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}

func skipIfChecked(t *testing.T) {
	if checked.On {
		t.Skip("checked mode runs Invariant after every call, which allocates")
	}
}

// TestClearRefillAllocFree: a queue cleared and filled again with as many
// elements per slot allocates nothing, also when a slot holds more than it
// keeps when it empties (its large vectors wait among the spares).
func TestClearRefillAllocFree(t *testing.T) {
	skipIfChecked(t)
	q := priorityqueue.New[int](levelbits.Default(), 0)
	// Two keys on level 0 and one above: past 128 elements small mode
	// spills to the levels, 100 elements per slot.
	keys := []int64{1, 2, 5000}
	fill := func() {
		for k := range 300 {
			if _, err := q.Add(keys[k%len(keys)], k); err != nil {
				t.Fatal(err)
			}
		}
	}
	fill()
	q.Clear()
	allocs := testing.AllocsPerRun(50, func() {
		fill()
		q.Clear()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per fill and Clear", allocs)
	}
}
