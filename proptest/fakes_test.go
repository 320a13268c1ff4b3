package proptest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
	"github.com/gotimingwheel/timingwheel/proptest/internal/harness"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Buggy fakes: real structures with one deliberate bug each. The checks must
// catch every one and print a trace that replays to the same failure on the
// fake, and that trace must replay cleanly on the real structure.

// droppingWheel loses the second alarm each AdvanceClock fires: removed from
// the wheel, never reported.
type droppingWheel struct{ *timingwheel.Wheel[int] }

func (w droppingWheel) AdvanceClock(to time.Time, fired func(timingwheel.Fired[int])) error {
	n := 0
	return w.Wheel.AdvanceClock(to, func(ev timingwheel.Fired[int]) {
		if n++; n != 2 && fired != nil {
			fired(ev)
		}
	})
}

// earlyNextWheel answers NextAlarmFiresAt with the start of the minimum
// interval instead of the one after it.
type earlyNextWheel struct{ *timingwheel.Wheel[int] }

func (w earlyNextWheel) NextAlarmFiresAt() (time.Time, bool) {
	t, ok := w.Wheel.NextAlarmFiresAt()
	if ok {
		t = t.Add(-w.AlarmPrecision())
	}
	return t, ok
}

// laxRemoveWheel accepts the removal of a handle that is not a member.
type laxRemoveWheel struct{ *timingwheel.Wheel[int] }

func (w laxRemoveWheel) Remove(a alarm.Alarm) error {
	if !w.Mem(a) {
		return nil
	}
	return w.Wheel.Remove(a)
}

// silentQueue does not report the second element an increase removes.
type silentQueue struct{ *priorityqueue.Queue[int] }

func (q silentQueue) IncreaseMinAllowedKey(key int64, removed func(priorityqueue.Element[int])) error {
	n := 0
	return q.Queue.IncreaseMinAllowedKey(key, func(ev priorityqueue.Element[int]) {
		if n++; n != 2 && removed != nil {
			removed(ev)
		}
	})
}

// wideQueue claims one key more than the queue accepts.
type wideQueue struct{ *priorityqueue.Queue[int] }

func (q wideQueue) MaxAllowedKey() int64 { return q.Queue.MaxAllowedKey() + 1 }

func fakeWheel(wrap func(*timingwheel.Wheel[int]) Wheel) Option {
	return WithWheelFactory(func(cfg config.Config, start time.Time) (Wheel, error) {
		w, err := timingwheel.NewWithConfig[int](cfg, start)
		if err != nil {
			return nil, err
		}
		return wrap(w), nil
	})
}

func fakeQueue(wrap func(*priorityqueue.Queue[int]) Queue) Option {
	return WithQueueFactory(func(lb levelbits.LevelBits, c int) Queue { return wrap(priorityqueue.New[int](lb, c)) })
}

var fakes = map[string]Option{
	"dropping wheel":  fakeWheel(func(w *timingwheel.Wheel[int]) Wheel { return droppingWheel{w} }),
	"earlyNext wheel": fakeWheel(func(w *timingwheel.Wheel[int]) Wheel { return earlyNextWheel{w} }),
	"laxRemove wheel": fakeWheel(func(w *timingwheel.Wheel[int]) Wheel { return laxRemoveWheel{w} }),
	"silent queue":    fakeQueue(func(q *priorityqueue.Queue[int]) Queue { return silentQueue{q} }),
	"wide queue":      fakeQueue(func(q *priorityqueue.Queue[int]) Queue { return wideQueue{q} }),
}

// recordTB is a rapid.TB that records what a check reports instead of
// failing the test.
type recordTB struct {
	testing.TB // nil: only the methods below are called
	msgs       []string
	failed     bool
}

func (r *recordTB) Helper()                      {}
func (r *recordTB) Name() string                 { return "fake" }
func (r *recordTB) Logf(f string, args ...any)   { r.msgs = append(r.msgs, fmt.Sprintf(f, args...)) }
func (r *recordTB) Log(args ...any)              { r.msgs = append(r.msgs, fmt.Sprint(args...)) }
func (r *recordTB) Errorf(f string, args ...any) { r.failed = true; r.Logf(f, args...) }
func (r *recordTB) Error(args ...any)            { r.failed = true; r.Log(args...) }
func (r *recordTB) Fatalf(f string, args ...any) { r.Errorf(f, args...) }
func (r *recordTB) Fatal(args ...any)            { r.Error(args...) }
func (r *recordTB) FailNow()                     { r.failed = true }
func (r *recordTB) Fail()                        { r.failed = true }
func (r *recordTB) Failed() bool                 { return r.failed }

// snippet extracts the trace of the last ReplayText snippet in a report and
// the failure reported before it.
func snippet(t *testing.T, report string) (trace, failure string) {
	t.Helper()
	const open = "proptest.ReplayText(t, `\n"
	i := strings.LastIndex(report, open)
	j := strings.Index(report[i+1:], "\n\t`")
	k := strings.LastIndex(report[:max(i, 0)], "differs from the model: ")
	if i < 0 || j < 0 || k < 0 {
		t.Fatalf("no failure and replay snippet in the report:\n%s", report)
	}
	failure = strings.TrimSuffix(strings.TrimSpace(report[k+len("differs from the model: "):i]), "Replay it with:")
	return report[i+len(open) : i+1+j], strings.TrimSpace(failure)
}

