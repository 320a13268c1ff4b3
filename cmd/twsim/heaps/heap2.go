// Package heaps holds the two baselines the workloads compare the wheel with,
// both with the wheel's semantics: alarms keyed by interval number (at >> b),
// fired in (interval, insertion) order, removable by handle; Clock, the
// container/heap clock the clock workloads compare simclock with; and
// EventHeap, the container/heap event list the simulation workloads compare
// the wheel's Step loop and simclock with. It serves twsim and the bench
// module; it is no part of the library's API.
package heaps

import (
	"container/heap"
	"fmt"
)

// Item is one alarm of Heap2; its pointer is the handle.
type Item struct {
	key, seq, at int64
	index        int // position in the heap, -1 when out
}

type items []*Item

func (h items) Len() int { return len(h) }
func (h items) Less(i, j int) bool {
	return h[i].key < h[j].key || h[i].key == h[j].key && h[i].seq < h[j].seq
}
func (h items) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].index = i; h[j].index = j }
func (h *items) Push(x any)   { it := x.(*Item); it.index = len(*h); *h = append(*h, it) }
func (h *items) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	it.index = -1
	return it
}

// Heap2 is the container/heap baseline: a binary heap of *Item with the
// index-in-element idiom for O(log n) removal.
type Heap2 struct {
	h     items
	b     uint
	seq   int64
	clock int64
}

// NewHeap2 returns an empty heap for precision 2^b ns.
func NewHeap2(b uint) *Heap2 { return &Heap2{b: b} }

// Add adds an alarm at time at.
func (x *Heap2) Add(at int64) *Item {
	x.seq++
	it := &Item{key: at >> x.b, seq: x.seq, at: at}
	heap.Push(&x.h, it)
	return it
}

// Remove removes a live alarm.
func (x *Heap2) Remove(it *Item) { heap.Remove(&x.h, it.index) }

// NextAlarmFiresAt returns the start of the interval after the earliest alarm's.
func (x *Heap2) NextAlarmFiresAt() (int64, bool) {
	if len(x.h) == 0 {
		return 0, false
	}
	return (x.h[0].key + 1) << x.b, true
}

// AdvanceClock fires every alarm with key < to >> b, in order.
func (x *Heap2) AdvanceClock(to int64, fired func(int64)) {
	if to > x.clock {
		x.clock = to
	}
	k := x.clock >> x.b
	for len(x.h) > 0 && x.h[0].key < k {
		it := heap.Pop(&x.h).(*Item)
		fired(it.at)
	}
}

// Len returns the number of alarms.
func (x *Heap2) Len() int { return len(x.h) }

// Check verifies the heap order and the index fields.
func (x *Heap2) Check() error {
	for i, it := range x.h {
		if it.index != i {
			return fmt.Errorf("heap2: item at %d has index %d", i, it.index)
		}
		if i > 0 && x.h.Less(i, (i-1)/2) {
			return fmt.Errorf("heap2: item %d is less than its parent", i)
		}
	}
	return nil
}
