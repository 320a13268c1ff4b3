package timingwheel_test

import (
	"slices"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// recoverCall runs f and reports whether it panicked.
func recoverCall(f func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	f()
	return false
}

// A call that starts with overdue alarms (left by a panicking handler) fires
// them first, and never fires in the same call an alarm that one of its own
// handlers added: what a call fires is fixed before its first handler runs.
func TestRecoveryCallDoesNotFireWhatItsHandlersAdd(t *testing.T) {
	start := time.Unix(0, 0)
	calls := map[string]func(w *timingwheel.Wheel[string], h func(timingwheel.Fired[string])){
		"FirePastAlarms": func(w *timingwheel.Wheel[string], h func(timingwheel.Fired[string])) { w.FirePastAlarms(h) },
		"AdvanceClockStopAtNextAlarm": func(w *timingwheel.Wheel[string], h func(timingwheel.Fired[string])) {
			if err := w.AdvanceClockStopAtNextAlarm(timingwheel.MaxTime, h); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			cfg, err := config.New(config.OneNanosecond)
			if err != nil {
				t.Fatal(err)
			}
			w, err := timingwheel.NewWithConfig[string](cfg, start)
			if err != nil {
				t.Fatal(err)
			}
			mustAdd := func(ns int64, v string) {
				if _, err := w.Add(start.Add(time.Duration(ns)), v); err != nil {
					t.Fatal(err)
				}
			}
			mustAdd(0, "a")
			mustAdd(0, "b")
			// The first handler panics: "b" stays due.
			if !recoverCall(func() { w.FirePastAlarms(func(timingwheel.Fired[string]) { panic("boom") }) }) {
				t.Fatal("the handler's panic did not reach the caller")
			}
			if err := w.Invariant(); err != nil {
				t.Fatalf("after the panic: %v", err)
			}
			var fired []string
			handler := func(ev timingwheel.Fired[string]) {
				a := ev.Alarm

				v, err := w.AlarmValue(a)
				if err != nil {
					t.Fatalf("AlarmValue in handler: %v", err)
				}
				fired = append(fired, v)
				if v == "b" {
					mustAdd(w.Now().UnixNano(), "c") // due now, but added by this call
				}
			}
			call(w, handler)
			if want := []string{"b"}; !slices.Equal(fired, want) {
				t.Fatalf("%s after a panic fired %q, want %q", name, fired, want)
			}
			if w.Len() != 1 {
				t.Fatalf("Len %d after the recovery call, want 1 (c)", w.Len())
			}
			fired = nil
			call(w, handler)
			if want := []string{"c"}; !slices.Equal(fired, want) {
				t.Fatalf("the next %s fired %q, want %q", name, fired, want)
			}
			if err := w.Invariant(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
