package workload

import (
	"fmt"
	"math"
	"testing"
)

// Check values from docs/workloads.md.
func TestSplitMix64CheckValues(t *testing.T) {
	r := NewSplitMix64(1)
	want := []string{"910a2dec89025cc1", "beeb8da1658eec67", "f893a2eefb32555e", "71c18690ee42c90b", "71bb54d8d101b5b9"}
	for i, w := range want {
		if got := fmt.Sprintf("%016x", r.Next()); got != w {
			t.Fatalf("draw %d: %s, want %s", i, got, w)
		}
	}
}

func TestExpSampleCheckValues(t *testing.T) {
	r := NewSplitMix64(1000)
	want := []int64{267675, 1684005, 1484627, 370813, 1138043, 1820573, 80655, 1047659, 739947, 612720}
	for i, w := range want {
		if got := r.ExpSample(1e6); got != w {
			t.Fatalf("sample %d: %d, want %d", i, got, w)
		}
	}
}

// DetLog agrees with math.Log to a few ulp (docs/workloads.md: "within a few ulp").
func TestDetLogAccuracy(t *testing.T) {
	r := NewSplitMix64(3)
	for i := 0; i < 100000; i++ {
		x := 1.0 - r.Unif()
		got, want := DetLog(x), math.Log(x)
		if d := math.Abs(got - want); d > 8*math.Abs(want)*0x1p-52 && d > 1e-300 {
			t.Fatalf("DetLog(%v) = %v, math.Log = %v", x, got, want)
		}
	}
	if DetLog(1) != 0 {
		t.Fatalf("DetLog(1) = %v", DetLog(1))
	}
}
