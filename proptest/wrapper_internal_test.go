package proptest

import (
	"flag"
	"fmt"
	"iter"
	"math/rand/v2"
	"regexp"
	"runtime"
	"strings"
	"sync"
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

// Buggy wrappers of a user's kind: a few methods, values that are not ints.
// The checks must fail on each with a message that says what went wrong and
// a trace that replays to the same failure on the wrapper and cleanly on the
// real wheel.

// minimal has only the methods WheelOf requires.
type minimal struct{ w *timingwheel.Wheel[string] }

func (m minimal) Now() time.Time { return m.w.Now() }
func (m minimal) Len() int       { return m.w.Len() }
func (m minimal) Add(at time.Time, v string) (alarm.Alarm, error) {
	return m.w.Add(at, v)
}
func (m minimal) AdvanceClock(to time.Time, fired func(timingwheel.Fired[string])) error {
	return m.w.AdvanceClock(to, fired)
}

// earlyFirer also fires, after each advance, the alarms due at the new time
// itself: those at exactly Now fire early.
type earlyFirer struct{ minimal }

func (m earlyFirer) AdvanceClock(to time.Time, fired func(timingwheel.Fired[string])) error {
	if err := m.w.AdvanceClock(to, fired); err != nil {
		return err
	}
	m.w.FirePastAlarms(fired)
	return nil
}

// loser loses the second alarm each advance fires: gone from the wheel,
// never reported.
type loser struct{ minimal }

func (m loser) AdvanceClock(to time.Time, fired func(timingwheel.Fired[string])) error {
	n := 0
	return m.w.AdvanceClock(to, func(ev timingwheel.Fired[string]) {
		if n++; n != 2 && fired != nil {
			fired(ev)
		}
	})
}

// laxRemover has an optional method, Remove, with a bug: it accepts a handle
// that is not in the wheel. The checks find Remove and compare it.
type laxRemover struct{ minimal }

func (m laxRemover) Remove(a alarm.Alarm) error {
	if !m.w.Mem(a) {
		return nil
	}
	return m.w.Remove(a)
}

// truncator hands its handlers a value other than the one added.
type truncator struct{ w *timingwheel.Wheel[[]string] }

func (m truncator) Now() time.Time { return m.w.Now() }
func (m truncator) Len() int       { return m.w.Len() }
func (m truncator) Add(at time.Time, v []string) (alarm.Alarm, error) {
	return m.w.Add(at, v)
}
func (m truncator) AdvanceClock(to time.Time, fired func(timingwheel.Fired[[]string])) error {
	if fired == nil {
		return m.w.AdvanceClock(to, nil)
	}
	return m.w.AdvanceClock(to, func(ev timingwheel.Fired[[]string]) {
		ev.Value = ev.Value[:1]
		fired(ev)
	})
}

// offByOne answers AlarmValue with the value plus one; an int wheel's
// values are the ids, so the checks catch it without WithValues.
type offByOne struct{ *timingwheel.Wheel[int] }

func (w offByOne) AlarmValue(a alarm.Alarm) (int, error) {
	v, err := w.Wheel.AlarmValue(a)
	return v + 1, err
}

// nullHandle hands its handlers the null alarm instead of the one that
// fired.
type nullHandle struct{ minimal }

func (m nullHandle) AdvanceClock(to time.Time, fired func(timingwheel.Fired[string])) error {
	if fired == nil {
		return m.w.AdvanceClock(to, nil)
	}
	return m.w.AdvanceClock(to, func(ev timingwheel.Fired[string]) {
		ev.Alarm = alarm.Alarm{}
		fired(ev)
	})
}

func wrapString[W WheelOf[string]](wrap func(minimal) W) Option {
	return WithWrapper(func(cfg config.Config, start time.Time) (W, error) {
		w, err := timingwheel.NewWithConfig[string](cfg, start)
		return wrap(minimal{w}), err
	})
}

// smallWorld is a tiny config and a mix of adds and advances, so that rapid
// shrinks a failure quickly.
func smallWorld() []Option {
	lb, _ := levelbits.New(1, 1)
	cfg, _ := config.New(0, config.WithLevelBits(lb))
	return []Option{WithConfigs(cfg), WithOpWeights(map[string]int{"Add": 4, "AdvanceClock": 2, "Remove": 1})}
}

func noFailFiles(t *testing.T) {
	if f := flag.Lookup("rapid.nofailfile"); f != nil { // no rapid failure files for runs that must fail
		old := f.Value.String()
		_ = f.Value.Set("true")
		t.Cleanup(func() { _ = f.Value.Set(old) })
	}
}

func TestChecksCatchBuggyWrappers(t *testing.T) {
	noFailFiles(t)
	for _, c := range []struct {
		name    string
		opts    []Option
		want    string // in the reported failure
		noTrace bool   // fails before any call
	}{
		{"fires early", []Option{wrapString(func(m minimal) earlyFirer { return earlyFirer{m} })}, "fired early", false},
		{"loses an alarm", []Option{wrapString(func(m minimal) loser { return loser{m} })}, "fired a different sequence", false},
		{"null handle", []Option{wrapString(func(m minimal) nullHandle { return nullHandle{m} })},
			"the value of the alarm a handler got: proptest: alarm(null) is not a handle any Add of the checks returned", false},
		{"lax optional Remove", []Option{wrapString(func(m minimal) laxRemover { return laxRemover{m} })},
			"Remove: wheel error <nil>", false},
		{"wrong value", []Option{
			WithValues(func(id int) []string { return []string{"job", fmt.Sprint(id)} }),
			WithWrapper(func(cfg config.Config, start time.Time) (truncator, error) {
				w, err := timingwheel.NewWithConfig[[]string](cfg, start)
				return truncator{w}, err
			})}, "has value [job], added with [job 1]", false},
		{"wrong int value", []Option{WithWrapper(func(cfg config.Config, start time.Time) (offByOne, error) {
			w, err := timingwheel.NewWithConfig[int](cfg, start)
			return offByOne{w}, err
		})}, "proptest: alarm 1 has value 2, added with 1", false},
		{"values of another type", []Option{WithValues(func(int) string { return "" }), WithWrapper(newLockedInt)},
			"WithValues makes values of type string, but the wheel holds int", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := runExit(func(tb *exitTB) { check(tb, true, append(smallWorld(), c.opts...)) })
			if !r.failed {
				t.Fatalf("the check passed a wrapper with a bug")
			}
			report := strings.Join(r.msgs, "\n")
			if strings.Contains(report, "harness.") {
				t.Errorf("the report names the checks' internal types:\n%s", report)
			}
			if c.noTrace {
				if !strings.Contains(report, c.want) {
					t.Fatalf("reported %q, want it to say %q", report, c.want)
				}
				return
			}
			trace, failure := snippet(t, report)
			if !strings.Contains(failure, c.want) {
				t.Fatalf("reported %q, want it to say %q", failure, c.want)
			}
			if !strings.Contains(report, "`, opts...) // opts: this check's options, with your WithWrapper") {
				t.Fatalf("the replay snippet does not say to pass the wrapper:\n%s", report)
			}
			o := buildOptions(c.opts)
			if err := harness.Replay(trace, o.wheelFactory, nil); err == nil || sameFailure(withoutLine(err.Error())) != sameFailure(failure) {
				t.Fatalf("replay on the wrapper: %v\nwant the reported failure: %s\n%s", err, failure, trace)
			}
			if err := harness.Replay(trace, nil, nil); err != nil {
				t.Fatalf("the trace fails on the real wheel too: %v", err)
			}
			t.Logf("caught with %d calls: %s", strings.Count(strings.TrimSpace(trace), "\n"), firstLine(failure))
		})
	}
}

