package workload_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/heaps"
	"github.com/gotimingwheel/timingwheel/cmd/twsim/workload"
)

func wheel(b uint) workload.Timers[alarm.Alarm]   { return workload.NewWheel(b) }
func heap2(b uint) workload.Timers[*heaps.Item]   { return heaps.NewHeap2(b) }
func heap4(b uint) workload.Timers[heaps.Handle4] { return heaps.NewHeap4(b) }

// same checks that results agree on everything but timing (agree, in
// models_test.go).
var same = workload.Agree

// The three implementations fire exactly the same alarms on small versions of
// every workload: same checksums, same counts.
func TestImplementationsAgree(t *testing.T) {
	for _, exact := range []bool{false, true} {
		same(t,
			workload.Hold(wheel, 1000, exact, 30000, true),
			workload.Hold(heap2, 1000, exact, 30000, true),
			workload.Hold(heap4, 1000, exact, 30000, true))
	}
	same(t,
		workload.Timeout(wheel, false, true),
		workload.Timeout(heap2, false, true),
		workload.Timeout(heap4, false, true))
	for _, b := range []uint{0, 10} {
		same(t,
			workload.Sparse(wheel, b, false, true),
			workload.Sparse(heap2, b, false, true),
			workload.Sparse(heap4, b, false, true))
	}
}

// SPARSE fires every alarm it adds, so its checksum is the sum of the times
// mod 2^61, computed here without any timer.
func TestSparseChecksumIsSumOfTimes(t *testing.T) {
	for _, packed := range []bool{false, true} {
		var want uint64
		for _, at := range workload.SparseTimes(packed) {
			want = (want + uint64(at)%(1<<61)) % (1 << 61)
		}
		if r := workload.Sparse(wheel, 0, packed, false); r.Checksum != want {
			t.Fatalf("packed=%v: checksum %d, sum of times %d", packed, r.Checksum, want)
		}
	}
}
