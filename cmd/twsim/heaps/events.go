package heaps

import "container/heap"

// EventHeap is a discrete-event simulation's list of pending events written
// the way a Go author writes one by hand, the baseline of the simulation
// workloads (MM1, MM10, RPC; it has the methods of cmd/twsim/workload's
// Sim): container/heap over pointers to events, each event's position kept
// up to date in Swap so that it can be cancelled with heap.Remove. Events
// run in time order and, at equal times, in the order they were scheduled
// (FIFO, the order the wheel's Step and simclock keep), each at its exact
// time in ns: there is no precision.
type EventHeap struct {
	h   events
	seq uint64 // events scheduled so far: the FIFO tie-break
	now int64  // the time of the event running, or of the last one run
	run func(now int64, code int32)
}

// Event is a pending event of an EventHeap: its time, what it does (a code
// of the simulation's choosing), and its place in the heap.
type Event struct {
	At    int64 // ns
	Code  int32
	seq   uint64
	index int // position in the heap; -1 once run or cancelled
}

type events []*Event

func (h events) Len() int { return len(h) }
func (h events) Less(i, j int) bool {
	return h[i].At < h[j].At || h[i].At == h[j].At && h[i].seq < h[j].seq
}
func (h events) Swap(i, j int) { h[i], h[j] = h[j], h[i]; h[i].index = i; h[j].index = j }
func (h *events) Push(x any)   { e := x.(*Event); e.index = len(*h); *h = append(*h, e) }
func (h *events) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil // no stale pointer keeps the event alive
	*h = old[:len(old)-1]
	e.index = -1
	return e
}

// NewEventHeap returns an empty event list at time 0 that runs each event
// by calling run with its time and code.
func NewEventHeap(run func(now int64, code int32)) *EventHeap { return &EventHeap{run: run} }

// Schedule schedules event code to run d ns (d >= 0) after the time of the
// event running (0 before the first).
func (q *EventHeap) Schedule(d int64, code int32) *Event {
	q.seq++
	e := &Event{At: q.now + d, Code: code, seq: q.seq}
	heap.Push(&q.h, e)
	return e
}

// Cancel removes a pending event; it must not have run or been cancelled.
func (q *EventHeap) Cancel(e *Event) { heap.Remove(&q.h, e.index) }

// Run runs, in order, every event due at or before end (ns), including those
// the events it runs schedule.
func (q *EventHeap) Run(end int64) {
	for len(q.h) > 0 && q.h[0].At <= end {
		e := heap.Pop(&q.h).(*Event)
		q.now = e.At
		q.run(e.At, e.Code)
	}
}

// Len returns the number of pending events.
func (q *EventHeap) Len() int { return len(q.h) }
