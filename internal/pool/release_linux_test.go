//go:build linux

package pool

import (
	"os"
	"runtime"
	"testing"
	"unsafe"
)

const recordSize = unsafe.Sizeof(Record[int64]{})

// pagesOf returns the whole pages inside recs, as a span for resident.
func pagesOf(recs []Record[int64]) hugeSpan {
	pg := uintptr(os.Getpagesize())
	recs = recs[:cap(recs)]
	s := spanOf(unsafe.Pointer(unsafe.SliceData(recs)), uintptr(len(recs))*recordSize, pg)
	if s.n == 0 {
		panic("pagesOf: fewer than four whole pages")
	}
	return s
}

// A pool that grows gives the pages of the array it dropped back to the
// system, after copying the records: the old array's pages are no longer
// resident, and every record is intact in the new one.
func TestGrowReleasesDroppedArray(t *testing.T) {
	defer func(m uintptr) { releaseMin = m }(releaseMin)
	releaseMin = 0 // every dropped array
	p := NewPool[int64](0)
	for len(p.recs) < cap(p.recs) || cap(p.recs) < 64*os.Getpagesize()/int(recordSize) {
		p.Alloc(int64(len(p.recs)), int64(len(p.recs))*7, 1)
	}
	old := p.recs
	s := pagesOf(old)
	if n := resident(t, old, s); n == 0 {
		t.Fatalf("no page of the full array (%d records) is resident before the growth", len(old))
	}
	want := len(p.recs)
	p.Alloc(int64(want), int64(want)*7, 1) // grows
	if &p.recs[1] == &old[1] {
		t.Fatal("the pool did not grow")
	}
	if n := resident(t, old, s); n != 0 {
		t.Errorf("%d of the dropped array's %d pages still resident", n, s.n/uintptr(os.Getpagesize()))
	}
	for i := 1; i <= want; i++ {
		if r := p.recs[i]; r.Time != int64(i) || r.Value != int64(i)*7 || r.State() != 1 {
			t.Fatalf("record %d after the growth: time %d, value %d, state %d", i, r.Time, r.Value, r.State())
		}
	}
}

// Shrink, too, gives the pages of the array it dropped back, after copying
// the records it keeps.
func TestShrinkReleasesDroppedArray(t *testing.T) {
	defer func(m uintptr) { releaseMin = m }(releaseMin)
	releaseMin = 0
	p := NewPool[int64](0)
	n := 64 * os.Getpagesize() / int(recordSize)
	for i := 1; i <= n; i++ {
		p.Alloc(int64(i), int64(i)*7, 1)
	}
	for i := 11; i <= n; i++ {
		p.Free(uint32(i))
	}
	old := p.recs
	s := pagesOf(old)
	p.Shrink(0, func(from, to uint32) {
		t.Fatalf("Shrink moved record %d to %d; all live records are below the cut", from, to)
	})
	if cap(p.recs) >= cap(old) {
		t.Fatalf("Shrink kept %d records of capacity, had %d", cap(p.recs), cap(old))
	}
	if r := resident(t, old, s); r != 0 {
		t.Errorf("%d of the dropped array's pages still resident", r)
	}
	for i := 1; i <= 10; i++ {
		if r := p.recs[i]; r.Time != int64(i) || r.Value != int64(i)*7 || r.State() != 1 {
			t.Fatalf("record %d after Shrink: time %d, value %d, state %d", i, r.Time, r.Value, r.State())
		}
	}
}

// releaseRecords gives back only the whole pages inside the array: in an
// array that starts and ends inside a page, the bytes of those partial
// pages, and everything outside the array, keep their values.
func TestReleaseOnlyWholePagesInside(t *testing.T) {
	defer func(m uintptr) { releaseMin = m }(releaseMin)
	releaseMin = 0
	pg := os.Getpagesize()
	buf := make([]byte, 40*pg)
	for i := range buf {
		buf[i] = 0xAA
	}
	base := uintptr(unsafe.Pointer(&buf[0]))
	off := (pg - int(base%uintptr(pg))) + pg + 40 // 40 bytes into a page
	n := (30*pg + 100) / int(recordSize)          // ends inside a page
	recs := unsafe.Slice((*Record[int64])(unsafe.Pointer(&buf[off])), n)
	releaseRecords(recs)
	lo := (off + pg - 1) / pg * pg // buffer offsets of the whole pages inside
	hi := (off + n*int(recordSize)) / pg * pg
	if hi-lo < 29*pg {
		t.Fatalf("test setup: whole pages [%d, %d) inside the array at %d", lo, hi, off)
	}
	for i, b := range buf {
		inside := i >= lo && i < hi
		if inside && b != 0 || !inside && b != 0xAA {
			t.Fatalf("byte %d (whole pages inside the array: [%d, %d)) reads %#x after the release", i, lo, hi, b)
		}
	}
	runtime.KeepAlive(buf)
}

// At the default threshold (1 MiB), a pool that grows past it gives the
// dropped array's pages back, and one that grows below it does not.
func TestReleaseThreshold(t *testing.T) {
	fill := func(c int) (old []Record[int64]) {
		p := NewPool[int64](0)
		for cap(p.recs) < c || len(p.recs) < cap(p.recs) {
			p.Alloc(1, 1, 1)
		}
		old = p.recs
		p.Alloc(1, 1, 1) // grows
		return old
	}
	big := fill(int(releaseMin/recordSize) + 1)
	if uintptr(cap(big))*recordSize < releaseMin {
		t.Fatalf("test setup: the big array has %d records", cap(big))
	}
	if r := resident(t, big, pagesOf(big)); r != 0 {
		t.Errorf("dropped array of %d bytes (at least %d): %d pages still resident", uintptr(cap(big))*recordSize, releaseMin, r)
	}
	small := fill(int(releaseMin/recordSize) / 4)
	if uintptr(cap(small))*recordSize >= releaseMin {
		t.Fatalf("test setup: the small array has %d records", cap(small))
	}
	s := pagesOf(small)
	if r := resident(t, small, s); r != int(s.n/uintptr(os.Getpagesize())) {
		t.Errorf("dropped array of %d bytes (below %d): %d of %d pages resident, want all", uintptr(cap(small))*recordSize, releaseMin, r, s.n/uintptr(os.Getpagesize()))
	}
}
