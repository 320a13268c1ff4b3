package config

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// Each case breaks exactly one of CF1-CF4 in a Config that New would have
// refused, and shows Invariant names it.
func TestInvariantCorruption(t *testing.T) {
	one, err := levelbits.New(1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id string
		c  Config
	}{
		{"CF1", Config{precision: -1, levelBits: one}},
		{"CF1", Config{precision: MaxPrecisionLog2 + 1, levelBits: one}},
		{"CF2", Config{precision: 10, levelBits: levelbits.LevelBits{}}},
		{"CF3", Config{precision: 30, levelBits: levelbits.Default()}},                       // 62 > 62 - 30
		{"CF3", Config{precision: MaxPrecisionLog2, levelBits: levelbits.Default().Trim(2)}}, // 2 > 1
		{"CF4", Config{precision: 10, levelBits: one, capacity: -1}},
	}
	for _, tc := range tests {
		invtest.Expect(t, tc.c.Invariant(), tc.id)
	}
	// The valid neighbours pass: exactly 62 - A bits, capacity 0.
	for _, c := range []Config{
		{precision: 0, levelBits: levelbits.Default()},
		{precision: 30, levelBits: levelbits.Default().Trim(32)},
		{precision: MaxPrecisionLog2, levelBits: one},
	} {
		if err := c.Invariant(); err != nil {
			t.Errorf("%v: %v", c, err)
		}
	}
}
