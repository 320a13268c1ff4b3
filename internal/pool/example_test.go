package pool_test

import (
	"fmt"

	"github.com/gotimingwheel/timingwheel/internal/pool"
)

// A Pool hands out records and handles. A handle names its record only while
// the record is allocated with the generation the handle was made with: once
// the record is freed, and even after it is reused, the old handle is
// rejected. A handle from another pool is rejected too.
func ExamplePool() {
	p := pool.NewPool[string](4)
	tea, r := p.Alloc(100, "tea", 1)
	if _, r := p.Lookup(tea); r != nil {
		fmt.Println("tea handle finds:", r.Value, "at", r.Time)
	}

	p.Free(pool.Index(tea), r) // tea is gone; its handle goes stale
	_, r = p.Lookup(tea)
	fmt.Println("stale tea handle accepted:", r != nil)

	coffee, _ := p.Alloc(200, "coffee", 1) // reuses tea's record...
	fmt.Println("same record:", pool.Index(coffee) == pool.Index(tea), "same handle:", coffee == tea)
	_, r = p.Lookup(tea) // ...but not its handle
	fmt.Println("stale tea handle accepted:", r != nil)
	if _, r := p.Lookup(coffee); r != nil {
		fmt.Println("coffee handle finds:", r.Value)
	}

	other := pool.NewPool[string](4)
	other.Alloc(200, "juice", 1) // the same index and generation as coffee
	_, r = other.Lookup(coffee)
	fmt.Println("other pool accepts coffee's handle:", r != nil)

	var null pool.Handle
	_, r = p.Lookup(null)
	fmt.Println(null, "accepted:", r != nil, "live:", p.Live())
	// Output:
	// tea handle finds: tea at 100
	// stale tea handle accepted: false
	// same record: true same handle: false
	// stale tea handle accepted: false
	// coffee handle finds: coffee
	// other pool accepts coffee's handle: false
	// alarm(null) accepted: false live: 1
}