// firstLine is the call and the kind of difference, which a replay on the
// fake must reproduce.
func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// withoutLine is a replay's failure without the trace line it names, as a
// check reports it.
func withoutLine(s string) string {
	return regexp.MustCompile(`^line \d+: `).ReplaceAllString(s, "")
}

// replaysTo checks that trace fails on the fake with failure, and passes on
// the real structure.
func replaysTo(t *testing.T, trace, failure string, fake Option) {
	t.Helper()
	o := buildOptions([]Option{fake})
	if err := harness.Replay(trace, o.wheelFactory, o.queueFactory); err == nil || firstLine(withoutLine(err.Error())) != firstLine(failure) {
		t.Fatalf("replay on the fake: %v\nwant the reported failure: %s\n%s", err, failure, trace)
	}
	if err := harness.Replay(trace, nil, nil); err != nil {
		t.Fatalf("the trace fails on the real structure too: %v", err)
	}
}

// TestChecksCatchBuggyFakes: rapid and the gopter machines fail on the
// fakes, and each failure holds a snippet that replays to the same failure.
func TestChecksCatchBuggyFakes(t *testing.T) {
	if f := flag.Lookup("rapid.nofailfile"); f != nil { // no rapid failure files for the fake runs
		old := f.Value.String()
		_ = f.Value.Set("true")
		t.Cleanup(func() { _ = f.Value.Set(old) })
	}
	lb, _ := levelbits.New(1, 1)
	cfg, _ := config.New(0, config.WithLevelBits(lb))
	// A small world and a few calls keep rapid's shrinking short.
	mix := WithOpWeights(map[string]int{"AddAtIntervalNum": 0, "Reschedule": 0, "RescheduleAtIntervalNum": 0,
		"AdvanceClockLimit": 0, "FirePastAlarms": 0, "AdvanceClockStopAtNextAlarm": 0, "Shrink": 0, "Clear": 0,
		"Add": 4, "AdvanceClock": 2, "Remove": 1})
	for name, fake := range fakes {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "fail.trace")
			r := &recordTB{}
			check(r, strings.HasSuffix(name, "wheel"), []Option{fake, WithFailureFile(file), WithConfigs(cfg), mix})
			if !r.failed {
				t.Fatalf("the check passed a structure with a bug")
			}
			report := strings.Join(r.msgs, "\n")
			if strings.Contains(report, "harness.") {
				t.Errorf("the report names the checks' internal types:\n%s", report)
			}
			trace, failure := snippet(t, report)
			if saved, err := os.ReadFile(file); err != nil || strings.Join(strings.Fields(string(saved)), " ") !=
				strings.Join(strings.Fields(trace), " ") {
				t.Fatalf("failure file %q (%v) differs from the snippet\n%s", saved, err, trace)
			}
			replaysTo(t, trace, failure, fake)
			t.Logf("caught with %d calls: %s", strings.Count(strings.TrimSpace(trace), "\n"), firstLine(failure))
			if name == "wide queue" {
				return // differs before any call: gopter discards such an initial state
			}
			// The gopter machines catch it too, with a label that replays.
			var out strings.Builder
			if GopterProperties(fake, WithGopterRuns(100, 30)).Run(gopter.NewFormatedReporter(false, 1<<20, &out)) {
				t.Fatalf("gopter passed a fake:\n%s", out.String())
			}
			if strings.Contains(out.String(), "harness.") {
				t.Errorf("gopter's report names the checks' internal types:\n%s", out.String())
			}
			trace, failure = snippet(t, out.String())
			replaysTo(t, trace, failure, fake)
		})
	}
}

// TestCommittedTracesCatchFakes: the committed traces, which replay cleanly on
// the real structures (TestReplayTestdata), fail on the buggy fakes, so a
// replay compares for real.
func TestCommittedTracesCatchFakes(t *testing.T) {
	for _, c := range []struct{ file, fake, want string }{
		{"wheel/order-across-levels.trace", "dropping wheel", "AdvanceClock 6: fired a different sequence: alarm 2 not fired (-model +wheel):\n  alarm 1 at 5\n- alarm 2 at 5\n  alarm 3 at 5\n"},
		{"wheel/errors-at-the-edges.trace", "laxRemove wheel", "line 15: Remove 2: Remove: wheel error <nil>"},
		{"wheel/handler-panic.trace", "earlyNext wheel", "after Add 2 1: NextAlarmFiresAt"},
		{"queue/handler-panic.trace", "silent queue", "IncreaseMinAllowedKey 8 handler=2,panic,0,0: removed a different sequence: element 2 not removed; element 4 removed too (-model +queue):\n  element 1 key 1\n- element 2 key 3\n+ element 4 key 3\n"},
		{"queue/handler-panic.trace", "wide queue", "MaxAllowedKey"},
	} {
		text, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		o := buildOptions([]Option{fakes[c.fake]})
		err = harness.Replay(string(text), o.wheelFactory, o.queueFactory)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on the %s: %v, want %q", c.file, c.fake, err, c.want)
		} else if strings.Contains(err.Error(), "harness.") {
			t.Errorf("%s on the %s: the failure names the checks' internal types: %v", c.file, c.fake, err)
		}
	}
}

