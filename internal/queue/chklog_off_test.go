//go:build !twcheck

package queue

import (
	"testing"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/internal/checked"
)

// Without -tags twcheck checked mode's state takes no memory: the log a
// Queue holds and the schedule a simclock.Clock holds have no fields, and
// sit inside their structs, not at their ends (where Go would pad a
// zero-size field).
func TestCheckedStateHasNoSize(t *testing.T) {
	if n := unsafe.Sizeof(chkLog{}); n != 0 {
		t.Errorf("chkLog is %d bytes, want 0", n)
	}
	if n := unsafe.Sizeof(checked.Sched{}); n != 0 {
		t.Errorf("checked.Sched is %d bytes, want 0", n)
	}
	var q Queue[int]
	if off, end := unsafe.Offsetof(q.chk), unsafe.Sizeof(q); off == end {
		t.Errorf("Queue.chk is its last field: it adds padding")
	}
}
