package mutant_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/proptest"
	"github.com/gotimingwheel/timingwheel/proptest/exhaustive"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// The killers of this package: checks this repository ships, gathered here
// so that the mutation runner (kill_test.go) can run them against each
// mutant's build. They are slow, so they run only in a child the runner
// starts (TW_MUTANT names the mutant, or "none" for the unpatched build,
// where every killer must pass).

func child(t *testing.T) {
	if os.Getenv("TW_MUTANT") == "" {
		t.Skip("a killer runs only under the mutation runner (TestMutantsKilled)")
	}
}

// tinyConfigs are the small worlds' configs: levels turn over every few
// nanoseconds, so cascades, clamps and level changes happen in short runs.
func tinyConfigs() []config.Config {
	var cfgs []config.Config
	for _, w := range exhaustive.SmallWorlds() {
		cfgs = append(cfgs, w.Config)
	}
	return cfgs
}

// smallModeConfigs are configs whose level 0 has 8 to 32 slots: enough for
// a small mode (a radix heap of 1 to 4 elements that grows to 128 to 512
// while most keys lie beyond level 0), so that a short run enters it, spills
// to the levels and comes back. The tiny configs have no small mode.
func smallModeConfigs() []config.Config {
	var cfgs []config.Config
	for _, bits := range [][]int{{3, 2}, {4, 2, 1}, {5, 3}} {
		for _, prec := range []int{0, 1} {
			cfgs = append(cfgs, exhaustive.NewWorld(bits, prec, false, time.Unix(0, 0)).Config)
		}
	}
	return cfgs
}

// TestKillCheckWheel is proptest.CheckWheel with its defaults: random
// configs and operations against the model (-rapid.checks bounds it).
func TestKillCheckWheel(t *testing.T) {
	child(t)
	proptest.CheckWheel(t)
}

// TestKillCheckWheelTiny is proptest.CheckWheel restricted to the tiny
// configs of the small worlds.
func TestKillCheckWheelTiny(t *testing.T) {
	child(t)
	proptest.CheckWheel(t, proptest.WithConfigs(tinyConfigs()...))
}

// TestKillCheckQueue is proptest.CheckQueue: the priority queue alone against
// its model.
func TestKillCheckQueue(t *testing.T) {
	child(t)
	proptest.CheckQueue(t)
}

