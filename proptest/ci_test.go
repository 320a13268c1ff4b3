package proptest_test

import (
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/proptest"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// The library's wheel and priority queue against reference models.
func TestWheel(t *testing.T) { proptest.CheckWheel(t) }
func TestQueue(t *testing.T) { proptest.CheckQueue(t) }

// Your own wheel: return it from this constructor (here the library's).
// The check calls the methods it has; see proptest.WithWrapper.
func TestMyWheel(t *testing.T) {
	proptest.CheckWheel(t, proptest.WithWrapper(func(cfg config.Config, start time.Time) (*timingwheel.Wheel[string], error) {
		return timingwheel.NewWithConfig[string](cfg, start)
	}))
}
