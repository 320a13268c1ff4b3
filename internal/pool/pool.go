// Package pool holds the records behind alarm handles, for the queue and the
// wheel of this module; users see only the handle type, alarm.Alarm.
//
// A Handle is a small comparable value with no pointers: the owner's ID, the
// index of a record in the owner's pool, and the record's generation when the
// handle was made. A handle is valid only while the record is live with that
// generation and the owner is the one asked, so a handle of a removed, fired or
// cleared alarm is rejected in O(1), and so is a handle from another queue or
// wheel. The zero Handle is the null alarm and is never valid.
//
// Handles never alias, however long the process runs:
//   - owner IDs come from a process-wide 64-bit counter, taken anew by every
//     pool and every Reset, so no two pools (or one pool before and after a
//     Reset) ever share an ID;
//   - a record's generation grows by one each time it is freed; a record
//     freed at generation MaxGen (2^25-1) is retired instead: it never returns
//     to the free records, so no generation is issued twice for one index.
//
// A Pool keeps records in one slice. The indices of free records go on a
// stack of bounded size, and those that find it full on a list threaded
// through the records' Next, so adding and removing allocate nothing once
// the slice has grown to the peak number of live alarms (and the stack to
// its bound or to the most records ever free at once). A pool made with a
// capacity makes its stack up front too. A record holds no pointers except
// the user's value, so the garbage collector has nothing to scan when T
// holds no pointers.
//
// Invariants (checked by Pool.Invariant, stated in docs/invariants.md): AP1
// record 0 is the unused sentinel; AP2 the free stack and the free list hold
// only free records, each once, and the list ends; AP3 live + free + retired
// + 1 == len(records); AP4 owner != 0; AP5 the forwarding maps Shrink keeps
// are inverse to each other and point at allocated records; AP6 every
// allocated record is found by the handle Handle gives for it, and by no
// other record's; AP7 a free record on neither is retired: its generation is
// MaxGen; AP8 records appended after a Shrink start at a generation of at
// most wornGen; AP9 the free stack's capacity is within its bound,
// min(cap(records), max(1024, cap(records)/16)).
package pool

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/invariant"
)

// Handle is a handle to an alarm in a queue or wheel; package alarm names it
// alarm.Alarm. Compare handles with ==. The zero value is the null alarm,
// never a member of anything.
type Handle struct {
	owner uint64
	index uint32
	gen   uint32
}

// IsNull reports whether a is the null alarm.
func (a Handle) IsNull() bool { return a == Handle{} }

// String formats a handle for debugging, as "alarm(owner/index@gen)".
func (a Handle) String() string {
	if a.IsNull() {
		return "alarm(null)"
	}
	return fmt.Sprintf("alarm(%d/%d@%d)", a.owner, a.index, a.gen)
}

// Owner returns the ID of the pool that issued a.
func Owner(a Handle) uint64 { return a.owner }

// Index returns the record index a refers to.
func Index(a Handle) uint32 { return a.index }

// Gen returns the record generation a was issued with.
func Gen(a Handle) uint32 { return a.gen }

// Record states, which Record.State returns.
const (
	StateFree   uint8 = 0    // on the free stack or list, or retired
	StateFiring uint8 = 0x7F // removed from the structure, its handler running
	StateDue    uint8 = 0x7E // removed from the levels, waiting in the due list
	// States 1..62 are "in a slot of level State-1".
)

// stateBits is how many low bits of Record.gs hold the state; the generation
// is above them.
const stateBits = 7

// Record is one alarm's storage: 24 bytes with an 8-byte value. Time is the
// owner's ordering quantity (a key or a time in ns); Next is the owner's
// position for the record while it is allocated; while it is free, Next
// links the free list if the record is on it (owners must not write it). The
// generation (how often the record was freed, at most MaxGen) and the state
// (where the record is) share one word, so that the record is 24 bytes rather
// than 32: at a million alarms the records are most of the memory.
type Record[T any] struct {
	Time  int64
	Value T
	Next  uint32
	gs    uint32 // generation << stateBits | state
}

