package heaps

import "fmt"

// entry is one alarm of Heap4, stored inline as the Go runtime keeps timers.
type entry struct {
	key, seq, at int64
	id           uint32
}

// Handle4 is a Heap4 handle: a slot in the position table.
type Handle4 uint32

// Heap4 is a 4-ary heap with keys stored inline and a side table from handle
// to heap position for O(log n) removal.
type Heap4 struct {
	a     []entry
	pos   []int32  // handle -> position in a, -1 when free
	free  []uint32 // free handles
	b     uint
	seq   int64
	clock int64
}

// NewHeap4 returns an empty heap for precision 2^b ns.
func NewHeap4(b uint) *Heap4 { return &Heap4{b: b} }

// NewHeap4Cap returns an empty heap for precision 2^b ns with room for n
// alarms, so that it allocates nothing until it holds more.
func NewHeap4Cap(b uint, n int) *Heap4 {
	return &Heap4{b: b, a: make([]entry, 0, n), pos: make([]int32, 0, n)}
}

func less(x, y *entry) bool { return x.key < y.key || x.key == y.key && x.seq < y.seq }

func (h *Heap4) set(i int, e entry) { h.a[i] = e; h.pos[e.id] = int32(i) }

func (h *Heap4) up(i int) {
	e := h.a[i]
	for i > 0 {
		p := (i - 1) / 4
		if !less(&e, &h.a[p]) {
			break
		}
		h.set(i, h.a[p])
		i = p
	}
	h.set(i, e)
}

func (h *Heap4) down(i int) {
	n := len(h.a)
	e := h.a[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if less(&h.a[k], &h.a[m]) {
				m = k
			}
		}
		if !less(&h.a[m], &e) {
			break
		}
		h.set(i, h.a[m])
		i = m
	}
	h.set(i, e)
}

// Add adds an alarm at time at.
func (h *Heap4) Add(at int64) Handle4 {
	var id uint32
	if n := len(h.free); n > 0 {
		id = h.free[n-1]
		h.free = h.free[:n-1]
	} else {
		id = uint32(len(h.pos))
		h.pos = append(h.pos, -1)
	}
	h.seq++
	h.a = append(h.a, entry{key: at >> h.b, seq: h.seq, at: at, id: id})
	h.up(len(h.a) - 1)
	return Handle4(id)
}

func (h *Heap4) removeAt(i int) entry {
	e := h.a[i]
	n := len(h.a) - 1
	if i != n {
		h.set(i, h.a[n])
	}
	h.a = h.a[:n]
	if i < n {
		h.down(i)
		h.up(i)
	}
	h.pos[e.id] = -1
	h.free = append(h.free, e.id)
	return e
}

// Remove removes a live alarm.
func (h *Heap4) Remove(x Handle4) { h.removeAt(int(h.pos[x])) }

// NextAlarmFiresAt returns the start of the interval after the earliest alarm's.
func (h *Heap4) NextAlarmFiresAt() (int64, bool) {
	if len(h.a) == 0 {
		return 0, false
	}
	return (h.a[0].key + 1) << h.b, true
}

// AdvanceClock fires every alarm with key < to >> b, in order.
func (h *Heap4) AdvanceClock(to int64, fired func(int64)) {
	if to > h.clock {
		h.clock = to
	}
	k := h.clock >> h.b
	for len(h.a) > 0 && h.a[0].key < k {
		fired(h.removeAt(0).at)
	}
}

// Len returns the number of alarms.
func (h *Heap4) Len() int { return len(h.a) }

// Check verifies the heap order and the position table.
func (h *Heap4) Check() error {
	for i := range h.a {
		if h.pos[h.a[i].id] != int32(i) {
			return fmt.Errorf("heap4: entry %d: position table says %d", i, h.pos[h.a[i].id])
		}
		if i > 0 && less(&h.a[i], &h.a[(i-1)/4]) {
			return fmt.Errorf("heap4: entry %d is less than its parent", i)
		}
	}
	return nil
}
