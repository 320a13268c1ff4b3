package queue_test

import (
	"testing"

	queue "github.com/gotimingwheel/timingwheel/internal/queue"
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
// rotation of the 16 level-2 slots takes 16 steps; this measures steps 3 to
// 13).
func TestMovingLoadAllocatesNothing(t *testing.T) {
	q, step := movingLoad(t)
	step()
	step()
	if allocs := testing.AllocsPerRun(10, step); allocs != 0 {
		t.Errorf("%.1f allocations per step of a load the queue has held before, want 0", allocs)
	}
	if err := q.Invariant(); err != nil {
		t.Fatal(err)
	}
	if q.Len() != 200 {
		t.Fatalf("Len %d after the steps, want 200", q.Len())
	}
}
