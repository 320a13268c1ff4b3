package proptest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// Buggy fakes: real structures with one deliberate bug each. The checks must
// catch every one, print a trace that replays to the same failure on the
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

func wrapWheel(wrap func(*timingwheel.Wheel[int]) Wheel) WheelFactory {
	return func(cfg config.Config, start time.Time) (Wheel, error) {
		w, err := timingwheel.NewWithConfig[int](cfg, start)
		if err != nil {
			return nil, err
		}
		return wrap(w), nil
	}
}

func wrapQueue(wrap func(*priorityqueue.Queue[int]) Queue) QueueFactory {
	return func(lb levelbits.LevelBits, capacity int) Queue { return wrap(priorityqueue.New[int](lb, capacity)) }
}

// recordTB is a rapid.TB that records what a check reports instead of
// failing the test.
type recordTB struct {
	msgs   []string
	failed bool
}

func (r *recordTB) Helper()                    {}
func (r *recordTB) Name() string               { return "fake" }
func (r *recordTB) Logf(f string, args ...any) { r.msgs = append(r.msgs, fmt.Sprintf(f, args...)) }
func (r *recordTB) Log(args ...any)            { r.msgs = append(r.msgs, fmt.Sprint(args...)) }
func (r *recordTB) Skipf(string, ...any)       { panic("skip") }
func (r *recordTB) Skip(...any)                { panic("skip") }
func (r *recordTB) SkipNow()                   { panic("skip") }
func (r *recordTB) Errorf(f string, args ...any) {
	r.failed = true
	r.Logf(f, args...)
}
func (r *recordTB) Error(args ...any) {
	r.failed = true
	r.Log(args...)
}
func (r *recordTB) Fatalf(f string, args ...any) { r.Errorf(f, args...) }
func (r *recordTB) Fatal(args ...any)            { r.Error(args...) }
func (r *recordTB) FailNow()                     { r.failed = true }
func (r *recordTB) Fail()                        { r.failed = true }
func (r *recordTB) Failed() bool                 { return r.failed }

// noFailFile keeps rapid from writing failure files for the fake runs.
func noFailFile(t *testing.T) {
	f := flag.Lookup("rapid.nofailfile")
	if f == nil {
		return
	}
	old := f.Value.String()
	if err := f.Value.Set("true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// snippet extracts the trace of the last "Replay...Text(t, `...`)" snippet in
// the recorded messages.
func snippet(t *testing.T, r *recordTB, fn string) (trace, failure string) {
	t.Helper()
	all := strings.Join(r.msgs, "\n")
	open := "proptest." + fn + "(t, `\n"
	i := strings.LastIndex(all, open)
	if i < 0 {
		t.Fatalf("no %s snippet in the report:\n%s", fn, all)
	}
	rest := all[i+len(open):]
	j := strings.Index(rest, "`)")
	if j < 0 {
		t.Fatalf("unterminated snippet:\n%s", rest)
	}
	head := all[:i]
	k := strings.LastIndex(head, "differs from the model: ")
	if k < 0 {
		t.Fatalf("no failure before the snippet:\n%s", all)
	}
	failure = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(head[k+len("differs from the model: "):]), "Replay it with:"))
	return rest[:j], failure
}

