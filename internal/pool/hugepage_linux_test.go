//go:build linux

package pool

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// mapping is one mapping of /proc/self/smaps: its range and its VmFlags.
type mapping struct {
	lo, hi uintptr
	flags  []string
}

// mappingAt returns the mapping that holds address a. It skips the test
// when /proc/self/smaps is missing or has no VmFlags.
func mappingAt(t *testing.T, a uintptr) mapping {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var m mapping
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= a && a < hi
			m = mapping{lo: lo, hi: hi}
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			m.flags = strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
			return m
		}
	}
	if in {
		t.Skip("/proc/self/smaps has no VmFlags")
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", a)
	return m
}

// checkMarked fails t unless span s is made of at least four whole huge
// pages inside recs and lies in one mapping marked for huge pages ("hg").
func checkMarked(t *testing.T, s hugeSpan, recs []Record[int64], hp uintptr) {
	t.Helper()
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(recs)))
	hi := lo + uintptr(cap(recs))*unsafe.Sizeof(recs[0])
	if s.n < 4*hp || s.start < lo || s.end() > hi || s.start%hp != 0 || s.n%hp != 0 {
		t.Fatalf("marked span [%#x, %#x) is not four or more whole huge pages inside the records [%#x, %#x)", s.start, s.end(), lo, hi)
	}
	m := mappingAt(t, s.start)
	if m.hi < s.end() {
		t.Fatalf("the mapping [%#x, %#x) ends inside the span [%#x, %#x): not all of it has the same flags", m.lo, m.hi, s.start, s.end())
	}
	if !slices.Contains(m.flags, "hg") {
		t.Fatalf("records not marked for huge pages: VmFlags %v", m.flags)
	}
}

// checkUnmarked fails t unless the span is flagged NOHUGEPAGE ("nh").
func checkUnmarked(t *testing.T, s hugeSpan) {
	t.Helper()
	m := mappingAt(t, s.start)
	if slices.Contains(m.flags, "hg") || !slices.Contains(m.flags, "nh") || m.hi < s.end() {
		t.Fatalf("span [%#x, %#x) not unmarked: mapping [%#x, %#x), VmFlags %v", s.start, s.end(), m.lo, m.hi, m.flags)
	}
}

