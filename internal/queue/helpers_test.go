package queue_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/levelbits"
)

func mustLB(t testing.TB, bits ...int) levelbits.LevelBits {
	t.Helper()
	lb, err := levelbits.New(bits...)
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
