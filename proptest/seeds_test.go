package proptest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest/internal/harness"
)

// The fuzz seed corpora of timingwheel (FuzzWheel) and priorityqueue
// (FuzzQueue) are written from the scenarios below. A scenario is the
// header's choices, then one call per line or per ';': its name and the
// choices that matter, label=value, in the order the generators ask for them;
// every other choice takes its smallest value. TestFuzzSeeds checks that the
// committed files are what the scenarios encode to and that each decodes to
// the scenario's calls; -update-seeds rewrites them.

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the fuzz seed corpora of priorityqueue and timingwheel")

var wheelScenarios = map[string]string{
	// Level bits [1] at 1 ns: adds at the reach, past it, before the current
	// interval; a jump to MaxTime; an alarm at MaxTime that only
	// FirePastAlarms fires.
	"tiny-edges": `overflow=1; Add atKind=2; Add atKind=3; Add atKind=0
		AddAtIntervalNum intervalFar=0 intervalEdge=2
		AdvanceClock toKind=0 scripted=1; AdvanceClock toKind=3 scripted=1
		Add atKind=2; FirePastAlarms scripted=1`,
	// Level bits [1 1]: a handler panics in the middle of an advance; the
	// rest fire first on the next FirePastAlarms and stop-at-next step.
	"panic-then-fire": `levelbits=2 overflow=1
		Add atKind=5 atNear=1; Add atKind=5 atNear=1; Add atKind=5 atNear=2; Add atKind=5 atNear=3
		AdvanceClock toKind=1 toSmall=3 scripted=0 scriptAt=0 scriptAction=3
		FirePastAlarms scripted=0 scriptAt=0 scriptAction=0
		AdvanceClockStopAtNextAlarm toKind=3 scripted=1`,
	// Precision 2^10 ns, level bits [1 1] with overflow levels: alarms far
	// beyond the levels, limited advances, a big jump.
	"overflow-far": `precision=6 levelbits=2 overflow=0 startKind=2 start=123456789
		Add atKind=4 atAnywhere=1099511627776; Add atKind=4 atAnywhere=1048576
		Add atKind=5 atNear=3000; Add atKind=2
		AdvanceClockLimit toKind=2 toJump=2199023255552 limit=1 scripted=1
		AdvanceClockLimit toKind=2 toJump=2199023255552 limit=2 scripted=1
		AdvanceClock toKind=3 scripted=1`,
	// The default level bits: handlers that reschedule and remove other
	// alarms, Shrink, a nil handler, Clear.
	"default-handlers": `levelbits=6 overflow=1 startKind=2 start=1073741824
		Add atKind=5 atNear=5; Add atKind=5 atNear=5; Add atKind=5 atNear=9; Add atKind=5 atNear=16
		Reschedule reschedLive=1 resched=0 reschedAtKind=5 reschedAtNear=9
		AdvanceClock toKind=6 toMedium=7 scripted=0 scriptAt=0 scriptAction=2 scriptOffset=2 scriptTargetLive=1 scriptTarget=1
		Shrink
		AdvanceClock toKind=6 toMedium=5 scripted=0 scriptAt=0 scriptAction=1 scriptTargetLive=1 scriptTarget=0
		Add atKind=5 atNear=4; AdvanceClock toKind=6 toMedium=64 scripted=0 scriptAction=4
		Add atKind=5 atNear=4; Clear`,
	// The discrete-event loop: alarms at one instant and at later ones, then
	// stop-at-next steps to MaxTime, one instant each.
	"stop-at-next": `levelbits=3 overflow=1
		Add atKind=5 atNear=2; Add atKind=5 atNear=2; Add atKind=5 atNear=5; Add atKind=5 atNear=0
		AdvanceClockStopAtNextAlarm toKind=3 scripted=1
		AdvanceClockStopAtNextAlarm toKind=3 scripted=0 scriptAt=0 scriptAction=0 scriptOffset=0
		AdvanceClockStopAtNextAlarm toKind=3 scripted=1; AdvanceClockStopAtNextAlarm toKind=3 scripted=1
		AdvanceClockStopAtNextAlarm toKind=3 scripted=1`,
	// Level bits [2 1] with overflow: two alarms of one interval added at
	// different times sit on different levels; a cascade must keep the older
	// one ahead (the cascade-lowest-level mutant breaks it).
	"cascade-order": `levelbits=3 overflow=0
		AdvanceClock toKind=6 toMedium=7 scripted=1; Add atKind=5 atNear=9
		AdvanceClock toKind=1 toSmall=2 scripted=1; Add atKind=5 atNear=7; Add atKind=5 atNear=4
		AdvanceClock toKind=3 scripted=1`,
}

