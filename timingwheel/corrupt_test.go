package timingwheel

// Each case corrupts a wheel's own fields in one way and shows Invariant()
// names the broken invariant (docs/invariants.md, TW1-TW3). The queue's
// invariants have their own corruption tests in internal/queue.

import (
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/internal/invtest"
)

func corruptible(t *testing.T) *Wheel[int] {
	t.Helper()
	cfg, err := config.New(config.AboutOneMicrosecond)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWithConfig[int](cfg, time.Unix(0, 5<<20))
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 20; i++ {
		if _, err := w.Add(time.Unix(0, 5<<20+i*999_983), int(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AdvanceClock(time.Unix(0, 6<<20+77), nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Invariant(); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWheelInvariantCorruption(t *testing.T) {
	tests := []struct {
		id      string
		corrupt func(w *Wheel[int])
	}{
		{"TW1", func(w *Wheel[int]) { w.start = w.now + 1 }},     // start after now
		{"TW1", func(w *Wheel[int]) { w.start = -1 }},            // before the epoch
		{"TW1", func(w *Wheel[int]) { w.now = maxTimeNs + 1 }},   // after MaxTime
		{"TW2", func(w *Wheel[int]) { w.maxIntervalNum++ }},      // stale cached MaxIntervalNum
		{"TW2", func(w *Wheel[int]) { w.shift++ }},               // shift not the precision's
		{"TW3", func(w *Wheel[int]) { w.now += 3 << w.shift }},   // clock moved without the queue
		{"TW3", func(w *Wheel[int]) { w.now -= 1 << w.shift }},   // clock moved back
		{"CF2", func(w *Wheel[int]) { w.cfg = config.Config{} }}, // the config's invariants come first
	}
	for _, tc := range tests {
		w := corruptible(t)
		tc.corrupt(w)
		invtest.Expect(t, w.Invariant(), tc.id)
	}
}