// sameFailure is the first line of a failure without the handles' owners,
// which differ from one wheel to the next.
func sameFailure(s string) string {
	return regexp.MustCompile(`alarm\(\d+/`).ReplaceAllString(firstLine(s), "alarm(/")
}

// A wrapper without an optional method is never asked for it: minimal has
// only WheelOf's four, and the harness reports having none of the others.
func TestWrapperHasOnlyItsMethods(t *testing.T) {
	o := buildOptions([]Option{wrapString(func(m minimal) minimal { return m })})
	w, err := o.wheelFactory(config.MicrosecondPrecision(), time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	x := w.(harness.Wrapper)
	var has []string
	for _, name := range append(harness.WheelKind.Names(), "Mem", "AlarmAt", "AlarmValue", "All", "Invariant", "Stats") {
		if x.Has(name) {
			has = append(has, name)
		}
	}
	if strings.Join(has, " ") != "Add AdvanceClock" || x.Reentrant() {
		t.Fatalf("minimal wrapper has %v, reentrant %v; want Add AdvanceClock, not reentrant", has, x.Reentrant())
	}
	lax := buildOptions([]Option{wrapString(func(m minimal) laxRemover { return laxRemover{m} }), WithReentrantHandlers()})
	w, _ = lax.wheelFactory(config.MicrosecondPrecision(), time.Unix(0, 0))
	if x := w.(harness.Wrapper); !x.Has("Remove") || x.Has("Reschedule") || !x.Reentrant() {
		t.Fatalf("laxRemover: Has(Remove) %v, Has(Reschedule) %v, reentrant %v", x.Has("Remove"), x.Has("Reschedule"), x.Reentrant())
	}
}

// exitTB is a recordTB whose FailNow ends the goroutine, as testing.T's
// does; run it with runExit.
type exitTB struct{ recordTB }

func (r *exitTB) Fatalf(f string, args ...any) { r.Errorf(f, args...); runtime.Goexit() }
func (r *exitTB) Fatal(args ...any)            { r.Error(args...); runtime.Goexit() }
func (r *exitTB) FailNow()                     { r.failed = true; runtime.Goexit() }

// runExit runs f on a goroutine of its own, as go test runs a test, and
// returns what it reported and how long it took.
func runExit(f func(tb *exitTB)) (*exitTB, time.Duration) {
	r, start, done := &exitTB{}, time.Now(), make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r, time.Since(start)
}

// lockedInt embeds the wheel and locks the calls that change it; the lock is
// held while handlers run.
type lockedInt struct {
	mu sync.Mutex
	*timingwheel.Wheel[int]
}

func (l *lockedInt) Add(at time.Time, v int) (alarm.Alarm, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Wheel.Add(at, v)
}

func (l *lockedInt) Remove(a alarm.Alarm) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Wheel.Remove(a)
}

