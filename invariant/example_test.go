package invariant_test

import (
	"errors"
	"fmt"

	"github.com/gotimingwheel/timingwheel/invariant"
)

// A structure's Invariant method returns a *Violation naming the broken
// invariant; callers find it with errors.As or IDOf, even when wrapped.
func Example() {
	check := func(slots, length int) error {
		if slots != length {
			return invariant.Errorf("XY1", "length %d, slots hold %d", length, slots)
		}
		return nil
	}
	err := fmt.Errorf("after Remove: %w", check(2, 3))
	fmt.Println(err)

	var v *invariant.Violation
	if errors.As(err, &v) {
		fmt.Println("ID:", v.ID, "| detail:", v.Detail)
	}
	fmt.Printf("%q %q\n", invariant.IDOf(err), invariant.IDOf(check(3, 3)))
	// Output:
	// after Remove: invariant XY1 violated: length 3, slots hold 2
	// ID: XY1 | detail: length 3, slots hold 2
	// "XY1" ""
}
