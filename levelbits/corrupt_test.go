package levelbits

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
)

// Each test builds a LevelBits that New would refuse, bypassing New, and
// shows that Invariant reports the broken invariant's ID.
func TestInvariantCorruption(t *testing.T) {
	tests := []struct {
		id   string
		bits []int
	}{
		{"LB1", nil},
		{"LB1", []int{}},
		{"LB2", []int{0}},
		{"LB2", []int{5, -1, 5}},
		{"LB2", []int{11, 10, 0}},
		{"LB3", []int{63}},
		{"LB3", []int{11, 10, 10, 10, 10, 10, 2}},
		{"LB3", []int{31, 32}},
	}
	for _, tc := range tests {
		invtest.Expect(t, LevelBits{bits: tc.bits}.Invariant(), tc.id)
	}
	// And the valid neighbours of those corruptions pass.
	for _, bits := range [][]int{{1}, {5, 1, 5}, {11, 10, 10, 10, 10, 10, 1}, {31, 31}, {62}} {
		if err := (LevelBits{bits: bits}).Invariant(); err != nil {
			t.Errorf("%v: %v", bits, err)
		}
	}
}