func (l *lockedInt) Reschedule(a alarm.Alarm, at time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Wheel.Reschedule(a, at)
}

func (l *lockedInt) AdvanceClock(to time.Time, fired func(timingwheel.Fired[int])) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Wheel.AdvanceClock(to, fired)
}

// noDefer unlocks after AdvanceClock without defer: a handler's panic leaves
// the lock locked, and the next call waits for ever.
type noDefer struct{ lockedInt }

func (l *noDefer) AdvanceClock(to time.Time, fired func(timingwheel.Fired[int])) error {
	l.mu.Lock()
	err := l.Wheel.AdvanceClock(to, fired)
	l.mu.Unlock()
	return err
}

func newLockedInt(cfg config.Config, start time.Time) (*lockedInt, error) {
	w, err := timingwheel.NewWithConfig[int](cfg, start)
	return &lockedInt{Wheel: w}, err
}

func newNoDefer(cfg config.Config, start time.Time) (*noDefer, error) {
	w, err := timingwheel.NewWithConfig[int](cfg, start)
	return &noDefer{lockedInt{Wheel: w}}, err
}

// A call that does not return fails the check within the deadline, with a
// message that names the call and says what to do, and a replay snippet of
// the trace up to it, instead of hanging until go test's -timeout.
func TestStuckCallFails(t *testing.T) {
	noFailFiles(t)
	const d = 200 * time.Millisecond
	for _, c := range []struct {
		name string
		run  func(tb *exitTB)
		want []string
	}{
		{"re-entrant handlers on a locked wheel", func(tb *exitTB) {
			check(tb, true, []Option{WithWrapper(newLockedInt), WithReentrantHandlers(), WithCallTimeout(d)})
		}, []string{", called by a handler of ", "did not return within 200ms", "use that option only if your wheel allows calls from its handlers", "Replay it with"}},
		{"a panic that skips the unlock", func(tb *exitTB) {
			check(tb, true, []Option{WithWrapper(newNoDefer), WithCallTimeout(d)})
		}, []string{"did not return within 200ms", "a panicking handler left locked", "WithoutPanics", "Replay it with"}},
		{"fuzz input", func(tb *exitTB) {
			o := []Option{WithWrapper(newNoDefer), WithCallTimeout(d)}
			rng := rand.New(rand.NewPCG(1, 2))
			for range 5000 { // the first input whose calls get stuck ends the goroutine
				data := make([]byte, 300)
				for i := range data {
					data[i] = byte(rng.Uint32())
				}
				checkBytes(tb, true, data, o)
			}
		}, []string{"did not return within 200ms", "Replay it with"}},
		{"replay", func(tb *exitTB) {
			ReplayText(tb, `
				wheel precision=0 bits=1,1 capacity=0 overflow=false start=0
				Add 3 1
				Add 3 2
				AdvanceClock 9 handler=1,add,2,0
			`, WithWrapper(newLockedInt), WithCallTimeout(d))
		}, []string{"Add(", "called by a handler of AdvanceClock(", "(9 ns), handler)", "This trace's handler calls back into it",
			"the trace so far:", "AdvanceClock 9 handler=1,add,2,0"}},
	} {
		t.Run(c.name, func(t *testing.T) { expectStuckReport(t, c.run, c.want, d, "call") })
	}
}

