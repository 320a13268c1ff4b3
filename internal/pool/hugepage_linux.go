//go:build linux

package pool

import (
	"bytes"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// Large record arrays on transparent huge pages (Linux).
//
// A pool of millions of records is read at random: each fire and each cascade
// touches a record far from the last one. With 4 KiB pages every such access
// also misses the TLB, and once the page tables outgrow the caches (a 2.4 GB
// pool has 4.8 MB of them) the page walk is a second trip to memory. Backed
// by 2 MiB pages, the same pool needs 512 times fewer translations.
//
// Linux backs anonymous memory with huge pages on its own only in THP mode
// "always"; in mode "madvise", the default of many distributions, only ranges
// marked with madvise(MADV_HUGEPAGE), and the Go runtime marks none. So a
// pool marks its record array when the array spans hugeMin bytes or more and
// the mode is "madvise", and drops the pages the array already has, so that
// they fault in again as huge pages (moveMark says why and when that is
// safe). Only the whole 2 MiB pages inside the array are marked. The
// records are used from the start of the array on, so the marking makes
// less than 2 MiB more resident per array; where the kernel has no huge
// page free, it falls back to small pages.
//
// When a pool drops an array (grow, Shrink), it unmarks it
// (MADV_NOHUGEPAGE, which in mode "madvise" has the effect of no mark), so
// that the runtime's later use of that memory is as it would be without the
// pool. The last array of a pool that is collected stays marked, and the
// runtime uses that range as it uses all of its memory in mode "always" (the
// kernel's khugepaged, for one, may back again with huge pages parts that
// the runtime has returned). A finalizer could unmark it, but it runs when
// the runtime may already have given the range to a new pool that marked
// it: tests that made pools in a loop lost their marks that way.

const (
	hugePage = 2 << 20
	// hugeMin is the smallest record array marked: four huge pages (8 MiB,
	// about 350,000 records of 24 bytes).
	hugeMin = 4 * hugePage
)

// thpMadvise reports whether the kernel's THP mode is "madvise".
var thpMadvise = sync.OnceValue(func() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
})

// hugeSpan is the part of a record array that is marked: its whole huge
// pages. A zero span marks nothing.
type hugeSpan struct {
	p unsafe.Pointer // first byte, 2 MiB-aligned
	n uintptr        // bytes, a multiple of 2 MiB
}

// spanOf returns the whole huge pages inside the n bytes at p, or a zero span
// when the array is too small to be marked.
func spanOf(p unsafe.Pointer, n uintptr) hugeSpan {
	if n < hugeMin {
		return hugeSpan{}
	}
	start := (uintptr(p) + hugePage - 1) &^ (hugePage - 1)
	end := (uintptr(p) + n) &^ (hugePage - 1)
	return hugeSpan{unsafe.Add(p, start-uintptr(p)), end - start}
}

func (s hugeSpan) advise(advice int) {
	if s.n != 0 {
		// An error (an old kernel without THP) leaves the pages as they
		// were, which is correct, just slower.
		_ = syscall.Madvise(unsafe.Slice((*byte)(s.p), s.n), advice)
	}
}

// markRecords marks the record array recs, fresh from make (moveMark), which
// the pool now uses in place of the one it marked before (if any), and
// unmarks that one, when the THP mode is "madvise".
func (p *Pool[T]) markRecords(recs []Record[T]) {
	if thpMadvise() {
		p.moveMark(recs)
	}
}

// moveMark unmarks the span the pool marked, which is still the pool's and
// nobody else's memory while this runs, and marks the whole huge pages of
// recs (none if recs is smaller than hugeMin).
//
// recs must be fresh from make, all zeros: moveMark also drops the pages
// the span already has (MADV_DONTNEED), which then read as zeros again. The
// runtime often builds a large array in memory it has used before (an
// earlier, smaller copy of the same pool, for one), already backed by small
// pages; a mark alone changes only the pages faulted in after it, so
// without the drop such an array would stay on small pages.
func (p *Pool[T]) moveMark(recs []Record[T]) {
	recs = recs[:cap(recs)]
	span := spanOf(unsafe.Pointer(unsafe.SliceData(recs)), uintptr(len(recs))*unsafe.Sizeof(recs[0]))
	p.huge.advise(syscall.MADV_NOHUGEPAGE)
	p.huge = span
	span.advise(syscall.MADV_HUGEPAGE)
	span.advise(syscall.MADV_DONTNEED)
}