// State returns where the record is: StateFree, StateDue, StateFiring or a
// level number plus one.
func (r *Record[T]) State() uint8 { return uint8(r.gs & (1<<stateBits - 1)) }

// SetState sets the record's state, which must be below 2^7, keeping its
// generation.
func (r *Record[T]) SetState(s uint8) { r.gs = r.gs&^(1<<stateBits-1) | uint32(s) }

// Gen returns the record's generation.
func (r *Record[T]) Gen() uint32 { return r.gs >> stateBits }

// setGen sets the record's generation, at most MaxGen, keeping its state.
func (r *Record[T]) setGen(g uint32) { r.gs = g<<stateBits | r.gs&(1<<stateBits-1) }

var lastOwner atomic.Uint64

// NewOwnerID returns a process-wide unique owner ID, never 0 and never
// returned before: the counter is 64 bits wide, so it would take centuries of
// calls at a billion a second to run out, and it panics rather than wrap.
func NewOwnerID() uint64 {
	id := lastOwner.Add(1)
	if id == 0 {
		panic("pool: owner IDs exhausted (2^64-1 pools and clears)")
	}
	return id
}

// Pool holds records and hands out handles. Index 0 is a sentinel that is never
// allocated, so 0 can mean "no record" in links.
type Pool[T any] struct {
	recs    []Record[T]
	live    int // allocated records
	retired int // free records kept off the free stack and list: their generation is spent
	owner   uint64

	// free holds the indices of free records, the next Alloc's on top; its
	// capacity is at most stackMax() (AP9). A stack rather than a list
	// threaded through the records: an Alloc that followed a list would
	// first have to load the record it takes to find the next one, so a
	// run of Allocs after a burst of Frees (a wheel firing a batch, then
	// re-adding) would wait for one cache miss after another; from the
	// stack it reads the next indices ahead (warmFree). The bound keeps the
	// stack at a sixteenth of the records (0.25 bytes per record) above
	// 16,384 records, at 1024 entries (4 KiB) or the records' number below,
	// and its growth copies small; the frees beyond it go on list.
	free []uint32
	list uint32 // head of the free records the stack had no room for, linked through Next; 0 when none
	// warm counts the Allocs left before the next warmFree (at most
	// freeBurst). A hint only: any value is correct.
	warm int
	sink uint32 // keeps warmFree's loads

	// After Shrink moved records, fwd maps the (index, generation) a moved
	// record's handles carry to where it lives now; rev maps back. Both are
	// empty unless Shrink moved something.
	fwd     map[origin]uint32
	rev     map[uint32]origin
	nextGen uint32 // generation for records appended after a Shrink: above every one issued at the indices it cut (AP8: at most wornGen)

	huge *hugeMark // the part of recs marked for huge pages (hugepage_linux.go); nil if the pool never marked any
}

// origin is what a handle names: a record index and its generation then.
type origin struct{ index, gen uint32 }

// MaxRecords is the most records a pool holds: indices are 32 bits and 0
// is the sentinel.
const MaxRecords int64 = 1<<32 - 2

// NewPool returns an empty pool with room for capacity records before it grows.
func NewPool[T any](capacity int) *Pool[T] {
	if capacity < 0 {
		capacity = 0
	}
	p := &Pool[T]{owner: NewOwnerID()}
	p.recs = make([]Record[T], 1, capacity+1)
	p.markRecords(p.recs) // before anything is written: it may drop the pages
	if capacity > 0 {
		// The stack's room too, so that a pool given its peak load never
		// allocates after this.
		p.free = make([]uint32, 0, p.stackMax())
	}
	return p
}

// stackMin is the free stack's bound for pools of up to 16 * stackMin
// records (unless the pool holds fewer); above that it is a sixteenth.
const stackMin = 1024