// The gopter front-end reports a stuck call as a failed property whose label
// holds the message, and ends soon after the first one.
func TestStuckCallGopter(t *testing.T) {
	var out strings.Builder
	start := time.Now()
	ok := GopterProperties(WithWrapper(newLockedInt), WithReentrantHandlers(), WithCallTimeout(100*time.Millisecond),
		WithOpWeights(map[string]int{"AddAtIntervalNum": 0, "Remove": 0, "Reschedule": 0, "RescheduleAtIntervalNum": 0,
			"AdvanceClockLimit": 0, "FirePastAlarms": 0, "AdvanceClockStopAtNextAlarm": 0, "Shrink": 0, "Clear": 0}),
		WithGopterRuns(1000, 30)).Run(gopter.NewFormatedReporter(false, 1<<20, &out))
	if ok || !strings.Contains(out.String(), "did not return within 100ms") {
		t.Fatalf("gopter: passed %v\n%s", ok, out.String())
	}
	// Waiting out the deadline once per shrink step would take minutes.
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v", took)
	}
}

// A trace that calls a method the wrapper lacks fails with a message that
// says so, instead of comparing a call that did not happen.
func TestReplayNeedsTheMethods(t *testing.T) {
	for _, c := range []struct{ trace, want string }{
		{"Add 3 1\nReschedule 1 5", "Reschedule 1 5: the wheel under test has no Reschedule method"},
		{"Add 3 1\nAdd 4 2\nAdvanceClock 9 handler=1,remove,0,2",
			"AdvanceClock 9 handler=1,remove,0,2: the handler calls Remove, which the wheel under test does not have"},
	} {
		r, _ := runExit(func(tb *exitTB) {
			ReplayText(tb, "wheel precision=0 bits=1,1 capacity=0 overflow=false start=0\n"+c.trace,
				wrapString(func(m minimal) minimal { return m }))
		})
		if got := strings.Join(r.msgs, "\n"); !r.failed || !strings.Contains(got, c.want) {
			t.Errorf("replay of %q: failed %v, %q; want %q", c.trace, r.failed, got, c.want)
		}
	}
}

// nowBlocks is a wheel whose Now never returns: the checks ask it first,
// before any call.
type nowBlocks struct {
	minimal
	block chan struct{}
}

func (n nowBlocks) Now() time.Time { <-n.block; return n.minimal.Now() }