// resident returns how many pages of span s, inside recs, are resident
// (mincore).
func resident(t *testing.T, recs []Record[int64], s hugeSpan) int {
	t.Helper()
	base := unsafe.Pointer(unsafe.SliceData(recs))
	p := unsafe.Add(base, s.start-uintptr(base))
	vec := make([]byte, (s.n+uintptr(os.Getpagesize())-1)/uintptr(os.Getpagesize()))
	if _, _, e := syscall.Syscall(syscall.SYS_MINCORE, uintptr(p), s.n, uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); e != 0 {
		t.Skipf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// hugePageSize returns the kernel's huge page size or skips the test.
func hugePageSize(t *testing.T) uintptr {
	hp := pmdSize()
	if hp == 0 {
		t.Skip("this kernel has no transparent huge pages")
	}
	return hp
}

// recsFor returns how many records make an array of four huge pages, and
// one more huge page so that its inner whole pages are four.
func recsFor(hp uintptr) int { return int(5*hp/unsafe.Sizeof(Record[int64]{})) + 1 }

// moveMark marks the whole huge pages of a large array and drops the pages
// it had, marks nothing of a small one, and unmarks ("nh") the span it
// marked before.
func TestMoveMark(t *testing.T) {
	hp := hugePageSize(t)
	n := recsFor(hp)
	p := &Pool[int64]{}
	p.moveMark(make([]Record[int64], 1, n/4), hp)
	if p.huge != nil {
		t.Fatalf("an array of %d records marked %d bytes", n/4, p.huge.span.n)
	}

	a := make([]Record[int64], n)
	for i := range a { // make every page resident: the mark must drop them
		a[i].Next = 0
	}
	span := spanOf(unsafe.Pointer(unsafe.SliceData(a)), uintptr(len(a))*unsafe.Sizeof(a[0]), hp)
	if n := resident(t, a, span); n == 0 {
		t.Fatal("no page of the array is resident before the mark: the check after it would prove nothing")
	}
	p.moveMark(a, hp)
	t.Cleanup(func() { dropMark(p.huge) })
	checkMarked(t, p.huge.span, a, hp)
	if n := resident(t, a, p.huge.span); n != 0 {
		t.Fatalf("%d pages of the marked span are still resident: its small pages were not dropped", n)
	}
	first := p.huge.span

	b := make([]Record[int64], 1, 2*n)
	p.moveMark(b, hp)
	checkMarked(t, p.huge.span, b, hp)
	checkUnmarked(t, first)

	p.moveMark(make([]Record[int64], 1, 16), hp)
	if p.huge.span.n != 0 {
		t.Fatalf("after a move to a small array, the span is %d bytes", p.huge.span.n)
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
}

// When a pool is collected, its finalizer unmarks its span, except the
// parts that a live mark covers: the runtime may have given that memory to
// another pool, which marked it, before the finalizer runs.
func TestDropMark(t *testing.T) {
	hp := hugePageSize(t)
	a := make([]Record[int64], 1, recsFor(hp))
	p := &Pool[int64]{}
	p.moveMark(a, hp)
	s := p.huge.span

	// Another mark, live, over the second huge page of the span.
	other := hugeSpan{s.start + hp, hp}
	marked.Lock()
	marked.lastID++
	id := marked.lastID
	marked.spans[id] = other
	marked.Unlock()
	dropMark(p.huge)
	checkUnmarked(t, hugeSpan{s.start, hp})
	checkUnmarked(t, hugeSpan{s.start + 2*hp, s.n - 2*hp})
	if m := mappingAt(t, other.start); !slices.Contains(m.flags, "hg") {
		t.Fatalf("the part a live mark covers was unmarked: VmFlags %v", m.flags)
	}
	marked.Lock()
	delete(marked.spans, id)
	marked.Unlock()
	other.advise(syscall.MADV_NOHUGEPAGE) // leave the range as the rest
	runtime.KeepAlive(a)
}

// A pool that is collected unmarks its array: the finalizer runs and takes
// its mark out of the registry.
func TestCollectedPoolUnmarks(t *testing.T) {
	hp := hugePageSize(t)
	defer func(old func() uintptr) { hugePage = old }(hugePage)
	hugePage = func() uintptr { return hp }
	p := NewPool[int64](recsFor(hp))
	if p.huge == nil {
		t.Fatal("a large pool marked nothing")
	}
	s, id := p.huge.span, p.huge.id
	checkMarked(t, s, p.recs, hp)
	p = nil
	for i := 0; ; i++ {
		runtime.GC()
		marked.Lock()
		_, live := marked.spans[id]
		marked.Unlock()
		if !live {
			break
		}
		if i == 100 {
			t.Fatal("the pool's mark is still registered after 100 collections: its finalizer did not run")
		}
		time.Sleep(time.Millisecond)
	}
	// The runtime may have reused the range since, but nothing in this
	// test marks memory now, so all of it must be unmarked.
	checkUnmarked(t, s)
}

func TestUncovered(t *testing.T) {
	live := map[uint64]hugeSpan{
		1: {10, 5},  // [10, 15)
		2: {12, 10}, // [12, 22): overlaps 1
		3: {30, 5},  // [30, 35)
		4: {50, 5},  // outside
		5: {},
	}
	got := uncovered(hugeSpan{0, 40}, live)
	want := []hugeSpan{{0, 10}, {22, 8}, {35, 5}}
	if !slices.Equal(got, want) {
		t.Fatalf("uncovered([0, 40)) = %v, want %v", got, want)
	}
	nested := map[uint64]hugeSpan{1: {10, 10}, 2: {12, 2}, 3: {20, 10}}
	got = uncovered(hugeSpan{0, 40}, nested)
	want = []hugeSpan{{0, 10}, {30, 10}}
	if !slices.Equal(got, want) {
		t.Fatalf("uncovered([0, 40)) with nested and touching spans = %v, want %v", got, want)
	}
	if got := uncovered(hugeSpan{12, 3}, live); len(got) != 0 {
		t.Fatalf("uncovered([12, 15)) = %v, want nothing", got)
	}
	if got := uncovered(hugeSpan{}, live); len(got) != 0 {
		t.Fatalf("uncovered(empty) = %v, want nothing", got)
	}
}

// The marking drops the pages of the array it marks, so it must come before
// the copy: a pool that grows or shrinks keeps every record, whatever the
// kernel's THP mode (the test makes pools mark as in mode "madvise").
func TestMarkingKeepsRecords(t *testing.T) {
	hp := hugePageSize(t)
	defer func(old func() uintptr) { hugePage = old }(hugePage)
	hugePage = func() uintptr { return hp }

	n := recsFor(hp) + 1000
	p := NewPool[int64](0)
	t.Cleanup(func() {
		if p.huge != nil {
			dropMark(p.huge)
		}
	})
	idx := make([]uint32, n)
	for v := range idx { // grows several times, the last arrays marked
		idx[v] = p.Alloc(int64(v), int64(v)+1, 1)
	}
	if p.huge == nil || p.huge.span.n == 0 {
		t.Fatal("a pool grown to a large array marked nothing")
	}
	check := func(what string, upto int) {
		t.Helper()
		for v, i := range idx[:upto] {
			if r := p.recs[i]; r.Time != int64(v) || r.Value != int64(v)+1 {
				t.Fatalf("after %s, record %d holds time %d, value %d; want %d, %d", what, i, r.Time, r.Value, v, v+1)
			}
		}
	}
	check("growing", n)
	for _, i := range idx[n-1000:] { // free the top records: Shrink cuts them
		p.Free(i)
	}
	before := p.huge.span
	p.Shrink(0, func(from, to uint32) { t.Fatalf("Shrink moved %d to %d", from, to) })
	if p.huge.span == before || p.huge.span.n == 0 {
		t.Fatal("Shrink made no new marked array")
	}
	check("Shrink", n-1000)
}

// In THP mode "madvise", a pool marks a large record array when it makes it
// and when it grows into a new one, and unmarks the one it drops; a small
// pool marks nothing.
func TestPoolsMarkLargeRecordArrays(t *testing.T) {
	hp := hugePage()
	if hp == 0 {
		t.Skip("the kernel's THP mode is not madvise, or GODEBUG has disablethp=1: pools mark nothing")
	}
	if p := NewPool[int64](1000); p.huge != nil {
		t.Fatalf("a pool of 1000 records marked %d bytes", p.huge.span.n)
	}
	n := recsFor(hp)
	p := NewPool[int64](n)
	t.Cleanup(func() { dropMark(p.huge) })
	checkMarked(t, p.huge.span, p.recs, hp)
	first := p.huge.span
	for range n + 1 { // one more than the capacity: the pool grows
		p.Alloc(1, 1, 1)
	}
	checkMarked(t, p.huge.span, p.recs, hp)
	if p.huge.span == first {
		t.Fatal("the pool grew but its span is the first array's")
	}
	checkUnmarked(t, first)
}