// stackMax returns the most entries the free stack may have room for
// (AP9): min(cap(records), max(stackMin, cap(records)/16)).
func (p *Pool[T]) stackMax() int {
	c := cap(p.recs)
	return min(c, max(stackMin, c/16))
}

// Owner returns the pool's owner ID, which every handle it issues carries.
func (p *Pool[T]) Owner() uint64 { return p.owner }

// Retired returns the number of records retired because their generation
// reached MaxGen (2^25-1).
func (p *Pool[T]) Retired() int { return p.retired }

// Live returns the number of allocated records.
func (p *Pool[T]) Live() int { return p.live }

// Cap returns the number of records the pool holds without growing.
func (p *Pool[T]) Cap() int { return cap(p.recs) - 1 }

// BytesHeld returns the bytes of the pool's record array and free stack.
func (p *Pool[T]) BytesHeld() int {
	return cap(p.recs)*int(unsafe.Sizeof(Record[T]{})) + cap(p.free)*4
}

// Len returns the number of records ever allocated and not given back by Reset:
// the high-water mark, excluding the sentinel.
func (p *Pool[T]) Len() int { return len(p.recs) - 1 }

// Rec returns the record at index i. The pointer is valid until the next Alloc
// or Shrink: a growth or a Shrink moves the records to a new array, and on
// Linux the old array's pages then read as zeros (release_linux.go).
func (p *Pool[T]) Rec(i uint32) *Record[T] { return &p.recs[i] }

// Records returns the record slice, indexed as Rec is, for a loop that
// touches many records and must not reload the slice at each one. It is valid
// until the next Alloc or Shrink (see Rec).
func (p *Pool[T]) Records() []Record[T] { return p.recs }

// Alloc returns the index of a fresh record with the given time and value and
// state; its Next is 0. It reuses a free record if there is one, from the top
// of the free stack first, then from the free list. Cost: O(1) amortized; it
// allocates only when the pool grows.
func (p *Pool[T]) Alloc(time int64, v T, state uint8) uint32 {
	var i uint32
	if n := len(p.free); n > 0 {
		if p.warm <= 0 {
			p.warmFree(n)
		}
		p.warm--
		i = p.free[n-1]
		p.free = p.free[:n-1]
	} else if p.list != 0 {
		i = p.list
		p.list = p.recs[i].Next
	} else {
		if int64(len(p.recs)) > MaxRecords {
			panic("timingwheel: 2^32-2 alarms are live, the most a wheel or queue holds (config.MaxCapacity); remove some first")
		}
		if len(p.recs) == cap(p.recs) {
			p.grow()
		}
		p.recs = append(p.recs, Record[T]{gs: p.nextGen << stateBits})
		i = uint32(len(p.recs) - 1)
	}
	r := &p.recs[i]
	r.Time, r.Value, r.Next = time, v, 0
	r.SetState(state)
	p.live++
	return i
}

// freeBurst is how many free records warmFree touches at once.
const freeBurst = 16

// warmFree touches the records of the top freeBurst entries of the free
// stack, which holds n, in a tight loop of independent loads, so that their
// cache misses overlap instead of each of the next Allocs waiting for its own
// (Go has no prefetch instruction). The records a large wheel fires are
// scattered over the pool; by the time the caller re-adds, a batch of
// thousands of them has left the cache (HOLD at 1e8 alarms:
// docs/performance.md, phase 12). Frees in between only make the hint
// approximate: the records they push are in cache anyway.
func (p *Pool[T]) warmFree(n int) {
	lo := max(0, n-freeBurst)
	var x uint32
	for _, i := range p.free[lo:n] {
		r := &p.recs[i]
		x += uint32(r.Time) + r.gs // first and last word: a record of up to 64 bytes spans at most two cache lines
	}
	p.sink = x
	p.warm = freeBurst
}

