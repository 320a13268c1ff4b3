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
	// err is nil, or a *exhaustive.Failure naming the operations that fail;
	// res counts the distinct states and the transitions checked.
	fmt.Println("depth", res.Depth, "levels of the search", len(res.PerDepth), "failure:", err)
	// Output: depth 2 levels of the search 3 failure: <nil>
}
