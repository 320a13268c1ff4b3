//go:build twcheck

package timingwheel

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// In checked mode a wheel's call checks the wheel's own invariants after
// every call (they cost O(1)), and the panic names the wheel's call, its
// arguments and the ID; the queue's part is the queue's local checks
// (internal/queue's tests).
func TestCheckedWheelCallNamesCallAndID(t *testing.T) {
	for _, c := range []struct {
		name    string
		corrupt func(w *Wheel[int])
		call    func(w *Wheel[int])
		want    []string
	}{
		{"start after now", func(w *Wheel[int]) { w.start = w.now + 1 },
			func(w *Wheel[int]) { w.Add(w.Now().Add(time.Millisecond), 1) }, []string{"timingwheel.Add[", "TW1"}},
		{"max interval", func(w *Wheel[int]) { w.maxIntervalNum-- },
			func(w *Wheel[int]) { w.AdvanceClock(w.Now().Add(time.Microsecond), nil) }, []string{"timingwheel.AdvanceClock[", "TW2"}},
		{"clock off the queue's interval", func(w *Wheel[int]) { w.now += 4 << w.shift },
			func(w *Wheel[int]) { w.FirePastAlarms(nil) }, []string{"timingwheel.FirePastAlarms[]", "TW3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := corruptible(t)
			c.corrupt(w)
			var msg string
			func() {
				defer func() { msg = fmt.Sprint(recover()) }()
				c.call(w)
			}()
			for _, s := range c.want {
				if !strings.Contains(msg, s) {
					t.Fatalf("panic %q, want it to name %q", msg, s)
				}
			}
		})
	}
}
