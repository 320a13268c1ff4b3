package priorityqueue_test

import (
	"fmt"

	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

// IncreaseMinAllowedKey removes every element below the new minimum in key
// order and, within a key, in the order of the last Add or Change. The
// handler may call back into the queue: here it adds an element at the new
// minimum, which stays for a later call.
func ExampleQueue_IncreaseMinAllowedKey() {
	lb, _ := levelbits.New(2, 2, 2)
	q := priorityqueue.New[string](lb, 0)
	q.Add(7, "c")
	a, _ := q.Add(3, "a")
	q.Add(3, "b")
	q.Add(40, "far")
	q.Change(a, 3) // a goes after b now

	handler := func(e priorityqueue.Element[string]) {
		fmt.Printf("removed %s (key %d)\n", e.Value, e.Key)
		if e.Value == "c" {
			q.Add(q.MinAllowedKey(), "added by the handler")
		}
	}
	q.IncreaseMinAllowedKey(10, handler)
	fmt.Println("MinAllowedKey", q.MinAllowedKey(), "Len", q.Len())
	q.IncreaseMinAllowedKey(q.MaxAllowedKey()+1, handler)
	fmt.Println("MinAllowedKey", q.MinAllowedKey(), "Len", q.Len())
	// Output:
	// removed b (key 3)
	// removed a (key 3)
	// removed c (key 7)
	// MinAllowedKey 10 Len 2
	// removed added by the handler (key 10)
	// removed far (key 40)
	// MinAllowedKey 80 Len 0
}
