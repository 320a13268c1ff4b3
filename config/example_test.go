package config_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// A config is a precision (a power of two nanoseconds) and level bits. New
// trims the default level bits so the wheel never reaches past 2^62 ns.
func Example() {
	for _, p := range []config.AlarmPrecision{config.OneNanosecond, config.AboutOneMillisecond, config.AboutOneDay} {
		c, err := config.New(p)
		if err != nil {
			panic(err)
		}
		fmt.Println(c)
	}
	// Output:
	// precision 2^0 ns (1ns), level bits [11 10 10 10 10 10 1]
	// precision 2^20 ns (1.048576ms), level bits [11 10 10 10 1]
	// precision 2^46 ns (19h32m48.744177664s), level bits [11 5]
}

// FloorPow2 turns a duration into the precision just below it.
func ExampleFloorPow2() {
	for _, d := range []time.Duration{time.Second, time.Millisecond, time.Microsecond} {
		p, _ := config.FloorPow2(d)
		fmt.Println(d, "->", p)
	}
	_, err := config.FloorPow2(0)
	fmt.Println(errors.Is(err, config.ErrNonPositivePrecision))
	// Output:
	// 1s -> 2^29 ns (536.870912ms)
	// 1ms -> 2^19 ns (524.288µs)
	// 1µs -> 2^9 ns (512ns)
	// true
}

// Durations says how far each level reaches: a small wheel with microsecond
// precision reaches about 13 days.
func ExampleConfig_Durations() {
	c := config.MicrosecondPrecision()
	fmt.Println(c.LevelBits())
	for i, d := range c.Durations() {
		fmt.Printf("level %d: %v\n", i, d)
	}
	// Output:
	// [10 10 6 6 5 3]
	// level 0: 1.048576ms
	// level 1: 1.073741824s
	// level 2: 1m8.719476736s
	// level 3: 1h13m18.046511104s
	// level 4: 39h5m37.488355328s
	// level 5: 312h44m59.906842624s
}

// Custom level bits, an initial capacity, and an invalid precision reached
// through Div.
func ExampleNew() {
	lb, _ := levelbits.New(8, 8, 8)
	c, err := config.New(config.AboutOneMillisecond, config.WithLevelBits(lb), config.WithCapacity(1024))
	fmt.Println(c, err)

	_, err = config.New(config.OneNanosecond.Div(2))
	fmt.Println(errors.Is(err, config.ErrPrecisionOutOfRange))
	// Output:
	// precision 2^20 ns (1.048576ms), level bits [8 8 8], capacity 1024 <nil>
	// true
}

// NewFromDuration takes the precision as a duration and rounds it down to a
// power of two nanoseconds; PrecisionFor says what a duration gives, in one
// value.
func ExampleNewFromDuration() {
	c, err := config.NewFromDuration(time.Millisecond, config.WithCapacity(1024))
	fmt.Println(c, err)
	fmt.Println(config.PrecisionFor(time.Millisecond), config.PrecisionFor(time.Second))
	// Output:
	// precision 2^19 ns (524.288µs), level bits [11 10 10 10 2], capacity 1024 <nil>
	// 524.288µs 536.870912ms
}