func TestCheckWheelCatchesBuggyFakes(t *testing.T) {
	noFailFile(t)
	fakes := map[string]func(*timingwheel.Wheel[int]) Wheel{
		"dropping":  func(w *timingwheel.Wheel[int]) Wheel { return droppingWheel{w} },
		"earlyNext": func(w *timingwheel.Wheel[int]) Wheel { return earlyNextWheel{w} },
		"laxRemove": func(w *timingwheel.Wheel[int]) Wheel { return laxRemoveWheel{w} },
	}
	for name, wrap := range fakes {
		t.Run(name, func(t *testing.T) {
			fake := WithWheelFactory(wrapWheel(wrap))
			file := filepath.Join(t.TempDir(), "fail.trace")
			r := &recordTB{}
			// A small world and a few calls keep rapid's shrinking short.
			lb, err := levelbits.New(1, 1)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.New(0, config.WithLevelBits(lb))
			if err != nil {
				t.Fatal(err)
			}
			mix := map[string]int{}
			for _, op := range wheelOpList() {
				mix[op] = 0
			}
			mix[OpAdd], mix[OpAdvanceClock], mix[OpRemove] = 4, 2, 1
			checkWheel(r, []Option{fake, WithFailureFile(file), WithConfigs(cfg), WithOpWeights(mix)})
			if !r.failed {
				t.Fatalf("CheckWheel passed a wheel with a bug")
			}
			text, failure := snippet(t, r, "ReplayWheelText")
			tr, err := ParseWheelTrace(text)
			if err != nil {
				t.Fatalf("the printed snippet does not parse: %v\n%s", err, text)
			}
			saved, err := os.ReadFile(file)
			if err != nil || string(saved) != tr.String() {
				t.Fatalf("failure file %q (%v) differs from the snippet\n%s", saved, err, tr)
			}
			// The snippet replays to the same failure on the fake...
			err = tr.Run(fake)
			if err == nil || firstLine(err.Error()) != firstLine(failure) {
				t.Fatalf("replay on the fake: %v\nwant the reported failure: %s", err, failure)
			}
			// ...and the same calls pass on the real wheel.
			if err := tr.Run(); err != nil {
				t.Fatalf("the trace fails on the real wheel too: %v", err)
			}
			t.Logf("caught %s with %d calls: %s", name, len(tr.Ops), firstLine(failure))
		})
	}
}

func TestCheckQueueCatchesBuggyFakes(t *testing.T) {
	noFailFile(t)
	fakes := map[string]func(*priorityqueue.Queue[int]) Queue{
		"silent": func(q *priorityqueue.Queue[int]) Queue { return silentQueue{q} },
		"wide":   func(q *priorityqueue.Queue[int]) Queue { return wideQueue{q} },
	}
	for name, wrap := range fakes {
		t.Run(name, func(t *testing.T) {
			fake := WithQueueFactory(wrapQueue(wrap))
			r := &recordTB{}
			checkQueue(r, []Option{fake})
			if !r.failed {
				t.Fatalf("CheckQueue passed a queue with a bug")
			}
			text, failure := snippet(t, r, "ReplayQueueText")
			tr, err := ParseQueueTrace(text)
			if err != nil {
				t.Fatalf("the printed snippet does not parse: %v\n%s", err, text)
			}
			err = tr.Run(fake)
			if err == nil || firstLine(err.Error()) != firstLine(failure) {
				t.Fatalf("replay on the fake: %v\nwant the reported failure: %s", err, failure)
			}
			if err := tr.Run(); err != nil {
				t.Fatalf("the trace fails on the real queue too: %v", err)
			}
			t.Logf("caught %s with %d calls: %s", name, len(tr.Ops), firstLine(failure))
		})
	}
}

// firstLine is the call and the kind of difference; what follows (a cmp.Diff)
// is not stable text: go-cmp varies its spacing on purpose.
func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// TestCommittedTracesCatchFakes: the committed traces, which replay cleanly on
// the real structures (TestReplayTestdata), fail on the buggy fakes, so a
// replay compares for real.
func TestCommittedTracesCatchFakes(t *testing.T) {
	wheelFakes := []struct {
		file, want string
		wrap       func(*timingwheel.Wheel[int]) Wheel
	}{
		{"order-across-levels.trace", "AdvanceClock 6: fired a different sequence",
			func(w *timingwheel.Wheel[int]) Wheel { return droppingWheel{w} }},
		{"errors-at-the-edges.trace", "Remove 4: Remove: wheel error <nil>",
			func(w *timingwheel.Wheel[int]) Wheel { return laxRemoveWheel{w} }},
		{"handler-panic.trace", "after Add 2 1: NextAlarmFiresAt",
			func(w *timingwheel.Wheel[int]) Wheel { return earlyNextWheel{w} }},
	}
	for _, c := range wheelFakes {
		text, err := os.ReadFile(filepath.Join("testdata/wheel", c.file))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := ParseWheelTrace(string(text))
		if err != nil {
			t.Fatal(err)
		}
		err = tr.Run(WithWheelFactory(wrapWheel(c.wrap)))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s on a fake: %v, want %q...", c.file, err, c.want)
		}
	}
	text, err := os.ReadFile("testdata/queue/handler-panic.trace")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ParseQueueTrace(string(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		want string
		wrap func(*priorityqueue.Queue[int]) Queue
	}{
		{"IncreaseMinAllowedKey 8 handler=2,panic,0,0: removed a different sequence",
			func(q *priorityqueue.Queue[int]) Queue { return silentQueue{q} }},
		{"allowed keys", func(q *priorityqueue.Queue[int]) Queue { return wideQueue{q} }},
	} {
		err := tr.Run(WithQueueFactory(wrapQueue(c.wrap)))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("queue trace on a fake: %v, want %q...", err, c.want)
		}
	}
}

