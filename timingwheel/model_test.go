package timingwheel_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/proptest"
)

// TestWheelAgainstModel drives the wheel and proptest's reference model with
// the same random operations and compares every observable after each step.
func TestWheelAgainstModel(t *testing.T) {
	proptest.CheckWheel(t)
}

// TestWheelAgainstModelTinyWorlds spends long runs on the smallest wheels,
// where alarms cross levels (and overflow levels) at almost every step.
func TestWheelAgainstModelTinyWorlds(t *testing.T) {
	var cfgs []config.Config
	for _, bits := range [][]int{{1}, {1, 1}, {2, 1}, {1, 1, 1}} {
		lb, err := levelbits.New(bits...)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []config.AlarmPrecision{0, 1} {
			for _, overflow := range []bool{false, true} {
				opts := []config.Option{config.WithLevelBits(lb)}
				if overflow {
					opts = append(opts, config.WithOverflow())
				}
				cfg, err := config.New(p, opts...)
				if err != nil {
					t.Fatal(err)
				}
				cfgs = append(cfgs, cfg)
			}
		}
	}
	proptest.CheckWheel(t, proptest.WithConfigs(cfgs...), proptest.WithSteps(100))
}
