//go:build linux

package pool

import (
	"bytes"
	"cmp"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
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
// pool marks its record array when the array spans four huge pages or more
// and the mode is "madvise" (unless the environment's GODEBUG has
// disablethp=1, the runtime's own switch to keep its heap off huge pages; a
// //go:debug line in the program is not seen), and drops the pages the array
// already has, so that they fault in again as huge pages (moveMark says why
// and when that is safe). Only the whole huge pages inside the array are
// marked. The records are used from the start of the array on, so the
// marking makes less than one huge page more resident per array.
//
// The kernel's defrag setting decides what a fault in a marked range does
// when no huge page is free: with the default ("madvise"), it compacts memory
// first, which on a host with fragmented memory can stall the Add that
// touches the page (a grow touches all the pages it copies), and falls back
// to small pages only if that fails.
//
// A pool unmarks (MADV_NOHUGEPAGE) an array it drops (grow, Shrink) at once,
// and the last one when the pool is collected, through a finalizer. Linux
// has no way back to "unmarked": the range keeps the NOHUGEPAGE flag, which
// in mode "madvise" keeps it off huge pages as unmarked memory is (should the
// mode become "always", that range would stay on small pages). Leaving the
// range marked would be worse: once the runtime has returned parts of it to
// the system, the kernel's khugepaged may fill them in again as huge pages,
// memory the runtime believes it has given back. The finalizer runs when the
// runtime may already have handed the range to another pool that marked it,
// so the marks in force are kept in a registry (marked), and a finalizer
// unmarks only what no live mark covers.

// pmdSize returns the kernel's huge page size, 0 if unknown.
func pmdSize() uintptr {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n == 0 || n&(n-1) != 0 || n > 1<<30 {
		return 0
	}
	return uintptr(n)
}

// hugePage is the huge page size when pools mark their arrays, else 0: the
// THP mode is "madvise", the page size is known, and the environment's
// GODEBUG does not set disablethp=1.
var hugePage = sync.OnceValue(func() uintptr {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !bytes.Contains(b, []byte("[madvise]")) {
		return 0
	}
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return 0
		}
	}
	return pmdSize()
})

// hugeSpan is the part of a record array that is marked: its whole huge
// pages, as addresses (a pointer would keep a dropped array alive as long
// as its mark). A zero span marks nothing.
type hugeSpan struct {
	start, n uintptr // huge-page-aligned
}

func (s hugeSpan) end() uintptr { return s.start + s.n }

// spanOf returns the whole huge pages of size hp inside the n bytes at p, or
// a zero span when they are fewer than four.
func spanOf(p unsafe.Pointer, n, hp uintptr) hugeSpan {
	start := (uintptr(p) + hp - 1) &^ (hp - 1)
	end := (uintptr(p) + n) &^ (hp - 1)
	if end < start+4*hp {
		return hugeSpan{}
	}
	return hugeSpan{start, end - start}
}

func (s hugeSpan) advise(advice int) {
	if s.n != 0 {
		// By address: the range is the pool's own array (or, for a
		// finalizer, memory no live mark covers). An error (a kernel
		// without THP) leaves the pages as they were, which is correct,
		// just slower.
		syscall.Syscall(syscall.SYS_MADVISE, s.start, s.n, uintptr(advice))
	}
}

// hugeMark is a pool's mark: its own small object, so that the finalizer
// that unmarks the last span does not keep the pool, and its records,
// alive for one more cycle.
type hugeMark struct {
	id   uint64 // its key in marked.spans (a pointer key would keep it alive)
	span hugeSpan
}

// marked holds the spans marked now, by mark ID, under its lock. A finalizer
// unmarks only the parts of its span that none of them covers.
var marked struct {
	sync.Mutex
	spans  map[uint64]hugeSpan
	lastID uint64
}

// markRecords marks the record array recs, fresh from make (moveMark), which
// the pool now uses in place of the one it marked before (if any), and
// unmarks that one, when pools mark their arrays (hugePage).
func (p *Pool[T]) markRecords(recs []Record[T]) {
	if hp := hugePage(); hp != 0 {
		p.moveMark(recs, hp)
	}
}

// moveMark unmarks the span the pool marked, which is still the pool's and
// nobody else's memory while this runs, and marks the whole huge pages of
// size hp inside recs (none if they are fewer than four).
//
// recs must be fresh from make, all zeros: moveMark also drops the pages
// the span already has (MADV_DONTNEED), which then read as zeros again. The
// runtime often builds a large array in memory it has used before (an
// earlier, smaller copy of the same pool, for one), already backed by small
// pages; a mark alone changes only the pages faulted in after it, so
// without the drop such an array would stay on small pages.
func (p *Pool[T]) moveMark(recs []Record[T], hp uintptr) {
	recs = recs[:cap(recs)]
	span := spanOf(unsafe.Pointer(unsafe.SliceData(recs)), uintptr(len(recs))*unsafe.Sizeof(recs[0]), hp)
	if p.huge == nil && span.n == 0 {
		return
	}
	marked.Lock()
	defer marked.Unlock()
	if p.huge == nil {
		if marked.spans == nil {
			marked.spans = map[uint64]hugeSpan{}
		}
		marked.lastID++
		p.huge = &hugeMark{id: marked.lastID}
		runtime.SetFinalizer(p.huge, dropMark)
	}
	p.huge.span.advise(syscall.MADV_NOHUGEPAGE)
	p.huge.span = span
	marked.spans[p.huge.id] = span
	span.advise(syscall.MADV_HUGEPAGE)
	span.advise(syscall.MADV_DONTNEED)
}

// dropMark unmarks the span of a collected pool's mark, except the parts
// that live marks cover.
func dropMark(m *hugeMark) {
	marked.Lock()
	defer marked.Unlock()
	delete(marked.spans, m.id)
	for _, s := range uncovered(m.span, marked.spans) {
		s.advise(syscall.MADV_NOHUGEPAGE)
	}
}

// uncovered returns the parts of s that none of the spans in live covers.
func uncovered(s hugeSpan, live map[uint64]hugeSpan) []hugeSpan {
	if s.n == 0 {
		return nil
	}
	var over []hugeSpan
	for _, o := range live {
		if o.n != 0 && o.start < s.end() && s.start < o.end() {
			over = append(over, o)
		}
	}
	slices.SortFunc(over, func(a, b hugeSpan) int { return cmp.Compare(a.start, b.start) })
	var out []hugeSpan
	at := s.start
	for _, o := range over {
		if o.start > at {
			out = append(out, hugeSpan{at, o.start - at})
		}
		at = max(at, o.end())
	}
	if at < s.end() {
		out = append(out, hugeSpan{at, s.end() - at})
	}
	return out
}
