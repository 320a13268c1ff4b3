//go:build linux

package pool

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Dropped record arrays go back to the system at once (Linux).
//
// A pool that grows copies its records to a larger array and drops the old
// one; grown to 1e7 records (doubling up to 65,536, then by an eighth at a
// time), it drops about eight times its final size on the way. The collector frees those
// arrays only at its next cycle, and the runtime returns freed memory to the
// system slowly, while a growing pool seldom fits its next, larger array
// into the holes: a HOLD wheel of 1e7 alarms grown on demand peaked at about
// four times its live heap in resident memory (docs/performance.md, phase
// 7). So the pool gives the whole pages of an array it has just dropped
// (grow and Shrink, after the copy) back to the system with
// madvise(MADV_DONTNEED), which the runtime itself uses to return memory.
// Nothing reads the dropped array any more (the pool held the only
// reference, and no code keeps a *Record across a call that may grow or
// shrink the pool), but it must stay allocated until the call returns, or
// the collector could free it and hand its pages to another object first:
// releaseRecords keeps it alive past the call. A collection under way that
// scans it finds zeros, nil pointers, where the values were; the copy into
// the new array ran the write barrier, which keeps their referents alive.
// When the runtime frees the array and hands its memory out again, it
// zeroes it as it does any freed memory, and the pages fault back in. The
// call and those faults land on the Add that grows the pool (or on
// Shrink). In THP mode "always" the release also breaks up the huge pages
// the array had.

// releaseMin is the array size in bytes from which a dropped array's pages
// are given back: below it, the memory is likely reused soon, and the
// system call and the faults that follow would cost more than they save.
var releaseMin uintptr = 1 << 20

// releaseRecords gives the whole pages inside recs, a record array the pool
// has just dropped, back to the system, when the array is releaseMin bytes
// or more. recs must no longer be read: its pages read as zeros afterwards.
func releaseRecords[T any](recs []Record[T]) {
	recs = recs[:cap(recs)]
	n := uintptr(len(recs)) * unsafe.Sizeof(Record[T]{})
	if n == 0 || n < releaseMin {
		return
	}
	pg := uintptr(os.Getpagesize())
	p := uintptr(unsafe.Pointer(unsafe.SliceData(recs)))
	start, end := (p+pg-1)&^(pg-1), (p+n)&^(pg-1)
	if end > start {
		// An error leaves the pages resident, which is correct, just larger.
		syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED)
	}
	// The addresses above are plain numbers: without this, recs could be
	// collected, and its pages given to another object, before the call.
	runtime.KeepAlive(recs)
}