// The two operation mixes are separate: turning the wheel's Add off leaves
// the queue's Add on, and each option rejects the other structure's names.
func TestOpWeightsPerStructure(t *testing.T) {
	o := buildOptions([]Option{WithOpWeights(map[string]int{"Add": 0}), WithQueueOpWeights(map[string]int{"Change": 0})})
	w, werr := o.structure(true)
	q, qerr := o.structure(false)
	if werr != nil || qerr != nil || w.weights[0] != 0 || q.weights[0] == 0 || q.weights[2] != 0 {
		t.Fatalf("wheel weights %v (%v), queue weights %v (%v)", w.weights, werr, q.weights, qerr)
	}
	if _, err := buildOptions([]Option{WithQueueOpWeights(map[string]int{"AdvanceClock": 1})}).structure(false); err == nil {
		t.Fatalf("WithQueueOpWeights accepted the wheel operation AdvanceClock")
	}
}

// fullWheel loses the alarm it is given when it holds 12 already: a bug
// that takes 13 calls to show.
type fullWheel struct{ *timingwheel.Wheel[int] }

func (w fullWheel) Add(at time.Time, v int) (alarm.Alarm, error) {
	full := w.Wheel.Len() >= 12
	a, err := w.Wheel.Add(at, v)
	if err == nil && full {
		_ = w.Wheel.Remove(a)
	}
	return a, err
}

// A failure is reported once: the difference, the shortest trace in a
// snippet that replays it, and how rapid reproduces it; not rapid's log of
// every value it drew, nor the message twice.
func TestFailureReportedOnce(t *testing.T) {
	noFailFiles(t)
	r, _ := runExit(func(tb *exitTB) { check(tb, true, []Option{fakes["dropping wheel"]}) })
	report := strings.Join(r.msgs, "\n")
	if !r.failed {
		t.Fatalf("the check passed a wheel with a bug:\n%s", report)
	}
	for _, c := range []struct {
		s    string
		want int
	}{{"differs from the model", 1}, {"Replay it with", 1}, {"[rapid] draw", 0}, {"\nrapid: To reproduce, specify -run=", 1}} {
		if n := strings.Count(report, c.s); n != c.want {
			t.Errorf("the report says %q %d times, want %d:\n%s", c.s, n, c.want, report)
		}
	}
	trace, failure := snippet(t, report)
	replaysTo(t, trace, failure, fakes["dropping wheel"])
}

// A bug that takes 13 calls is found and shrunk to those 13 calls in a few
// thousand runs of rapid in all for three seeds, not tens of thousands each:
// the runs draw swarms of operations (adds without advances, say), and the
// choices a failure needs most shrink cheaply. Runs are counted by the
// wheels made, one a run.
func TestBugOfThirteenCallsShrinksFast(t *testing.T) {
	if testing.Short() {
		t.Skip("-short changes rapid's runs")
	}
	noFailFiles(t)
	seed := flag.Lookup("rapid.seed")
	old := seed.Value.String()
	t.Cleanup(func() { _ = seed.Value.Set(old) })
	runs := 0
	full := WithWheelFactory(func(cfg config.Config, start time.Time) (Wheel, error) {
		runs++
		w, err := timingwheel.NewWithConfig[int](cfg, start)
		if err != nil {
			return nil, err
		}
		return fullWheel{w}, nil
	})
	for _, s := range []string{"7919", "15838", "23757"} {
		_ = seed.Value.Set(s)
		r, _ := runExit(func(tb *exitTB) { check(tb, true, []Option{full}) })
		report := strings.Join(r.msgs, "\n")
		if !r.failed {
			t.Fatalf("seed %s: the check passed a wheel with a bug", s)
		}
		trace, failure := snippet(t, report)
		if n := strings.Count(strings.TrimSpace(trace), "\n"); n != 13 {
			t.Errorf("seed %s: shrunk to %d calls, want 13:\n%s", s, n, trace)
		}
		replaysTo(t, trace, failure, full)
	}
	if runs > 10000 {
		t.Errorf("%d runs for the three seeds, want at most 10000", runs)
	}
	t.Logf("%d runs for the three seeds", runs)
}

// A nil option panics with a message naming its position, not with a nil
// pointer dereference.
func TestNilOptionNamed(t *testing.T) {
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.Contains(msg, "opts[1] is nil") {
			t.Fatalf("panic %q, want one naming opts[1] as nil", msg)
		}
	}()
	buildOptions([]Option{WithCallTimeout(time.Second), nil})
}
