package levelbits_test

import (
	"errors"
	"fmt"

	"github.com/gotimingwheel/timingwheel/levelbits"
)

// Level bits say how many slots each level of a wheel has: 2^b slots at a
// level of b bits. Their sum is how many key bits the wheel holds at once.
func Example() {
	d := levelbits.Default()
	fmt.Println(d, "sums to", d.NumBits())

	small, err := levelbits.New(10, 10, 6)
	fmt.Println(small, small.NumBits(), err)

	// With a precision of 2^30 ns only 32 key bits remain below 2^62 ns.
	fmt.Println(d.Trim(62 - 30))

	_, err = levelbits.New(40, 30)
	fmt.Println(errors.Is(err, levelbits.ErrTooManyBits), err)
	_, err = levelbits.New(4, 0)
	fmt.Println(errors.Is(err, levelbits.ErrNonPositiveBits))
	// Output:
	// [11 10 10 10 10 10 1] sums to 62
	// [10 10 6] 26 <nil>
	// [11 10 10 1]
	// true levelbits: too many bits in total: [40 30] sums to more than 62
	// true
}

// NewExtended fills up to 62 bits with levels of one bit, so the wheel can
// hold every key.
func ExampleNewExtended() {
	lb, _ := levelbits.NewExtended(20, 20, 20)
	fmt.Println(lb, lb.NumBits())
	// Output:
	// [20 20 20 1 1] 62
}
