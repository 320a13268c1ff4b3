package bench

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/cmd/twsim/workload"
)

// floorWheel is not a timing wheel anyone should use: it is a minimal
// reference point for TIMEOUT-1M (not a proven lower bound), to measure how
// far issue 5's "5x the 4-ary heap" target is from what this machine allows.
// It has one level of 2048 slots of 2^20 ns (all of TIMEOUT-1M's alarms are
// less than 1000 slots ahead; each slot holds one interval, FIFO by
// appending, with no order bookkeeping), no error checks beyond a handle's
// generation, and lazy removal: Remove touches only the alarm's record (a
// generation bump); the slot keeps a dead entry, skipped when the slot
// fires. A record is 24 bytes: time, an int64 value, generation, state.
// What remains is a random access per Remove into an array of a million
// records, and a touch of each entry's record again when its slot fires.
type floorWheel struct {
	recs  []floorRec
	free  []uint32
	slots [2048][]uint64 // entries: index | generation << 32
	cur   int64          // next interval to fire
	live  int
}

type floorRec struct {
	at    int64
	value int64
	gen   uint32
	used  uint32
}

func newFloor(b uint) workload.Timers[uint64] {
	if b != 20 {
		panic("floorWheel: TIMEOUT only (precision 2^20 ns)")
	}
	return &floorWheel{recs: make([]floorRec, 1)}
}

func (f *floorWheel) Add(at int64) uint64 {
	var i uint32
	if n := len(f.free); n > 0 {
		i = f.free[n-1]
		f.free = f.free[:n-1]
	} else {
		f.recs = append(f.recs, floorRec{})
		i = uint32(len(f.recs) - 1)
	}
	r := &f.recs[i]
	r.at, r.value, r.used = at, at, 1
	h := uint64(i) | uint64(r.gen)<<32
	s := &f.slots[(at>>20)&2047]
	*s = append(*s, h)
	f.live++
	return h
}

func (f *floorWheel) Remove(h uint64) {
	i := uint32(h)
	r := &f.recs[i]
	if r.gen != uint32(h>>32) || r.used == 0 {
		panic("floorWheel: stale handle")
	}
	r.gen++
	r.used = 0
	f.free = append(f.free, i)
	f.live--
}

func (f *floorWheel) NextAlarmFiresAt() (int64, bool) { panic("floorWheel: not used by TIMEOUT") }

func (f *floorWheel) AdvanceClock(to int64, fired func(int64)) {
	for ; f.cur < to>>20; f.cur++ {
		s := &f.slots[f.cur&2047]
		for _, h := range *s {
			i := uint32(h)
			r := &f.recs[i]
			if r.gen != uint32(h>>32) || r.used == 0 {
				continue // removed
			}
			fired(r.at)
			r.gen++
			r.used = 0
			f.free = append(f.free, i)
			f.live--
		}
		*s = (*s)[:0]
	}
}

func (f *floorWheel) Len() int     { return f.live }
func (f *floorWheel) Check() error { return nil }

// floorSoA is floorWheel with its records split into arrays, so that Remove
// touches only a 4-byte generation (a 4.4 MB array at TIMEOUT-1M's peak)
// instead of a 24-byte record.
type floorSoA struct {
	gen   []uint32 // bumped on removal and firing; odd while the record is in use
	at    []int64
	value []int64
	free  []uint32
	slots [2048][]uint64
	cur   int64
	live  int
}

func newFloorSoA(b uint) workload.Timers[uint64] {
	if b != 20 {
		panic("floorSoA: TIMEOUT only (precision 2^20 ns)")
	}
	return &floorSoA{gen: make([]uint32, 1), at: make([]int64, 1), value: make([]int64, 1)}
}

func (f *floorSoA) Add(at int64) uint64 {
	var i uint32
	if n := len(f.free); n > 0 {
		i = f.free[n-1]
		f.free = f.free[:n-1]
	} else {
		f.gen, f.at, f.value = append(f.gen, 0), append(f.at, 0), append(f.value, 0)
		i = uint32(len(f.gen) - 1)
	}
	f.gen[i]++ // odd: in use
	f.at[i], f.value[i] = at, at
	h := uint64(i) | uint64(f.gen[i])<<32
	s := &f.slots[(at>>20)&2047]
	*s = append(*s, h)
	f.live++
	return h
}

func (f *floorSoA) Remove(h uint64) {
	i := uint32(h)
	if f.gen[i] != uint32(h>>32) {
		panic("floorSoA: stale handle")
	}
	f.gen[i]++ // even: free
	f.free = append(f.free, i)
	f.live--
}

func (f *floorSoA) NextAlarmFiresAt() (int64, bool) { panic("floorSoA: not used by TIMEOUT") }

func (f *floorSoA) AdvanceClock(to int64, fired func(int64)) {
	for ; f.cur < to>>20; f.cur++ {
		s := &f.slots[f.cur&2047]
		for _, h := range *s {
			i := uint32(h)
			if f.gen[i] != uint32(h>>32) {
				continue // removed
			}
			fired(f.at[i])
			f.gen[i]++
			f.free = append(f.free, i)
			f.live--
		}
		*s = (*s)[:0]
	}
}

func (f *floorSoA) Len() int     { return f.live }
func (f *floorSoA) Check() error { return nil }

// BenchmarkTimeoutFloor runs TIMEOUT-1M on floorWheel, floorSoA and the
// 4-ary heap, in that order in each iteration, and reports the three ns/op
// and heap4 over the better floor; it fails if a floor's checksum (the sum
// of the fired times: the fired set, not the order) or counts differ from
// the heap's. Run it with -benchtime 1x -count k and compare the metrics:
//
//	go test -run '^$' -bench TimeoutFloor -benchtime 1x -count 5
func BenchmarkTimeoutFloor(b *testing.B) {
	for b.Loop() {
		fl := workload.Timeout(newFloor, true, false)
		soa := workload.Timeout(newFloorSoA, true, false)
		h4 := workload.Timeout(heap4T, true, false)
		for _, r := range []workload.Result{fl, soa} {
			if r.Checksum != h4.Checksum || r.Counts != h4.Counts {
				b.Fatalf("floor fired %d (%s), heap4 %d (%s)", r.Checksum, r.Counts, h4.Checksum, h4.Counts)
			}
		}
		b.ReportMetric(fl.NsPerOp, "floor-ns/op")
		b.ReportMetric(soa.NsPerOp, "floorsoa-ns/op")
		b.ReportMetric(h4.NsPerOp, "heap4-ns/op")
		b.ReportMetric(h4.NsPerOp/min(fl.NsPerOp, soa.NsPerOp), "heap4/floor")
	}
}