var queueScenarios = map[string]string{
	// Level bits [1]: keys at both ends of the allowed range and just outside
	// it, an increase to the top of the key space, one past it.
	"tiny-edges": `; Add keyKind=1; Add keyKind=2; Add keyKind=3; Add keyKind=0; MinElt
		IncreaseMinAllowedKey incKind=3 scripted=1; Add keyKind=1; Add keyKind=2
		IncreaseMinAllowedKey incKind=6 pastTop=0 scripted=1`,
	// Level bits [1 1 1]: one key added at different minimums sits on
	// different levels and must still leave in the order it came.
	"same-key-levels": `lbchoice=5; Add keyKind=4 keyNear=9
		IncreaseMinAllowedKey incKind=1 small=4 scripted=1; Add keyKind=6
		IncreaseMinAllowedKey incKind=0 scripted=1; Add keyKind=6
		Change changeLive=1 change=0 ckeyKind=6 ckeyInUse=1
		IncreaseMinAllowedKey incKind=7 nearMin=1 scripted=1`,
	// Level bits [2 2]: a removal handler panics; the next increase, even
	// backwards, removes the rest first.
	"handler-panic": `lbchoice=2 cap=2
		Add keyKind=4 keyNear=1; Add keyKind=4 keyNear=3; Add keyKind=7 key=12; Add keyKind=4 keyNear=3
		IncreaseMinAllowedKey incKind=1 small=8 scripted=0 scriptAt=1 scriptAction=3
		Add keyKind=0; IncreaseMinAllowedKey incKind=4 back=2 scripted=1
		IncreaseMinAllowedKey incKind=2 big=1048576 scripted=1`,
	// The default level bits: big and huge jumps, Change, Remove of live and
	// dead handles, Shrink, Clear.
	"default-jumps": `lbchoice=4 cap=8
		Add keyKind=7 key=5000; Add keyKind=7 key=900000; Add keyKind=1; Add keyKind=4 keyNear=12
		Change changeLive=1 change=0 ckeyKind=7 ckey=4096; Remove removeLive=1 remove=2
		IncreaseMinAllowedKey incKind=2 big=3000 scripted=1; Remove removeLive=0 removeDead=1; Shrink
		IncreaseMinAllowedKey incKind=5 huge=1099511627776 scripted=1; Add keyKind=1; Clear; MinElt`,
	// Level bits [3 1]: removal handlers that add at the new minimum and
	// change another element's key, and a nil handler.
	"handler-add-change": `lbchoice=3
		Add keyKind=4 keyNear=2; Add keyKind=4 keyNear=3; Add keyKind=4 keyNear=10; Add keyKind=1
		IncreaseMinAllowedKey incKind=1 small=3 scripted=0 scriptAt=0 scriptAction=0 scriptOffset=1
		IncreaseMinAllowedKey incKind=1 small=4 scripted=0 scriptAt=0 scriptAction=2 scriptOffset=9 scriptTargetLive=1 scriptTarget=1
		IncreaseMinAllowedKey incKind=2 big=30 scripted=0 scriptAction=4`,
	// Level bits [1 1]: handles from before a Clear must stay rejected after
	// new elements reuse their records.
	"clear-then-stale": `lbchoice=1; Add keyKind=0; Add keyKind=1; Clear; Add keyKind=0; Add keyKind=1
		Remove removeLive=0 removeDead=1 removeDeadPick=0
		Change changeLive=0 changeDead=1 changeDeadPick=1 ckeyKind=0`,
	// Level bits [2 2] with room for 4: Shrink moves the records of the
	// elements that stay; their handles must still work.
	"shrink-moves": `lbchoice=2 cap=4
		Add keyKind=4 keyNear=1; Add keyKind=4 keyNear=2; Add keyKind=4 keyNear=3; Add keyKind=4 keyNear=4
		Remove removeLive=1 remove=0; Remove removeLive=1 remove=0; Shrink
		Change changeLive=1 change=1 ckeyKind=4 ckeyNear=0; Remove removeLive=1 remove=0
		IncreaseMinAllowedKey incKind=3 scripted=1`,
}

