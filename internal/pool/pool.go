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
// Handles never alias, however long the process runs: every pool and every
// Reset takes a new owner ID from a process-wide 64-bit counter, and a
// record freed at generation MaxGen (2^25-1) retires instead of wrapping.
//
// A pool of up to segSize records keeps them in one slice, which grows by
// copying (flat mode); a larger one keeps them in fixed arrays of segSize
// records, record i at entry i&segMask of segment i>>segBits (segment
// mode). The full flat slice becomes segment 0 as it is, and growth in
// segment mode appends a segment, so a large pool never copies its records
// to grow and drops no array. Free records' indices go on a bounded stack,
// the rest on a list threaded through Pos, so adding and removing
// allocate nothing once the pool has grown to its peak. docs/design.md
// ("Records, pool and handles") says why; Pool.Invariant checks AP1 to
// AP12 (docs/invariants.md).
package pool

import (
	"fmt"
	"maps"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/invariant"
)

// The pool's tuned constants, each with what it trades.
const (
	// segBits sets the segment size, 2^segBits records (3 MiB with an
	// 8-byte value), also the most a flat pool holds. Larger: more pools
	// flat (a record read in segment mode takes a few instructions more),
	// against up to a segment held unused and larger last flat copies.
	// Chosen by the instruction counts of HOLD.
	segBits = 17
	// flatMin is the fewest records a flat pool gains when it grows: fewer
	// copies while a pool is tiny, against records held unused.
	flatMin = 16
	// stackMin and stackShare bound the free stack (AP9) at
	// min(held, max(stackMin, held/stackShare)) entries: longer bursts of
	// frees served from the stack, whose Allocs warmFree speeds up,
	// against memory.
	stackMin   = 1024
	stackShare = 16
	// freeBurst is how many free records warmFree touches at once: more
	// cache misses overlapped, against loads wasted when fewer Allocs follow.
	freeBurst = 16
	// wornGen is the generation from which a record is worn: Shrink
	// releases no index at or below one, so records appended later start
	// at most there (AP8). Lower: Shrink releases less after heavy reuse;
	// higher: records appended later serve fewer frees before they retire.
	wornGen = 1 << 22
)

