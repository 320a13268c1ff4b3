package exhaustive_test

import (
	"fmt"
	"time"

	"github.com/gotimingwheel/timingwheel/proptest/exhaustive"
)

// Run checks one small world: here level bits [1 1] at precision 1 ns, every
// sequence of up to two operations with at most two live alarms.
func ExampleRun() {
	w := exhaustive.NewWorld([]int{1, 1}, 0, false, time.Unix(0, 1<<40))
	res, err := exhaustive.Run(w, exhaustive.Options{Depth: 2, MaxLive: 2})
	if err != nil {
		fmt.Println(err) // a *exhaustive.Failure with the operations that fail
		return
	}
	fmt.Println("depth", res.Depth, "explored:", res.States > 1 && res.Transitions >= res.States-1)
	// Output: depth 2 explored: true
}