// grow gives the record slice room for more records: it doubles it up to
// growDoubleMax records (a copy per doubling is cheap while the pool is
// small), and beyond that grows it by an eighth, so that a large pool holds at
// most 12.5% unused capacity (a record is 24 bytes with an 8-byte value; at a
// million alarms, doubling could leave 24 MB idle). The capacity is set
// exactly: slices.Grow and append round large slices up further (Grow(s,
// len(s)) gave 2.4 times the live count).
func (p *Pool[T]) grow() {
	n := len(p.recs)
	c := n + max(n, 16)
	if n > growDoubleMax {
		c = n + n/8
	}
	recs := make([]Record[T], n, c)
	p.markRecords(recs) // before the copy: it may drop the pages
	copy(recs, p.recs)
	old := p.recs
	p.recs = recs
	releaseRecords(old) // after the copy: its pages read as zeros then
}

// growDoubleMax is the pool size (in records) up to which grow doubles.
const growDoubleMax = 1 << 16

// MaxGen is the last generation a record is issued with; a record freed at
// MaxGen is retired. Generations have 25 bits, the state 7 (Record).
const MaxGen = 1<<(32-stateBits) - 1

// wornGen is the generation from which a record is worn: Shrink releases no
// index at or below a worn record, so records appended after a Shrink start
// at a generation of at most wornGen (AP8), and every record serves at least
// MaxGen - wornGen (29.4 million) frees before it retires.
const wornGen = 1 << 22

// Free gives record i back. Every handle to it becomes invalid: the generation
// is bumped, or, when it is MaxGen, the record is retired for good (AP7), so
// that no generation is issued twice. The value is zeroed so that the pool
// does not keep it alive. Cost: O(1) amortized; it allocates only when the
// free stack grows toward its bound (AP9): never in a pool made with a
// capacity, until it outgrows that capacity or a Shrink sizes the stack
// down to the free records it kept.
func (p *Pool[T]) Free(i uint32) {
	r := &p.recs[i]
	var zero T
	r.Value = zero
	p.live--
	// The next generation, in StateFree: the state's bits all set, plus
	// one. From MaxGen the word wraps to 0, and the record retires instead.
	r.gs = r.gs | (1<<stateBits - 1) + 1
	// The common case first: room on the stack, nothing to retire, no
	// forwarding entry. (Free does not inline either way; this split runs
	// fewer instructions: docs/performance.md, phase 12.)
	if n := len(p.free); r.gs != 0 && n < cap(p.free) && len(p.rev) == 0 {
		p.free = p.free[:n+1]
		p.free[n] = i
		return
	}
	p.freeSlow(i)
}

// freeSlow is the rest of Free for record i, its generation already bumped:
// it retires the record at the last generation, or puts it on the stack,
// grown (doubling, up to stackMax) if need be, or at the bound on the list;
// and it drops the record's forwarding entries.
func (p *Pool[T]) freeSlow(i uint32) {
	r := &p.recs[i]
	switch c := cap(p.free); {
	case r.gs == 0:
		r.gs = MaxGen << stateBits
		p.retired++
	case len(p.free) < c:
		p.free = append(p.free, i)
	case c < p.stackMax():
		free := make([]uint32, len(p.free), min(max(2*c, 16), p.stackMax()))
		copy(free, p.free)
		p.free = append(free, i)
	default:
		r.Next, p.list = p.list, i
	}
	if len(p.rev) > 0 {
		if o, ok := p.rev[i]; ok {
			delete(p.rev, i)
			delete(p.fwd, o)
		}
	}
}

// Handle returns the handle for record i as it is now.
func (p *Pool[T]) Handle(i uint32) Handle {
	if len(p.rev) > 0 {
		if o, ok := p.rev[i]; ok {
			return Handle{owner: p.owner, index: o.index, gen: o.gen}
		}
	}
	return Handle{owner: p.owner, index: i, gen: p.recs[i].gs >> stateBits}
}

