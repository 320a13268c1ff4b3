//go:build twcheck

package queue

import (
	"fmt"
	"strings"
	"testing"
)

// expectPanic runs f and returns the message it panics with, failing the
// test if it does not panic or its message lacks one of want.
func expectPanic(t *testing.T, f func(), want ...string) string {
	t.Helper()
	var msg string
	func() {
		defer func() { msg = fmt.Sprint(recover()) }()
		f()
	}()
	if msg == "<nil>" {
		t.Fatalf("no panic, want one naming %q", want)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("panic %q, want it to name %q", msg, w)
		}
	}
	return msg
}

// In checked mode a call's local checks catch a corruption of what the
// call touches, at that call, and the panic names the call, its argument
// and the invariant.
func TestCheckedCallCatchesWhatItTouches(t *testing.T) {
	q, _, _ := localQueue(t)
	q.levels[0].slots[3].count += 2 // key 3's slot; the next Add of key 3 walks it
	expectPanic(t, func() { q.Add(3, 0) }, "priorityqueue.Add[3]", "PQ6")

	q, h, _ := localQueue(t)
	q.levels[1].occupied.unset(1) // keys 5 and 6; Remove of key 5 touches the slot
	expectPanic(t, func() { q.Remove(h[5]) }, "priorityqueue.Remove", "PQ7")

	q, _, big := localQueue(t)
	i, _ := q.pool.Lookup(big[len(big)-1])
	q.rec(i).Pos-- // the last entry of key 9's large slot; the next Add puts its neighbour
	expectPanic(t, func() { q.Add(9, 0) }, "priorityqueue.Add[9]", "PQ5")
}

// A corruption no call touches is found by the whole check, which runs
// within CheckCost() calls.
func TestCheckedWholeCheckOnSchedule(t *testing.T) {
	q, _, _ := localQueue(t)
	q.levels[1].slots[1].count++ // keys 5 and 6: the calls below touch only level 0
	budget := q.CheckCost() + 1
	calls := 0
	msg := expectPanic(t, func() {
		for calls < 2*budget {
			calls++
			a, _ := q.Add(0, 0)
			calls++
			q.Remove(a)
		}
	}, "PQ6")
	if calls > budget {
		t.Fatalf("the whole check ran after %d calls, want at most %d: %s", calls, budget, msg)
	}
}
