package proptest_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest"
)

func TestCheckWheel(t *testing.T) { proptest.CheckWheel(t) }

func TestCheckQueue(t *testing.T) { proptest.CheckQueue(t) }