// Lookup returns the index of a's record if a was issued by this pool and its
// record is allocated with a's generation (in any state but free).
func (p *Pool[T]) Lookup(a Handle) (uint32, bool) {
	if a.owner != p.owner || a.index == 0 {
		return 0, false
	}
	if int(a.index) < len(p.recs) {
		r := &p.recs[a.index]
		// a's generation, in a state other than free (0), in one unsigned
		// comparison: gs lies in [gen<<stateBits + 1, gen<<stateBits +
		// 2^stateBits - 1]. This needs gen <= MaxGen, which holds for every
		// handle: only a pool makes them, from its records' generations.
		if r.gs-(a.gen<<stateBits+1) < 1<<stateBits-1 {
			return a.index, true
		}
	}
	if len(p.fwd) > 0 {
		if j, ok := p.fwd[origin{a.index, a.gen}]; ok {
			return j, true
		}
	}
	return 0, false
}

// Reset frees every record at once in O(1): the pool takes a new owner ID, so
// every handle issued before is rejected (owner IDs never repeat), and the
// records are reused from the start with fresh generations. The slice keeps
// its capacity.
func (p *Pool[T]) Reset() {
	clear(p.recs) // drop user values for the garbage collector
	p.recs = p.recs[:1]
	p.free = p.free[:0]
	p.list = 0
	p.warm = 0
	p.live = 0
	p.retired = 0
	p.owner = NewOwnerID()
	p.fwd, p.rev, p.nextGen = nil, nil, 0
}

// Shrink moves the allocated records into the lowest free indices and
// releases the rest of the slice, keeping room for slack more records. Every
// handle stays valid: a moved record is still found by its original handle
// (through a map that holds one entry per moved live record), and Handle
// returns that original handle. For each move, after copying the record from
// index from to index to, Shrink calls moved(from, to) so that the owner can
// fix the links that point at from.
//
// No generation is ever issued twice for one index, across a Shrink too:
// retired records stay where they are, and so does every worn record, one
// whose generation reached wornGen (the slice is cut above the highest of
// them); records appended later at the indices the cut releases start above
// every generation issued there, which is at most wornGen (AP8). So after
// 2^25 reuses of one record Shrink still releases what lies above it, and a
// record appended later serves at least MaxGen - wornGen frees. Cost:
// O(len(records)).
func (p *Pool[T]) Shrink(slack int, moved func(from, to uint32)) {
	onList := make([]bool, len(p.recs))
	for _, i := range p.free {
		onList[i] = true
	}
	for i := p.list; i != 0; i = p.recs[i].Next {
		onList[i] = true
	}
	// Cut at newLen: room for the live and retired records, and above every
	// worn record (one at the last generation must never be issued again,
	// and one near it would make every record appended later start near
	// it, and so retire after a few frees: AP8).
	newLen := p.live + p.retired + 1
	for i := len(p.recs) - 1; i >= newLen; i-- {
		if p.recs[i].Gen() >= wornGen {
			newLen = i + 1
			break
		}
	}
	// Move each allocated record at or above newLen into the lowest free
	// slot that is on the free stack or list (not retired).
	j := uint32(1)
	for i := uint32(newLen); int(i) < len(p.recs); i++ {
		if p.recs[i].State() == StateFree {
			continue
		}
		for !onList[j] {
			j++
		}
		onList[j] = false
		r := p.recs[i]
		o := origin{i, r.Gen()}
		if prev, ok := p.rev[i]; ok { // moved before: its handles name prev
			o = prev
			delete(p.rev, i)
		}
		// The copy takes a generation above every stale handle of slot j.
		r.setGen(max(r.Gen(), p.recs[j].Gen()))
		p.recs[j] = r
		if p.fwd == nil {
			p.fwd, p.rev = map[origin]uint32{}, map[uint32]origin{}
		}
		p.fwd[o] = j
		p.rev[j] = o
		moved(i, j)
	}
	// Records appended later at the released indices start above every
	// generation issued there (none of them is worn), so no old handle,
	// stale or forwarded, can name them.
	for _, r := range p.recs[newLen:] {
		p.nextGen = max(p.nextGen, r.Gen()+1)
	}
	recs := make([]Record[T], newLen, newLen+max(slack, 0))
	p.markRecords(recs) // before the copy: it may drop the pages
	copy(recs, p.recs[:newLen])
	old := p.recs
	p.recs = recs
	releaseRecords(old) // after the copy: its pages read as zeros then
	// The free records below the cut are taken lowest index first: the
	// lowest ones on the new free stack (up to its bound for the new
	// array), the lowest on top, and the rest on the list in ascending
	// order. The old stack's array goes: Shrink releases what it held.
	kept := 0
	for _, on := range onList[:newLen] {
		if on {
			kept++
		}
	}
	k := min(kept, p.stackMax())
	free := make([]uint32, k)
	var tail uint32
	p.list = 0
	for i := 1; i < newLen; i++ {
		switch {
		case !onList[i]:
		case k > 0:
			k--
			free[k] = uint32(i)
		case tail == 0:
			p.list, tail = uint32(i), uint32(i)
		default:
			p.recs[tail].Next, tail = uint32(i), uint32(i)
		}
	}
	if tail != 0 {
		p.recs[tail].Next = 0
	}
	p.free, p.warm = free, 0
}