// segSize records are in every segment; segMask picks an entry.
const (
	segSize = 1 << segBits
	segMask = segSize - 1
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

// Index returns the record index a refers to.
func Index(a Handle) uint32 { return a.index }

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
// owner's ordering quantity (a key or a time in ns). Pos is where the owner
// keeps the record while it is allocated (a queue: its entry in a slot
// vector, or its bucket and entry in small mode); while the record is on
// the free list, Pos is the list's link, which owners must not write. The
// generation and the state share one word, so that the record is 24 bytes
// rather than 32.
type Record[T any] struct {
	Time  int64
	Value T
	Pos   uint32
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
// returned before: it panics rather than wrap its 64-bit counter.
func NewOwnerID() uint64 {
	id := lastOwner.Add(1)
	if id == 0 {
		panic("pool: owner IDs exhausted (2^64-1 pools and clears)")
	}
	return id
}

// Records is where a pool's records are, and a view of them for a loop that
// reads many: At(i) is Rec(i) with the pool's fields read once. A view is
// valid until the pool's next Alloc or Shrink.
type Records[T any] struct {
	// flat holds every record of a pool in flat mode, as many as the pool
	// holds, at most segSize; it is empty in segment mode (AP10).
	flat []Record[T]
	// segs holds the records of a pool in segment mode, record i at
	// segs[i>>segBits][i&segMask], at least two segments; it is nil in flat
	// mode (AP10).
	segs []*[segSize]Record[T]
}

// At returns the record at index i, which must be below the pool's Len()+1.
// Its test is one of the mode: in flat mode flat holds every such index, in
// segment mode it is empty. Indexing a segment needs no bounds check.
func (v *Records[T]) At(i uint32) *Record[T] {
	if uint(i) >= uint(len(v.flat)) {
		return &v.segs[i>>segBits][i&segMask]
	}
	return &v.flat[i]
}

// held returns the number of records v holds, the sentinel included.
func (v *Records[T]) held() int {
	if v.segs == nil {
		return len(v.flat)
	}
	return len(v.segs) << segBits
}

// zero zeroes the records from lo to hi-1.
func (v *Records[T]) zero(lo, hi int) {
	if v.segs == nil {
		clear(v.flat[lo:hi])
		return
	}
	for ; lo < hi; lo = (lo | segMask) + 1 {
		off := lo & segMask
		clear(v.segs[lo>>segBits][off:min(off+hi-lo, segSize)])
	}
}

// Pool holds records and hands out handles. Index 0 is a sentinel that is never
// allocated, so 0 can mean "no record" in links.
type Pool[T any] struct {
	recs    Records[T]
	n       int // records in use, the sentinel included: indices 0 to n-1; those held beyond are all zero (AP11)
	live    int // allocated records
	retired int // free records kept off the free stack and list: their generation is spent
	owner   uint64

	// free holds the indices of free records, the next Alloc's on top
	// (AP9): Allocs after a burst of Frees know the next records ahead.
	free []uint32
	list uint32 // head of the free records the stack had no room for, linked through Pos; 0 when none
	// warm counts the Allocs left before the next warmFree (at most
	// freeBurst). A hint only: any value is correct.
	warm int
	sink uint32 // keeps warmFree's loads

	// After Shrink moved records, fwd maps the handle a moved record was
	// issued to where it lives now; rev maps back. Both are nil unless the
	// last Shrink left entries in them, and were made for fwdCap entries,
	// the room BytesHeld counts (AP12): only Shrink adds entries.
	fwd     map[Handle]uint32
	rev     map[uint32]Handle
	fwdCap  int
	nextGen uint32 // generation for records appended after a Shrink: above every one issued at the indices it cut (AP8: at most wornGen)
}

// MaxRecords is the most records a pool holds: indices are 32 bits and 0
// is the sentinel.
const MaxRecords int64 = 1<<32 - 2

// NewPool returns an empty pool with room for capacity records before it
// grows: exactly that many in flat mode, and in segment mode up to a
// segment more.
func NewPool[T any](capacity int) *Pool[T] {
	n := max(capacity, 0) + 1
	p := &Pool[T]{owner: NewOwnerID(), n: 1}
	if n <= segSize {
		p.recs.flat = make([]Record[T], n)
	} else {
		p.recs.segs = make([]*[segSize]Record[T], (n+segMask)>>segBits)
		for k := range p.recs.segs {
			p.recs.segs[k] = new([segSize]Record[T])
		}
	}
	if capacity > 0 {
		// The stack's room too, so that a pool given its peak load never
		// allocates after this.
		p.free = make([]uint32, 0, p.stackMax())
	}
	return p
}

// stackMax returns the most entries the free stack may have room for
// (AP9): min(held, max(stackMin, held/stackShare)).
func (p *Pool[T]) stackMax() int {
	c := p.recs.held()
	return min(c, max(stackMin, c/stackShare))
}

// Live returns the number of allocated records.
func (p *Pool[T]) Live() int { return p.live }

// Cap returns the number of records the pool holds without growing.
func (p *Pool[T]) Cap() int { return p.recs.held() - 1 }

// BytesHeld returns the bytes of the pool's records, its segment table, its
// free stack and its forwarding maps, these estimated: made for fwdCap
// entries, each of the two maps has a power of two of slots, at most 7/8
// full, of 27 bytes (an entry's 24, a control byte and the tables').
func (p *Pool[T]) BytesHeld() int {
	n := p.recs.held()*int(unsafe.Sizeof(Record[T]{})) + cap(p.recs.segs)*int(unsafe.Sizeof(uintptr(0))) + cap(p.free)*4
	if p.fwdCap > 0 {
		n += 54 << bits.Len(uint(p.fwdCap*8/7)|7)
	}
	return n
}

// Len returns the number of records ever allocated and not given back by Reset:
// the high-water mark, excluding the sentinel.
func (p *Pool[T]) Len() int { return p.n - 1 }

// Rec returns the record at index i, which must be below Len()+1. The
// pointer is valid until the next Alloc or Shrink: a flat pool moves its
// records to a new array when it grows, and Shrink moves them.
func (p *Pool[T]) Rec(i uint32) *Record[T] {
	if uint(i) >= uint(len(p.recs.flat)) {
		return &p.recs.segs[i>>segBits][i&segMask]
	}
	return &p.recs.flat[i]
}

// Records returns a view of the pool's records, valid until the next Alloc
// or Shrink (see Rec).
func (p *Pool[T]) Records() Records[T] { return p.recs }

// Alloc returns the handle of a fresh record with the given time and value
// and state, and the record, valid as Rec's pointer is; its Pos is 0 and its
// index Index(handle). It reuses a free record if there is one, from the top
// of the free stack first, then from the free list. Cost: O(1) amortized; it
// allocates only when the pool grows.
func (p *Pool[T]) Alloc(time int64, v T, state uint8) (Handle, *Record[T]) {
	var i uint32
	var r *Record[T]
	if n := len(p.free); n > 0 {
		if p.warm <= 0 {
			p.warmFree(n)
		}
		p.warm--
		i = p.free[n-1]
		p.free = p.free[:n-1]
		r = p.Rec(i)
	} else if p.list != 0 {
		i = p.list
		r = p.Rec(i)
		p.list = r.Pos
	} else {
		if int64(p.n) > MaxRecords {
			panic("timingwheel: 2^32-2 alarms are live, the most a wheel or queue holds (config.MaxCapacity); remove some first")
		}
		if p.n == p.recs.held() {
			p.grow()
		}
		i = uint32(p.n)
		p.n++
		r = p.Rec(i) // zero (AP11)
		r.gs = p.nextGen << stateBits
	}
	r.Time, r.Value, r.Pos = time, v, 0
	r.SetState(state)
	p.live++
	// A free record has no forwarding entry (AP5), so the handle is new.
	return Handle{owner: p.owner, index: i, gen: r.gs >> stateBits}, r
}

// warmFree touches the records of the top freeBurst entries of the free
// stack, which holds n, in a tight loop of independent loads, so that their
// cache misses overlap instead of each of the next Allocs waiting for its
// own (Go has no prefetch instruction).
func (p *Pool[T]) warmFree(n int) {
	lo := max(0, n-freeBurst)
	var x uint32
	for _, i := range p.free[lo:n] {
		r := p.Rec(i)
		x += uint32(r.Time) + r.gs // first and last word: a record of up to 64 bytes spans at most two cache lines
	}
	p.sink = x
	p.warm = freeBurst
}

// grow makes room for one more record. A flat pool below segSize records
// moves to a slice twice as long (at least flatMin longer, at most
// segSize); a full flat pool becomes segment 0 as it is, without a copy,
// and gains segment 1; a pool in segment mode appends a segment.
func (p *Pool[T]) grow() {
	v := &p.recs
	if n := len(v.flat); n > 0 && n < segSize {
		flat := make([]Record[T], min(segSize, n+max(n, flatMin)))
		copy(flat, v.flat)
		v.flat = flat
		return
	}
	if v.segs == nil {
		v.segs = []*[segSize]Record[T]{(*[segSize]Record[T])(v.flat)}
		v.flat = nil
	}
	v.segs = append(v.segs, new([segSize]Record[T]))
}

// MaxGen is the last generation a record is issued with; a record freed at
// MaxGen is retired. Generations have 25 bits, the state 7 (Record).
const MaxGen = 1<<(32-stateBits) - 1

// Free gives record i, which is r (Rec(i)), back. Every handle to it
// becomes invalid: the generation is bumped, or, when it is MaxGen, the
// record is retired for good (AP7), so that no generation is issued twice.
// The value is zeroed so that the pool does not keep it alive. Cost: O(1)
// amortized; it allocates only when the free stack grows toward its bound
// (AP9), never in a pool made with a capacity until it outgrows that
// capacity or Shrinks.
func (p *Pool[T]) Free(i uint32, r *Record[T]) {
	var zero T
	r.Value = zero
	p.live--
	// The next generation, in StateFree: the state's bits all set, plus
	// one. From MaxGen the word wraps to 0, and the record retires instead.
	r.gs = r.gs | (1<<stateBits - 1) + 1
	// The common case first, in few instructions: room on the stack,
	// nothing to retire, no forwarding entry.
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
	r := p.Rec(i)
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
		r.Pos, p.list = p.list, i
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
		if h, ok := p.rev[i]; ok {
			return h
		}
	}
	return Handle{owner: p.owner, index: i, gen: p.Rec(i).gs >> stateBits}
}

// Lookup returns the index of a's record and the record, valid as Rec's
// pointer is, if a was issued by this pool and its record is allocated with
// a's generation (in any state but free); otherwise 0 and nil.
func (p *Pool[T]) Lookup(a Handle) (uint32, *Record[T]) {
	// a's generation, in a state other than free, in one unsigned
	// comparison: gs lies in [gen<<stateBits + 1, gen<<stateBits +
	// 2^stateBits - 1] (gen <= MaxGen holds for every handle). The
	// sentinel is free, so the null alarm finds nothing.
	if a.owner == p.owner && int(a.index) < p.n {
		if r := p.Rec(a.index); r.gs-(a.gen<<stateBits+1) < 1<<stateBits-1 {
			return a.index, r
		}
	}
	if j, ok := p.fwd[a]; ok {
		return j, p.Rec(j)
	}
	return 0, nil
}

// Reset frees every record at once: the pool takes a new owner ID, so every
// handle issued before is rejected, and reuses the records it holds from
// the start. Cost: O(Len()), to zero the records in use (AP11).
func (p *Pool[T]) Reset() {
	p.recs.zero(0, p.n)
	p.n = 1
	p.free = p.free[:0]
	p.list, p.warm, p.live, p.retired = 0, 0, 0, 0
	p.owner = NewOwnerID()
	p.fwd, p.rev, p.fwdCap, p.nextGen = nil, nil, 0, 0
}

// Shrink moves the allocated records into the lowest free indices and
// releases the records held above them: a pool left with up to segSize
// records in use moves them to a flat slice of exactly that many, a larger
// one keeps the segments they need. Every handle stays valid: a moved
// record is still found by its original handle (through a map that holds
// one entry per moved live record, made afresh by each Shrink so that its
// room follows them), and Handle returns that original handle. For each
// move, after copying the record from index from to index to, Shrink calls
// moved(from, to) so that the owner can fix the links that point at from.
//
// No generation is issued twice for one index across a Shrink either:
// retired and worn records stay where they are, and records appended later
// at the indices it releases start above every generation issued there
// (AP8). Cost: O(Len()).
func (p *Pool[T]) Shrink(moved func(from, to uint32)) {
	onList := make([]bool, p.n)
	for _, i := range p.free {
		onList[i] = true
	}
	for i := p.list; i != 0; i = p.Rec(i).Pos {
		onList[i] = true
	}
	// Cut at newLen: room for the live and retired records, and above every
	// worn record (AP8).
	newLen := p.live + p.retired + 1
	for i := p.n - 1; i >= newLen; i-- {
		if p.Rec(uint32(i)).Gen() >= wornGen {
			newLen = i + 1
			break
		}
	}
	// Move each allocated record at or above newLen into the lowest free
	// slot that is on the free stack or list (not retired).
	j := uint32(1)
	for i := uint32(newLen); int(i) < p.n; i++ {
		if p.Rec(i).State() == StateFree {
			continue
		}
		for !onList[j] {
			j++
		}
		onList[j] = false
		r := *p.Rec(i)
		o := Handle{p.owner, i, r.Gen()}
		if prev, ok := p.rev[i]; ok { // moved before: its handles name prev
			o = prev
			delete(p.rev, i)
		}
		// The copy takes a generation above every stale handle of slot j.
		r.setGen(max(r.Gen(), p.Rec(j).Gen()))
		*p.Rec(j) = r
		if p.fwd == nil {
			p.fwd, p.rev = map[Handle]uint32{}, map[uint32]Handle{}
		}
		p.fwd[o] = j
		p.rev[j] = o
		moved(i, j)
	}
	// Go maps never give back the room of deleted entries: the maps are
	// made afresh for the entries they keep, or dropped (AP12).
	if p.fwdCap = len(p.fwd); p.fwdCap > 0 {
		p.fwd, p.rev = maps.Collect(maps.All(p.fwd)), maps.Collect(maps.All(p.rev))
	} else {
		p.fwd, p.rev = nil, nil
	}
	// Records appended later at the released indices start above every
	// generation issued there, so no old handle can name them.
	for i := newLen; i < p.n; i++ {
		p.nextGen = max(p.nextGen, p.Rec(uint32(i)).Gen()+1)
	}
	p.cut(newLen)
	// The free records below the cut (all but the sentinel, the live and
	// the retired ones) are taken lowest index first: the lowest on the new
	// free stack (up to its bound), the lowest on top, the rest on the list
	// in ascending order. The old stack's array goes.
	n := newLen - 1 - p.live - p.retired
	k := min(n, p.stackMax())
	free := make([]uint32, 0, k)
	p.list = 0
	for i := uint32(newLen) - 1; i > 0; i-- {
		switch {
		case !onList[i]:
		case n > k:
			p.Rec(i).Pos, p.list = p.list, i
			n--
		default:
			free = append(free, i)
		}
	}
	p.free, p.warm = free, 0
}

// cut makes n the number of records in use and releases what is held
// beyond them: up to segSize records move to a flat slice of exactly n;
// more keep the segments that hold records below n, with the records from
// n on zeroed (AP11), and drop the others.
func (p *Pool[T]) cut(n int) {
	v := &p.recs
	if n > segSize {
		k := (n + segMask) >> segBits
		v.zero(n, min(p.n, k<<segBits))
		clear(v.segs[k:])
		v.segs = v.segs[:k]
	} else {
		flat := make([]Record[T], n)
		if v.segs != nil {
			copy(flat, v.segs[0][:])
		} else {
			copy(flat, v.flat)
		}
		v.flat, v.segs = flat, nil
	}
	p.n = n
}

// Invariant checks AP1-AP12 (docs/invariants.md; checkAP3 checks AP3) and
// returns nil or an *invariant.Violation naming the first one broken: AP10,
// where the records are, first, and AP2, whose walk of the free stack and
// list AP7 and AP3 use, before those. It costs O(records held).
func (p *Pool[T]) Invariant() error {
	var onList []bool
	var free int
	for _, check := range []func() error{p.checkAP4, p.checkAP10, p.checkAP1, p.checkAP11, p.checkAP8,
		func() (err error) { onList, free, err = p.checkAP2(); return err },
		func() error { return p.checkAP7(onList) },
		func() error { return p.checkAP3(free) },
		p.checkAP9, p.checkAP12, p.checkAP5, p.checkAP6} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkAP10: flat mode, segs nil and n <= len(flat) <= segSize; or segment
// mode, flat empty and at least two distinct segments, n <= held.
func (p *Pool[T]) checkAP10() error {
	v := &p.recs
	if v.segs == nil {
		if len(v.flat) > segSize || p.n > len(v.flat) {
			return invariant.Errorf("AP10", "flat mode holds %d records (at most %d), %d in use", len(v.flat), segSize, p.n)
		}
		return nil
	}
	if len(v.flat) != 0 || len(v.segs) < 2 || p.n > v.held() {
		return invariant.Errorf("AP10", "segment mode with %d segments (at least 2), %d in use, and a flat slice of %d (want none)",
			len(v.segs), p.n, len(v.flat))
	}
	seen := make(map[*[segSize]Record[T]]bool, len(v.segs))
	for k, s := range v.segs {
		if s == nil || seen[s] {
			return invariant.Errorf("AP10", "segment %d of %d is nil or another segment's array", k, len(v.segs))
		}
		seen[s] = true
	}
	return nil
}

// checkAP11: every byte of the records held beyond those in use is zero.
func (p *Pool[T]) checkAP11() error {
	held := p.recs.held()
	for lo := p.n; lo < held; {
		// The records from lo to the end of lo's array, as 32-bit words: a
		// record holds two uint32, so its size is a multiple of 4.
		r := p.Rec(uint32(lo))
		m := held - lo
		if p.recs.segs != nil {
			m = segSize - lo&segMask
		}
		words := unsafe.Slice((*uint32)(unsafe.Pointer(r)), uintptr(m)*unsafe.Sizeof(*r)/4)
		for w, x := range words {
			if x != 0 {
				return invariant.Errorf("AP11", "record %d, beyond the %d in use, is not zero",
					lo+int(uintptr(w)*4/unsafe.Sizeof(*r)), p.n)
			}
		}
		lo += m
	}
	return nil
}

// checkAP8: nextGen <= wornGen.
func (p *Pool[T]) checkAP8() error {
	if p.nextGen > wornGen {
		return invariant.Errorf("AP8", "new records start at generation %d, above the worn generation %d", p.nextGen, wornGen)
	}
	return nil
}

// checkAP1: record 0, the sentinel, is in use and free.
func (p *Pool[T]) checkAP1() error {
	if p.n < 1 {
		return invariant.Errorf("AP1", "sentinel record 0 missing: %d records in use", p.n)
	}
	if s := p.Rec(0).State(); s != StateFree {
		return invariant.Errorf("AP1", "sentinel record 0 is in state %d", s)
	}
	return nil
}

// checkAP2: the free stack and list hold free records other than the
// sentinel, each once, and the list ends; it returns which, and how many.
func (p *Pool[T]) checkAP2() (onList []bool, n int, err error) {
	onList = make([]bool, p.n)
	visit := func(on string, i uint32) error {
		switch {
		case i == 0 || int(i) >= p.n:
			return invariant.Errorf("AP2", "free %s holds index %d, outside [1, %d)", on, i, p.n)
		case p.Rec(i).State() != StateFree:
			return invariant.Errorf("AP2", "free %s holds record %d in state %d", on, i, p.Rec(i).State())
		case onList[i]:
			return invariant.Errorf("AP2", "free %s meets record %d again (twice, a cycle, or on the stack too)", on, i)
		}
		onList[i] = true
		n++
		return nil
	}
	for _, i := range p.free {
		if err := visit("stack", i); err != nil {
			return nil, 0, err
		}
	}
	for i := p.list; i != 0; i = p.Rec(i).Pos {
		if err := visit("list", i); err != nil {
			return nil, 0, err
		}
	}
	return onList, n, nil
}

// checkAP9: cap(free) <= stackMax().
func (p *Pool[T]) checkAP9() error {
	if c := cap(p.free); c > p.stackMax() {
		return invariant.Errorf("AP9", "free stack has room for %d, above its bound %d for %d records", c, p.stackMax(), p.recs.held())
	}
	return nil
}

// checkAP3: live + free + retired + 1 = n, free counting the stack and list.
func (p *Pool[T]) checkAP3(free int) error {
	if p.live+free+p.retired+1 != p.n {
		return invariant.Errorf("AP3", "live %d + free %d + retired %d + 1 != %d records",
			p.live, free, p.retired, p.n)
	}
	return nil
}

// checkAP4: owner != 0.
func (p *Pool[T]) checkAP4() error {
	if p.owner == 0 {
		return invariant.Errorf("AP4", "owner ID is 0")
	}
	return nil
}

// checkAP5: fwd and rev are inverse and point at allocated records.
func (p *Pool[T]) checkAP5() error {
	if len(p.fwd) != len(p.rev) {
		return invariant.Errorf("AP5", "%d forward entries, %d reverse", len(p.fwd), len(p.rev))
	}
	for o, j := range p.fwd {
		if back, ok := p.rev[j]; !ok || back != o || int(j) >= p.n || p.Rec(j).State() == StateFree {
			return invariant.Errorf("AP5", "moved record %v -> %d: reverse %v (%v), or the target is free",
				o, j, back, ok)
		}
	}
	return nil
}

// checkAP12: the forwarding maps are nil iff fwdCap = 0, and hold at most
// fwdCap entries.
func (p *Pool[T]) checkAP12() error {
	if (p.fwd == nil) != (p.fwdCap == 0) || len(p.fwd) > p.fwdCap {
		return invariant.Errorf("AP12", "forwarding maps allocated %v with %d entries, made for %d", p.fwd != nil, len(p.fwd), p.fwdCap)
	}
	return nil
}

// checkAP6: Lookup(Handle(i)) = i for every allocated record i.
func (p *Pool[T]) checkAP6() error {
	for i := uint32(1); int(i) < p.n; i++ {
		if p.Rec(i).State() == StateFree {
			continue
		}
		if err := p.CheckHandle(i); err != nil {
			return err
		}
	}
	return nil
}

// CheckHandle checks AP6 for allocated record i: its handle finds it. It
// returns nil or an *invariant.Violation. Cost: O(1).
func (p *Pool[T]) CheckHandle(i uint32) error {
	h := p.Handle(i)
	if j, r := p.Lookup(h); r == nil || j != i {
		return invariant.Errorf("AP6", "record %d: its handle %v finds record %d (found %v)", i, h, j, r != nil)
	}
	return nil
}

// checkAP7: a free record on neither the free stack nor the list (onList)
// is at MaxGen, and there are retired of them.
func (p *Pool[T]) checkAP7(onList []bool) error {
	retired := 0
	for i := uint32(1); int(i) < p.n; i++ {
		r := p.Rec(i)
		if r.State() != StateFree || onList[i] {
			continue
		}
		if r.Gen() != MaxGen {
			return invariant.Errorf("AP7", "record %d is free, on neither the free stack nor the list, at generation %d (not retired)",
				i, r.Gen())
		}
		retired++
	}
	if retired != p.retired {
		return invariant.Errorf("AP7", "%d records retired, count says %d", retired, p.retired)
	}
	return nil
}