// The deadline covers the start too: a constructor that never returns, or a
// wheel whose first query never returns, fails every front-end within the
// deadline with a message that names the call and says what to do.
func TestStuckStartFails(t *testing.T) {
	noFailFiles(t)
	const d = 200 * time.Millisecond
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	newStuck := func(cfg config.Config, start time.Time) (*lockedInt, error) {
		<-block
		return newLockedInt(cfg, start)
	}
	newNowBlocks := func(cfg config.Config, start time.Time) (nowBlocks, error) {
		w, err := timingwheel.NewWithConfig[string](cfg, start)
		return nowBlocks{minimal{w}, block}, err
	}
	stuckQueue := WithQueueFactory(func(lb levelbits.LevelBits, c int) Queue {
		<-block
		return priorityqueue.New[int](lb, c)
	})
	const trace = "wheel precision=0 bits=1,1 capacity=0 overflow=false start=0\nAdd 3 1\n"
	constructor := []string{"your wheel's constructor(", "did not return within 200ms", "does it wait for",
		"WithCallTimeout changes the deadline", "Replay it with", "wheel precision="}
	now := []string{"Now() did not return within 200ms", "before any call", "WithCallTimeout changes the deadline"}
	for _, c := range []struct {
		name string
		run  func(tb *exitTB)
		want []string
	}{
		{"CheckWheel", func(tb *exitTB) { check(tb, true, []Option{WithWrapper(newStuck), WithCallTimeout(d)}) }, constructor},
		{"CheckWheelBytes", func(tb *exitTB) {
			CheckWheelBytes(tb, []byte{1, 2, 3}, WithWrapper(newStuck), WithCallTimeout(d))
		}, constructor},
		{"ReplayText", func(tb *exitTB) { ReplayText(tb, trace, WithWrapper(newStuck), WithCallTimeout(d)) },
			[]string{"your wheel's constructor(", "did not return within 200ms", "does it wait for"}},
		{"gopter", func(tb *exitTB) {
			var out strings.Builder
			if GopterProperties(WithWrapper(newStuck), WithCallTimeout(d)).Run(gopter.NewFormatedReporter(false, 1<<20, &out)) {
				tb.Errorf("gopter passed")
			}
			tb.Errorf("%s", out.String())
		}, constructor},
		{"first Now", func(tb *exitTB) { check(tb, true, []Option{WithWrapper(newNowBlocks), WithCallTimeout(d)}) }, now},
		{"first Now, bytes", func(tb *exitTB) {
			CheckWheelBytes(tb, nil, WithWrapper(newNowBlocks), WithCallTimeout(d))
		}, now},
		{"first Now, replay", func(tb *exitTB) { ReplayText(tb, trace, WithWrapper(newNowBlocks), WithCallTimeout(d)) }, now},
		{"queue factory", func(tb *exitTB) { check(tb, false, []Option{stuckQueue, WithCallTimeout(d)}) },
			[]string{"your queue's constructor(", "did not return within 200ms", "Replay it with", "queue bits="}},
	} {
		t.Run(c.name, func(t *testing.T) { expectStuckReport(t, c.run, c.want, d, "start") })
	}
}

// A malformed trace fails its replay with the line that is wrong, however
// long the lines before it; a hostile one gets an error, never a failure
// of the library's own wheel.
func TestReplayMalformedTrace(t *testing.T) {
	const header = "wheel precision=0 bits=1,1 capacity=0 overflow=false start=0\n"
	for _, c := range []struct{ trace, want string }{
		{header + "Add 3 1\n# " + strings.Repeat("x", 2<<20) + "\nAdvanceClock 9\nJump 4\n",
			`proptest: trace: line 5: unknown call "Jump"`},
		{header + "Add 3 1\nAdd 2 " + strings.Repeat("9", 1<<20) + "\n", "proptest: trace: line 3: Add: argument"},
		{header + "Add 5 9223372036854775807\nAdd 6 2\nAdd 7 3\n",
			"proptest: trace: line 2: Add 5 9223372036854775807: the alarm's id is 9223372036854775807, want 1"},
		{"queue bits=1 capacity=9223372036854775807\n", "proptest: trace: line 1: header capacity=9223372036854775807: a trace's capacity is 0 to 65536"},
	} {
		r, _ := runExit(func(tb *exitTB) { ReplayText(tb, c.trace) })
		if got := strings.Join(r.msgs, "\n"); !r.failed || !strings.HasPrefix(got, c.want) {
			t.Errorf("replay of %.80q: failed %v, %.300q; want %q", c.trace, r.failed, got, c.want)
		}
	}
}

// boolRemover has a Remove that is not the wheel's: it reports instead of
// failing. The checks cannot call it as the wheel's Remove.
type boolRemover struct{ minimal }

func (m boolRemover) Remove(a alarm.Alarm) bool { return m.w.Remove(a) == nil }

// intStepper's Step takes the handler of an int wheel, but it holds strings.
type intStepper struct{ minimal }

func (m intStepper) Step(func(timingwheel.Fired[int])) bool { return false }

// intAll's All yields ints.
type intAll struct{ minimal }