// Moved returns how many records Shrink has moved that are still live (the
// entries of the forwarding map).
func (p *Pool[T]) Moved() int { return len(p.fwd) }

// Invariant checks AP1-AP9 and returns nil or an *invariant.Violation naming
// the first one broken. docs/invariants.md states each and names the function
// that checks it (checkAP3 checks AP3). The order is AP4, AP8, AP1, AP2, AP7,
// AP3, AP9, AP5, AP6: AP2's walk of the free stack and list tells AP7 which
// free records are on neither and AP3 how many are on them. It costs O(len(records)).
func (p *Pool[T]) Invariant() error {
	if err := p.checkAP4(); err != nil {
		return err
	}
	if err := p.checkAP8(); err != nil {
		return err
	}
	if err := p.checkAP1(); err != nil {
		return err
	}
	onList, free, err := p.checkAP2()
	if err != nil {
		return err
	}
	if err := p.checkAP7(onList); err != nil {
		return err
	}
	if err := p.checkAP3(free); err != nil {
		return err
	}
	if err := p.checkAP9(); err != nil {
		return err
	}
	if err := p.checkAP5(); err != nil {
		return err
	}
	return p.checkAP6()
}

// checkAP8: records appended from now on start at a generation of at most
// wornGen, so each serves at least MaxGen - wornGen frees: nextGen <= wornGen.
func (p *Pool[T]) checkAP8() error {
	if p.nextGen > wornGen {
		return invariant.Errorf("AP8", "new records start at generation %d, above the worn generation %d", p.nextGen, wornGen)
	}
	return nil
}

// checkAP1: record 0 is the sentinel "no record": it exists and is free.
func (p *Pool[T]) checkAP1() error {
	if len(p.recs) == 0 {
		return invariant.Errorf("AP1", "sentinel record 0 missing")
	}
	if p.recs[0].State() != StateFree {
		return invariant.Errorf("AP1", "sentinel record 0 is in state %d", p.recs[0].State())
	}
	return nil
}