// TestGopterCatchesBuggyFakes: the gopter machines fail on the fakes, and the
// label of the failure holds a snippet that replays to the same failure.
func TestGopterCatchesBuggyFakes(t *testing.T) {
	for name, opt := range map[string]Option{
		"dropping wheel": WithWheelFactory(wrapWheel(func(w *timingwheel.Wheel[int]) Wheel { return droppingWheel{w} })),
		"silent queue":   WithQueueFactory(wrapQueue(func(q *priorityqueue.Queue[int]) Queue { return silentQueue{q} })),
	} {
		t.Run(name, func(t *testing.T) {
			var out strings.Builder
			props := GopterProperties(opt, WithGopterRuns(100, 30))
			if props.Run(gopter.NewFormatedReporter(false, 1<<20, &out)) {
				t.Fatalf("gopter passed a fake:\n%s", out.String())
			}
			report := out.String()
			fn := "ReplayWheelText"
			if strings.Contains(name, "queue") {
				fn = "ReplayQueueText"
			}
			r := &recordTB{msgs: []string{report}}
			text, failure := snippet(t, r, fn)
			var err error
			if fn == "ReplayWheelText" {
				var tr WheelTrace
				if tr, err = ParseWheelTrace(text); err == nil {
					err = tr.Run(opt)
					if real := tr.Run(); real != nil {
						t.Fatalf("the trace fails on the real wheel: %v", real)
					}
				}
			} else {
				var tr QueueTrace
				if tr, err = ParseQueueTrace(text); err == nil {
					err = tr.Run(opt)
					if real := tr.Run(); real != nil {
						t.Fatalf("the trace fails on the real queue: %v", real)
					}
				}
			}
			if err == nil || firstLine(err.Error()) != firstLine(failure) {
				t.Fatalf("replay: %v\nwant the reported failure %s\nreport:\n%s", err, failure, report)
			}
			t.Logf("gopter caught the %s: %s\n%s", name, firstLine(failure), text)
		})
	}
}

// The two operation mixes are separate: turning the wheel's Add off leaves
// the queue's Add (the same name) on, and each option rejects the other
// structure's names that it does not share.
func TestOpWeightsPerStructure(t *testing.T) {
	o := buildOptions([]Option{WithOpWeights(map[string]int{OpAdd: 0})})
	qw, err := opWeights(queueOpList(), queueDefaultWeights(), o.queueWeights, "WithQueueOpWeights")
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(queueOpList(), QueueOpAdd); qw[i] == 0 {
		t.Fatalf("WithOpWeights{%s: 0} turned the queue's %s off", OpAdd, QueueOpAdd)
	}
	ww, err := opWeights(wheelOpList(), wheelDefaultWeights(), o.weights, "WithOpWeights")
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(wheelOpList(), OpAdd); ww[i] != 0 {
		t.Fatalf("WithOpWeights{%s: 0} left the wheel's weight at %d", OpAdd, ww[i])
	}
	if _, err := opWeights(queueOpList(), queueDefaultWeights(), map[string]int{OpAdvanceClock: 1}, "WithQueueOpWeights"); err == nil {
		t.Fatalf("WithQueueOpWeights accepted the wheel operation %s", OpAdvanceClock)
	}
}