func (m intAll) All() iter.Seq[int] { return func(func(int) bool) {} }

// A method with the name of a wheel method the checks compare, but another
// signature, fails every front-end with its name, its signature and the
// wheel's, instead of being skipped.
func TestWrapperNearMiss(t *testing.T) {
	noFailFiles(t)
	const trace = "wheel precision=0 bits=1,1 capacity=0 overflow=false start=0\nAdd 3 1\n"
	remove := []string{"proptest: WithWrapper: your proptest.boolRemover's Remove is func(alarm.Alarm) bool, " +
		"the wheel's is func(alarm.Alarm) error"}
	step := []string{"your proptest.intStepper's Step is func(func(timingwheel.Fired[int])) bool, " +
		"the wheel's is func(func(timingwheel.Fired[string])) bool"}
	for _, c := range []struct {
		name string
		run  func(tb *exitTB)
		want []string
	}{
		{"CheckWheel", func(tb *exitTB) {
			check(tb, true, []Option{wrapString(func(m minimal) boolRemover { return boolRemover{m} })})
		}, remove},
		{"CheckWheelBytes", func(tb *exitTB) {
			CheckWheelBytes(tb, []byte{1, 2, 3}, wrapString(func(m minimal) boolRemover { return boolRemover{m} }))
		}, remove},
		{"ReplayText", func(tb *exitTB) {
			ReplayText(tb, trace, wrapString(func(m minimal) boolRemover { return boolRemover{m} }))
		}, remove},
		{"gopter", func(tb *exitTB) {
			var out strings.Builder
			if GopterProperties(wrapString(func(m minimal) boolRemover { return boolRemover{m} })).Run(gopter.NewFormatedReporter(false, 1<<20, &out)) {
				tb.Errorf("gopter passed")
			}
			tb.Errorf("%s", out.String())
		}, remove},
		{"Step of another value type", func(tb *exitTB) {
			check(tb, true, []Option{wrapString(func(m minimal) intStepper { return intStepper{m} })})
		}, step},
		{"All", func(tb *exitTB) { check(tb, true, []Option{wrapString(func(m minimal) intAll { return intAll{m} })}) },
			[]string{"your proptest.intAll's All is func() iter.Seq[int], the wheel's is func() iter.Seq[alarm.Alarm]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := runExit(c.run)
			report := strings.Join(r.msgs, "\n")
			if !r.failed {
				t.Fatalf("a near miss passed:\n%s", report)
			}
			for _, w := range c.want {
				if !strings.Contains(report, w) {
					t.Errorf("the report does not say %q:\n%s", w, report)
				}
			}
		})
	}
}

// The checks say once which methods of a wrapper they call and compare.
func TestWrapperLogsMethods(t *testing.T) {
	noFailFiles(t)
	r := &recordTB{}
	check(r, true, []Option{wrapString(func(m minimal) laxRemover { return laxRemover{m} }), WithOpWeights(map[string]int{"Remove": 0})})
	var logs []string
	for _, m := range r.msgs {
		if strings.Contains(m, "WithWrapper") {
			logs = append(logs, m)
		}
	}
	const want = "proptest: WithWrapper: the checks call and compare Now, Len, Add, AdvanceClock and Remove of your " +
		"proptest.laxRemover; it has none of the wheel's"
	if r.failed || len(logs) != 1 || !strings.HasPrefix(logs[0], want) || !strings.Contains(logs[0], "AlarmAt") {
		t.Fatalf("failed %v; logged %q, want one line starting %q", r.failed, logs, want)
	}
	t.Log(logs[0])
}

// expectStuckReport runs run, in which a call or a start (what) is stuck for
// d: it must fail within 20·d with a report that says each of want.
func expectStuckReport(t *testing.T, run func(*exitTB), want []string, d time.Duration, what string) {
	t.Helper()
	r, took := runExit(run)
	report := strings.Join(r.msgs, "\n")
	if !r.failed {
		t.Fatalf("a stuck %s passed:\n%s", what, report)
	}
	for _, w := range want {
		if !strings.Contains(report, w) {
			t.Errorf("the report does not say %q:\n%s", w, report)
		}
	}
	if took > 20*d {
		t.Errorf("took %v to report a %s stuck for %v", took, what, d)
	}
	t.Logf("reported in %v: %s", took, firstLine(report))
}