// pick is one scripted choice: a label and its value (for "op", the index
// of the operation).
type pick struct {
	label string
	v     int64
}

// scriptSource answers a generator from a scenario and records the bytes
// from which ByteSource decodes the same answers.
type scriptSource struct {
	script []pick
	out    []byte
}

func (s *scriptSource) take(label string, dflt int64) int64 {
	if len(s.script) > 0 && s.script[0].label == label {
		dflt, s.script = s.script[0].v, s.script[1:]
	}
	return dflt
}

// emit writes x as ByteSource reads a value in [0, span].
func (s *scriptSource) emit(label string, x, span uint64) {
	if x > span {
		panic(fmt.Sprintf("scenario: %s = %d out of range", label, x))
	}
	for i := 0; span != 0 && i < 8; i++ {
		s.out = append(s.out, byte(x>>(8*i)))
		if span >>= 8; span == 0 {
			break
		}
	}
}

func (s *scriptSource) Intn(label string, n int) int {
	v := s.take(label, 0)
	s.emit(label, uint64(v), uint64(n-1))
	return int(v)
}

func (s *scriptSource) Choose(label string, n, _ int) int { return s.Intn(label, n) }

func (s *scriptSource) Int64Range(label string, lo, hi int64) int64 {
	v := s.take(label, 0)
	s.emit(label, uint64(v), uint64(hi-lo))
	return lo + v
}

// parseScenario turns a scenario into choices; an operation's choice is the
// smallest value that draws it with weights.
func parseScenario(t *testing.T, text string, k *harness.Kind, weights []int) []pick {
	var script []pick
	for i, call := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == ';' }) {
		f := strings.Fields(call)
		if len(f) == 0 {
			continue
		}
		if i > 0 || strings.HasPrefix(text, ";") {
			j := slices.Index(k.Names(), f[0])
			if j < 0 {
				t.Fatalf("scenario: unknown operation %q", f[0])
			}
			var v int
			for _, w := range weights[:j] {
				v += w
			}
			script, f = append(script, pick{"op", int64(v)}), f[1:]
		}
		for _, kv := range f {
			label, val, _ := strings.Cut(kv, "=")
			x, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				t.Fatalf("scenario: %q: %v", kv, err)
			}
			script = append(script, pick{label, x})
		}
	}
	return script
}

// encode runs a scenario's choices on a harness and returns the bytes from
// which the fuzz target decodes the same calls, and their trace.
func encode(t *testing.T, wheel bool, text string) ([]byte, string) {
	s, err := (&options{}).structure(wheel)
	if err != nil {
		t.Fatal(err)
	}
	k := map[bool]*harness.Kind{true: harness.WheelKind, false: harness.QueueKind}[wheel]
	src := &scriptSource{script: parseScenario(t, text, k, s.weights)}
	setup, err := s.draw(src)
	if err != nil {
		t.Fatal(err)
	}
	h, err := setup.New()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; len(src.script) > 0; i++ {
		if i == maxFuzzCalls {
			t.Fatalf("scenario: choices never asked for: %v", src.script)
		}
		if err := h.Step(h.Gen(src, s.weights, false)); err != nil {
			t.Fatal(err)
		}
	}
	return src.out, h.Trace()
}

// TestFuzzSeeds checks the committed seed corpora against the scenarios and
// that each seed, decoded as the fuzz targets decode it, gives the
// scenario's calls and passes.
func TestFuzzSeeds(t *testing.T) {
	for wheel, scenarios := range map[bool]map[string]string{true: wheelScenarios, false: queueScenarios} {
		dir := map[bool]string{true: "../timingwheel/testdata/fuzz/FuzzWheel", false: "../priorityqueue/testdata/fuzz/FuzzQueue"}[wheel]
		for name, text := range scenarios {
			data, trace := encode(t, wheel, text)
			path := filepath.Join(dir, name)
			want := []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n")
			if *updateSeeds {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s (%v) is not what scenario %q encodes to; rerun with -update-seeds", path, err, name)
			}
			if decoded := checkBytes(t, wheel, data, nil).Trace(); decoded != trace {
				t.Errorf("seed %s decodes to\n%s\nwant\n%s", name, decoded, trace)
			}
		}
	}
}
