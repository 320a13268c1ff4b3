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
	i := p.Alloc(100, "tea", 1)
	tea := p.Handle(i)
	if j, ok := p.Lookup(tea); ok {
		fmt.Println("tea handle finds:", p.Rec(j).Value, "at", p.Rec(j).Time)
	}

	p.Free(i) // tea is gone; its handle goes stale
	_, ok := p.Lookup(tea)
	fmt.Println("stale tea handle accepted:", ok)

	k := p.Alloc(200, "coffee", 1) // reuses tea's record...
	coffee := p.Handle(k)
	fmt.Println("same record:", k == i, "same handle:", coffee == tea)
	_, ok = p.Lookup(tea) // ...but not its handle
	fmt.Println("stale tea handle accepted:", ok)
	if j, ok := p.Lookup(coffee); ok {
		fmt.Println("coffee handle finds:", p.Rec(j).Value)
	}

	other := pool.NewPool[string](4)
	other.Alloc(200, "juice", 1) // the same index and generation as coffee
	_, ok = other.Lookup(coffee)
	fmt.Println("other pool accepts coffee's handle:", ok)

	var null pool.Handle
	_, ok = p.Lookup(null)
	fmt.Println(null, "accepted:", ok, "live:", p.Live())
	// Output:
	// tea handle finds: tea at 100
	// stale tea handle accepted: false
	// same record: true same handle: false
	// stale tea handle accepted: false
	// coffee handle finds: coffee
	// other pool accepts coffee's handle: false
	// alarm(null) accepted: false live: 1
}