// checkAP2: the free stack and the free list hold only free records (not
// the sentinel), each once in the two together, and the list ends. It
// returns which records are on them, and how many, for AP7 and AP3.
func (p *Pool[T]) checkAP2() (onList []bool, n int, err error) {
	onList = make([]bool, len(p.recs))
	for pos, i := range p.free {
		if i == 0 || int(i) >= len(p.recs) {
			return nil, 0, invariant.Errorf("AP2", "free stack entry %d is index %d, outside [1, %d)", pos, i, len(p.recs))
		}
		if p.recs[i].State() != StateFree {
			return nil, 0, invariant.Errorf("AP2", "free stack holds record %d in state %d", i, p.recs[i].State())
		}
		if onList[i] {
			return nil, 0, invariant.Errorf("AP2", "free stack holds record %d twice", i)
		}
		onList[i] = true
	}
	n = len(p.free)
	for i := p.list; i != 0; i = p.recs[i].Next {
		if int(i) >= len(p.recs) {
			return nil, 0, invariant.Errorf("AP2", "free list reaches index %d beyond %d records", i, len(p.recs))
		}
		if p.recs[i].State() != StateFree {
			return nil, 0, invariant.Errorf("AP2", "free list holds record %d in state %d", i, p.recs[i].State())
		}
		if onList[i] {
			return nil, 0, invariant.Errorf("AP2", "free list meets record %d again (a cycle, or it is on the stack too)", i)
		}
		onList[i] = true
		n++
	}
	return onList, n, nil
}

// checkAP9: the free stack's capacity is within its bound:
// cap(free) <= min(cap(records), max(stackMin, cap(records)/16)).
func (p *Pool[T]) checkAP9() error {
	if c := cap(p.free); c > p.stackMax() {
		return invariant.Errorf("AP9", "free stack has room for %d, above its bound %d for %d records", c, p.stackMax(), cap(p.recs))
	}
	return nil
}

// checkAP3: every record is live, free, retired or the sentinel:
// live + free + retired + 1 = len(records), free being the number of records
// on the free stack and list.
func (p *Pool[T]) checkAP3(free int) error {
	if p.live+free+p.retired+1 != len(p.recs) {
		return invariant.Errorf("AP3", "live %d + free %d + retired %d + 1 != %d records",
			p.live, free, p.retired, len(p.recs))
	}
	return nil
}

// checkAP4: the pool has an owner ID, which its handles carry: owner != 0.
func (p *Pool[T]) checkAP4() error {
	if p.owner == 0 {
		return invariant.Errorf("AP4", "owner ID is 0")
	}
	return nil
}

// checkAP5: Shrink's forwarding maps are inverse to each other and point at
// allocated records: fwd(o) = j ⇔ rev(j) = o, and record j is not free.
func (p *Pool[T]) checkAP5() error {
	if len(p.fwd) != len(p.rev) {
		return invariant.Errorf("AP5", "%d forward entries, %d reverse", len(p.fwd), len(p.rev))
	}
	for o, j := range p.fwd {
		if back, ok := p.rev[j]; !ok || back != o || int(j) >= len(p.recs) || p.recs[j].State() == StateFree {
			return invariant.Errorf("AP5", "moved record %v -> %d: reverse %v (%v), or the target is free",
				o, j, back, ok)
		}
	}
	return nil
}

// checkAP6: every allocated record is found by its own handle, and so by no
// other record's: Lookup(Handle(i)) = i for every record i >= 1 not free.
func (p *Pool[T]) checkAP6() error {
	for i := 1; i < len(p.recs); i++ {
		if p.recs[i].State() == StateFree {
			continue
		}
		h := p.Handle(uint32(i))
		if j, ok := p.Lookup(h); !ok || j != uint32(i) {
			return invariant.Errorf("AP6", "record %d: its handle %v finds record %d (found %v)", i, h, j, ok)
		}
	}
	return nil
}

// checkAP7: a free record on neither the free stack nor the list is
// retired: its generation is MaxGen, and the retired count is the number of
// such records. onList marks the records on the free stack and list.
func (p *Pool[T]) checkAP7(onList []bool) error {
	retired := 0
	for i := 1; i < len(p.recs); i++ {
		if p.recs[i].State() != StateFree || onList[i] {
			continue
		}
		if p.recs[i].Gen() != MaxGen {
			return invariant.Errorf("AP7", "record %d is free, on neither the free stack nor the list, at generation %d (not retired)",
				i, p.recs[i].Gen())
		}
		retired++
	}
	if retired != p.retired {
		return invariant.Errorf("AP7", "%d records retired, count says %d", retired, p.retired)
	}
	return nil
}
