//go:build linux

package pool

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping that holds address p, read from
// /proc/self/smaps.
func vmFlags(t *testing.T, p unsafe.Pointer) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	a, in := uintptr(p), false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", a)
	return nil
}

// checkSpan fails t unless the pool's marked span is made of whole huge
// pages inside recs and the kernel has it marked (VmFlags "hg").
func checkSpan(t *testing.T, p *Pool[int64], recs []Record[int64]) {
	t.Helper()
	s := p.huge
	if s.n == 0 {
		t.Fatalf("an array of %d records (%d bytes) marked nothing", cap(recs), uintptr(cap(recs))*unsafe.Sizeof(recs[0]))
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(recs)))
	hi := lo + uintptr(cap(recs))*unsafe.Sizeof(recs[0])
	if a := uintptr(s.p); a < lo || a+s.n > hi || a%hugePage != 0 || s.n%hugePage != 0 {
		t.Fatalf("marked span [%#x, %#x) is not whole huge pages inside the records [%#x, %#x)", a, a+s.n, lo, hi)
	}
	if f := vmFlags(t, s.p); !slices.Contains(f, "hg") {
		t.Fatalf("records not marked for huge pages: VmFlags %v", f)
	}
}

// largeRecs is the number of records of the smallest array that is marked.
var largeRecs = int(hugeMin/unsafe.Sizeof(Record[int64]{})) + 1

// moveMark marks the whole huge pages of a large array, marks nothing of a
// small one, and unmarks ("nh") the span it marked before.
func TestMoveMark(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skipf("this kernel has no transparent huge pages: %v", err)
	}
	p := &Pool[int64]{}
	p.moveMark(make([]Record[int64], 1, largeRecs/2))
	if p.huge.n != 0 {
		t.Fatalf("an array of %d records marked %d bytes", largeRecs/2, p.huge.n)
	}
	a := make([]Record[int64], 1, largeRecs)
	p.moveMark(a)
	checkSpan(t, p, a)
	first := p.huge
	b := make([]Record[int64], 1, 2*largeRecs)
	p.moveMark(b)
	checkSpan(t, p, b)
	if f := vmFlags(t, first.p); slices.Contains(f, "hg") || !slices.Contains(f, "nh") {
		t.Fatalf("the array moved from is still marked: VmFlags %v", f)
	}
	p.moveMark(make([]Record[int64], 1, 16))
	if p.huge.n != 0 {
		t.Fatalf("after a move to a small array, the span is %d bytes", p.huge.n)
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
}

// In THP mode "madvise", a pool marks a large record array when it makes it
// and when it grows into a new one, and unmarks the one it drops; a small
// pool marks nothing.
func TestPoolsMarkLargeRecordArrays(t *testing.T) {
	if !thpMadvise() {
		t.Skip("the kernel's THP mode is not madvise: pools mark nothing (TestMoveMark covers the marking)")
	}
	if p := NewPool[int64](1000); p.huge.n != 0 {
		t.Fatalf("a pool of 1000 records marked %d bytes", p.huge.n)
	}
	p := NewPool[int64](largeRecs)
	checkSpan(t, p, p.recs)
	first := p.huge
	var idx []uint32
	for v := range largeRecs + 1 { // one more than the capacity: the pool grows
		idx = append(idx, p.Alloc(int64(v), int64(v), 1))
	}
	checkSpan(t, p, p.recs)
	for v, i := range idx { // the marking drops pages: none of the copied ones
		if r := p.recs[i]; r.Time != int64(v) || r.Value != int64(v) {
			t.Fatalf("after the pool grew, record %d holds time %d, value %d; want %d", i, r.Time, r.Value, v)
		}
	}
	if p.huge.p == first.p {
		t.Fatal("the pool grew but its span is the first array's")
	}
	if f := vmFlags(t, first.p); slices.Contains(f, "hg") {
		t.Fatalf("the dropped array is still marked: VmFlags %v", f)
	}
}