// TestKillExhaustive is the exhaustive check of every small world to depth 4,
// stopping at the first failure.
func TestKillExhaustive(t *testing.T) {
	child(t)
	for _, w := range exhaustive.SmallWorlds() {
		if _, err := exhaustive.Run(w, exhaustive.Options{Depth: 4, MaxLive: 3}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKillInvariantOnly drives tiny wheels, and wheels with a small mode,
// with random operations and checks nothing but Invariant() after each: it
// shows which bugs the structural invariants catch without any model.
func TestKillInvariantOnly(t *testing.T) {
	child(t)
	cfgs := append(tinyConfigs(), smallModeConfigs()...)
	rapid.Check(t, func(rt *rapid.T) {
		cfg := cfgs[rapid.IntRange(0, len(cfgs)-1).Draw(rt, "config")]
		start := time.Unix(0, rapid.SampledFrom([]int64{0, 1<<40 + 3, 1<<62 - 1 - 40}).Draw(rt, "start"))
		w, err := timingwheel.NewWithConfig[int](cfg, start)
		if err != nil {
			rt.Fatal(err)
		}
		var live []alarm.Alarm
		var dead []alarm.Alarm
		prec := int64(w.AlarmPrecision())
		type boom struct{}
		for range rapid.IntRange(1, 40).Draw(rt, "steps") {
			now := w.Now().UnixNano()
			when := func(label string) time.Time {
				reach := w.MaxAllowedAlarmTime().UnixNano() - now
				return time.Unix(0, now-prec+rapid.Int64Range(0, reach+2*prec).Draw(rt, label))
			}
			pick := func(label string) alarm.Alarm {
				all := append(append([]alarm.Alarm{}, live...), dead...)
				if len(all) == 0 {
					return alarm.Alarm{}
				}
				return all[rapid.IntRange(0, len(all)-1).Draw(rt, label)]
			}
			panics := rapid.IntRange(0, 4).Draw(rt, "panics") == 0
			fired := func(timingwheel.Fired[int]) {
				if panics {
					panic(boom{})
				}
			}
			guard := func(f func()) {
				defer func() {
					if r := recover(); r != nil {
						if _, ok := r.(boom); !ok {
							panic(r)
						}
					}
				}()
				f()
			}
			to := func(label string) time.Time {
				if rapid.IntRange(0, 9).Draw(rt, label+"End") == 0 {
					return timingwheel.MaxTime
				}
				d := w.MaxAllowedAlarmTime().UnixNano() - now // up to three reaches ahead, not past MaxTime
				if rest := int64(1<<62-1) - now; d > (rest-2)/3 {
					d = rest
				} else {
					d = 3*d + 2
				}
				return time.Unix(0, now+rapid.Int64Range(0, d).Draw(rt, label))
			}
			switch rapid.IntRange(0, 8).Draw(rt, "op") {
			case 0, 1:
				if a, err := w.Add(when("at"), 0); err == nil {
					live = append(live, a)
				}
			case 2:
				a := pick("remove")
				if w.Remove(a) == nil {
					dead = append(dead, a)
				}
			case 3:
				_ = w.Reschedule(pick("resched"), when("reschedAt"))
			case 4:
				guard(func() { _ = w.AdvanceClock(to("to"), fired) })
			case 5:
				guard(func() { _, _, _ = w.AdvanceClockLimit(to("limitTo"), rapid.IntRange(1, 3).Draw(rt, "limit"), fired) })
			case 6:
				guard(func() { w.FirePastAlarms(fired) })
			case 7:
				guard(func() { _ = w.AdvanceClockStopAtNextAlarm(to("stopTo"), fired) })
			case 8:
				if rapid.Bool().Draw(rt, "clear") {
					w.Clear()
				} else {
					w.Shrink()
				}
			}
			if err := w.Invariant(); err != nil {
				rt.Fatalf("Invariant: %v", err)
			}
		}
	})
}

// TestKillOverflowReach checks a promise of WithOverflow directly: with overflow levels a
// wheel accepts alarms up to MaxTime whatever its level bits and precision,
// and fires one there.
func TestKillOverflowReach(t *testing.T) {
	child(t)
	for _, bits := range [][]int{{1}, {2}, {1, 1}, {2, 1}, {1, 1, 1}, {2, 2}, {3, 2}, {11, 10, 10}} {
		for _, prec := range []int{0, 1, 5, 20, 46} {
			lb, err := levelbits.New(bits...)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.New(config.AlarmPrecision(prec), config.WithLevelBits(lb), config.WithOverflow())
			if err != nil {
				t.Fatal(err)
			}
			w, err := timingwheel.NewWithConfig[int](cfg, time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			if got := w.MaxAllowedAlarmTime(); !got.Equal(timingwheel.MaxTime) {
				t.Fatalf("%v: MaxAllowedAlarmTime %v, want MaxTime %v", cfg, got, timingwheel.MaxTime)
			}
			if _, err := w.Add(timingwheel.MaxTime, 1); err != nil {
				t.Fatalf("%v: Add(MaxTime): %v", cfg, err)
			}
		}
	}
}

// TestKillEqualTimes drives wheels of three or more levels (tiny bits, some
// with overflow levels) with many alarms at equal times, added at different
// moments so that they sit on different levels, and small advances; it
// replays each run as a trace with proptest.ReplayText, which compares every
// call with the reference model. Runs are seeded 1..N, so a failure names
// its seed and operations.
func TestKillEqualTimes(t *testing.T) {
	child(t)
	var cfgs []config.Config
	for _, c := range tinyConfigs() {
		if c.QueueLevelBits().Len() >= 3 {
			cfgs = append(cfgs, c)
		}
	}
	for seed := uint64(1); seed <= 20000; seed++ {
		r := rand.New(rand.NewPCG(seed, 0))
		cfg := cfgs[r.IntN(len(cfgs))]
		start := time.Unix(0, 1<<40+3)
		w, err := timingwheel.NewWithConfig[int](cfg, start)
		if err != nil {
			t.Fatal(err)
		}
		bits := strings.ReplaceAll(strings.Trim(fmt.Sprint(cfg.LevelBits().Bits()), "[]"), " ", ",")
		trace := []string{fmt.Sprintf("wheel precision=%d bits=%s capacity=%d overflow=%v start=%d # seed %d",
			cfg.Precision().Log2(), bits, cfg.Capacity(), cfg.Overflow(), start.UnixNano(), seed)}
		var times []int64
		prec := int64(w.AlarmPrecision())
		id := 1 // the id the next add takes: a failed add takes none
		for range 30 {
			now := w.Now().UnixNano()
			if r.IntN(2) == 0 {
				at := now + r.Int64N(w.MaxAllowedAlarmTime().UnixNano()-now+1)
				if len(times) > 0 && r.IntN(2) == 0 {
					at = times[r.IntN(len(times))] // the same time as an earlier alarm
				}
				trace = append(trace, fmt.Sprintf("Add %d %d", at, id))
				if _, err := w.Add(time.Unix(0, at), id); err == nil {
					times = append(times, at)
					id++
				}
				continue
			}
			to := time.Unix(0, now+1+r.Int64N(8*prec))
			_ = w.AdvanceClock(to, nil)
			trace = append(trace, fmt.Sprintf("AdvanceClock %d", to.UnixNano()))
		}
		proptest.ReplayText(t, strings.Join(trace, "\n"))
	}
}
