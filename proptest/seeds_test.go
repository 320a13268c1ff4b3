package proptest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest/internal/harness"
)

// The fuzz seed corpora of priorityqueue (FuzzQueue) and timingwheel
// (FuzzWheel) are written from the scenarios below: each names the choices
// that matter, in the order the generators ask for them (by label); every
// other choice takes its smallest value. TestFuzzSeeds checks that the
// committed files are what the scenarios encode to and that each replays
// cleanly; go test ./proptest -run TestFuzzSeeds -update-seeds rewrites them.

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the fuzz seed corpora of priorityqueue and timingwheel")

// pick is one scripted choice: a label and its value (an int, or for "op"
// the name of an operation).
type pick struct {
	label string
	v     any
}

// scriptSource answers a generator from a scenario and records the bytes
// from which byteSource decodes the same answers.
type scriptSource struct {
	script  []pick
	kind    *harness.Kind // operation names, for "op"
	weights []int
	out     []byte
}

func (s *scriptSource) take(label string) (any, bool) {
	if len(s.script) > 0 && s.script[0].label == label {
		v := s.script[0].v
		s.script = s.script[1:]
		return v, true
	}
	return nil, false
}

func (s *scriptSource) emit(span, x uint64) {
	if span == 0 {
		return
	}
	n := 1
	for n < 8 && span>>(8*n) != 0 {
		n++
	}
	for i := 0; i < n; i++ {
		s.out = append(s.out, byte(x>>(8*i)))
	}
}

func (s *scriptSource) Intn(label string, n int) int {
	v := 0
	if c, ok := s.take(label); ok {
		if name, isName := c.(string); isName {
			i := slices.Index(s.kind.Names(), name)
			if i < 0 {
				panic("scenario: unknown operation " + name)
			}
			for _, w := range s.weights[:i] {
				v += w
			}
		} else {
			v = c.(int)
		}
	}
	if v < 0 || v >= n {
		panic(fmt.Sprintf("scenario: %s = %d not in [0, %d)", label, v, n))
	}
	s.emit(uint64(n-1), uint64(v))
	return v
}

func (s *scriptSource) Int64Range(label string, lo, hi int64) int64 {
	v := lo
	if c, ok := s.take(label); ok {
		v = lo + int64(c.(int))
	}
	if v < lo || v > hi {
		panic(fmt.Sprintf("scenario: %s = %d not in [%d, %d]", label, v, lo, hi))
	}
	s.emit(uint64(hi-lo), uint64(v-lo))
	return v
}

// op starts an operation in a scenario.
func op(name string, rest ...pick) []pick { return append([]pick{{"op", name}}, rest...) }

func scenario(head []pick, ops ...[]pick) []pick {
	out := slices.Clone(head)
	for _, o := range ops {
		out = append(out, o...)
	}
	return out
}

// panicHandler makes a firing call's handler panic at its first call.
var panicHandler = []pick{{"scripted", 0}, {"scriptAt", 0}, {"scriptAction", 3}}

var wheelScenarios = map[string][]pick{
	// Level bits [1] at 1 ns: adds at the reach, past it, before the current
	// interval; a jump to MaxTime; an alarm at MaxTime that only
	// FirePastAlarms fires.
	"tiny-edges": scenario([]pick{{"overflow", 1}},
		op("Add", pick{"atKind", 2}), op("Add", pick{"atKind", 3}), op("Add", pick{"atKind", 0}),
		op("AddAtIntervalNum", pick{"intervalFar", 0}, pick{"intervalEdge", 2}),
		op("AdvanceClock", pick{"toKind", 0}, pick{"scripted", 1}),
		op("AdvanceClock", pick{"toKind", 3}, pick{"scripted", 1}),
		op("Add", pick{"atKind", 2}),
		op("FirePastAlarms", pick{"scripted", 1})),
	// Level bits [1 1]: a handler panics in the middle of an advance; the
	// rest fire first on the next FirePastAlarms and stop-at-next step.
	"panic-then-fire": scenario([]pick{{"levelbits", 2}, {"overflow", 1}},
		op("Add", pick{"atKind", 5}, pick{"atNear", 1}), op("Add", pick{"atKind", 5}, pick{"atNear", 1}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 2}), op("Add", pick{"atKind", 5}, pick{"atNear", 3}),
		op("AdvanceClock", append([]pick{{"toKind", 1}, {"toSmall", 3}}, panicHandler...)...),
		op("FirePastAlarms", pick{"scripted", 0}, pick{"scriptAt", 0}, pick{"scriptAction", 0}),
		op("AdvanceClockStopAtNextAlarm", pick{"toKind", 3}, pick{"scripted", 1})),
	// Precision 2^10 ns, level bits [1 1] with overflow levels: alarms far
	// beyond the levels, limited advances, a big jump.
	"overflow-far": scenario([]pick{{"precision", 6}, {"levelbits", 2}, {"overflow", 0}, {"startKind", 2}, {"start", 123456789}},
		op("Add", pick{"atKind", 4}, pick{"atAnywhere", 1 << 40}), op("Add", pick{"atKind", 4}, pick{"atAnywhere", 1 << 20}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 3000}), op("Add", pick{"atKind", 2}),
		op("AdvanceClockLimit", pick{"toKind", 2}, pick{"toJump", 1 << 41}, pick{"limit", 1}, pick{"scripted", 1}),
		op("AdvanceClockLimit", pick{"toKind", 2}, pick{"toJump", 1 << 41}, pick{"limit", 2}, pick{"scripted", 1}),
		op("AdvanceClock", pick{"toKind", 3}, pick{"scripted", 1})),
	// The default level bits: handlers that reschedule and remove other
	// alarms, Shrink, a nil handler, Clear.
	"default-handlers": scenario([]pick{{"levelbits", 6}, {"overflow", 1}, {"startKind", 2}, {"start", 1 << 30}},
		op("Add", pick{"atKind", 5}, pick{"atNear", 5}), op("Add", pick{"atKind", 5}, pick{"atNear", 5}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 9}), op("Add", pick{"atKind", 5}, pick{"atNear", 16}),
		op("Reschedule", pick{"reschedLive", 1}, pick{"resched", 0}, pick{"reschedAtKind", 5}, pick{"reschedAtNear", 9}),
		op("AdvanceClock", pick{"toKind", 6}, pick{"toMedium", 7}, pick{"scripted", 0}, pick{"scriptAt", 0},
			pick{"scriptAction", 2}, pick{"scriptOffset", 2}, pick{"scriptTargetLive", 1}, pick{"scriptTarget", 1}),
		op("Shrink"),
		op("AdvanceClock", pick{"toKind", 6}, pick{"toMedium", 5}, pick{"scripted", 0}, pick{"scriptAt", 0},
			pick{"scriptAction", 1}, pick{"scriptTargetLive", 1}, pick{"scriptTarget", 0}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 4}),
		op("AdvanceClock", pick{"toKind", 6}, pick{"toMedium", 64}, pick{"scripted", 0}, pick{"scriptAction", 4}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 4}),
		op("Clear")),
	// The discrete-event loop: alarms at one instant and at later ones, then
	// stop-at-next steps to MaxTime, one instant each.
	"stop-at-next": scenario([]pick{{"levelbits", 3}, {"overflow", 1}},
		op("Add", pick{"atKind", 5}, pick{"atNear", 2}), op("Add", pick{"atKind", 5}, pick{"atNear", 2}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 5}), op("Add", pick{"atKind", 5}, pick{"atNear", 0}),
		op("AdvanceClockStopAtNextAlarm", pick{"toKind", 3}, pick{"scripted", 1}),
		op("AdvanceClockStopAtNextAlarm", pick{"toKind", 3}, pick{"scripted", 0}, pick{"scriptAt", 0},
			pick{"scriptAction", 0}, pick{"scriptOffset", 0}),
		op("AdvanceClockStopAtNextAlarm", pick{"toKind", 3}, pick{"scripted", 1}),
		op("AdvanceClockStopAtNextAlarm", pick{"toKind", 3}, pick{"scripted", 1}),
		op("AdvanceClockStopAtNextAlarm", pick{"toKind", 3}, pick{"scripted", 1})),
	// Level bits [2 1] with overflow: two alarms of one interval added at
	// different times sit on different levels; a cascade must keep the older
	// one ahead (the cascade-lowest-level mutant breaks it).
	"cascade-order": scenario([]pick{{"levelbits", 3}, {"overflow", 0}},
		op("AdvanceClock", pick{"toKind", 6}, pick{"toMedium", 7}, pick{"scripted", 1}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 9}),
		op("AdvanceClock", pick{"toKind", 1}, pick{"toSmall", 2}, pick{"scripted", 1}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 7}),
		op("Add", pick{"atKind", 5}, pick{"atNear", 4}),
		op("AdvanceClock", pick{"toKind", 3}, pick{"scripted", 1})),
}

var queueScenarios = map[string][]pick{
	// Level bits [1]: keys at both ends of the allowed range and just outside
	// it, an increase to the top of the key space, one past it.
	"tiny-edges": scenario(nil,
		op("Add", pick{"keyKind", 1}), op("Add", pick{"keyKind", 2}), op("Add", pick{"keyKind", 3}),
		op("Add", pick{"keyKind", 0}), op("MinElt"),
		op("IncreaseMinAllowedKey", pick{"incKind", 3}, pick{"scripted", 1}),
		op("Add", pick{"keyKind", 1}), op("Add", pick{"keyKind", 2}),
		op("IncreaseMinAllowedKey", pick{"incKind", 6}, pick{"pastTop", 0}, pick{"scripted", 1})),
	// Level bits [1 1 1]: one key added at different minimums sits on
	// different levels and must still leave in the order it came.
	"same-key-levels": scenario([]pick{{"lbchoice", 5}},
		op("Add", pick{"keyKind", 4}, pick{"keyNear", 9}),
		op("IncreaseMinAllowedKey", pick{"incKind", 1}, pick{"small", 4}, pick{"scripted", 1}),
		op("Add", pick{"keyKind", 6}),
		op("IncreaseMinAllowedKey", pick{"incKind", 0}, pick{"scripted", 1}),
		op("Add", pick{"keyKind", 6}),
		op("Change", pick{"changeLive", 1}, pick{"change", 0}, pick{"ckeyKind", 6}, pick{"ckeyInUse", 1}),
		op("IncreaseMinAllowedKey", pick{"incKind", 7}, pick{"nearMin", 1}, pick{"scripted", 1})),
	// Level bits [2 2]: a removal handler panics; the next increase, even
	// backwards, removes the rest first.
	"handler-panic": scenario([]pick{{"lbchoice", 2}, {"cap", 2}},
		op("Add", pick{"keyKind", 4}, pick{"keyNear", 1}), op("Add", pick{"keyKind", 4}, pick{"keyNear", 3}),
		op("Add", pick{"keyKind", 7}, pick{"key", 12}), op("Add", pick{"keyKind", 4}, pick{"keyNear", 3}),
		op("IncreaseMinAllowedKey", pick{"incKind", 1}, pick{"small", 8}, pick{"scripted", 0}, pick{"scriptAt", 1}, pick{"scriptAction", 3}),
		op("Add", pick{"keyKind", 0}),
		op("IncreaseMinAllowedKey", pick{"incKind", 4}, pick{"back", 2}, pick{"scripted", 1}),
		op("IncreaseMinAllowedKey", pick{"incKind", 2}, pick{"big", 1 << 20}, pick{"scripted", 1})),
	// The default level bits: big and huge jumps, Change, Remove of live and
	// dead handles, Shrink, Clear.
	"default-jumps": scenario([]pick{{"lbchoice", 4}, {"cap", 8}},
		op("Add", pick{"keyKind", 7}, pick{"key", 5000}), op("Add", pick{"keyKind", 7}, pick{"key", 900000}),
		op("Add", pick{"keyKind", 1}), op("Add", pick{"keyKind", 4}, pick{"keyNear", 12}),
		op("Change", pick{"changeLive", 1}, pick{"change", 0}, pick{"ckeyKind", 7}, pick{"ckey", 4096}),
		op("Remove", pick{"removeLive", 1}, pick{"remove", 2}),
		op("IncreaseMinAllowedKey", pick{"incKind", 2}, pick{"big", 3000}, pick{"scripted", 1}),
		op("Remove", pick{"removeLive", 0}, pick{"removeDead", 1}),
		op("Shrink"),
		op("IncreaseMinAllowedKey", pick{"incKind", 5}, pick{"huge", 1 << 40}, pick{"scripted", 1}),
		op("Add", pick{"keyKind", 1}), op("Clear"), op("MinElt")),
	// Level bits [3 1]: removal handlers that add at the new minimum and
	// change another element's key, and a nil handler.
	"handler-add-change": scenario([]pick{{"lbchoice", 3}},
		op("Add", pick{"keyKind", 4}, pick{"keyNear", 2}), op("Add", pick{"keyKind", 4}, pick{"keyNear", 3}),
		op("Add", pick{"keyKind", 4}, pick{"keyNear", 10}), op("Add", pick{"keyKind", 1}),
		op("IncreaseMinAllowedKey", pick{"incKind", 1}, pick{"small", 3}, pick{"scripted", 0}, pick{"scriptAt", 0},
			pick{"scriptAction", 0}, pick{"scriptOffset", 1}),
		op("IncreaseMinAllowedKey", pick{"incKind", 1}, pick{"small", 4}, pick{"scripted", 0}, pick{"scriptAt", 0},
			pick{"scriptAction", 2}, pick{"scriptOffset", 9}, pick{"scriptTargetLive", 1}, pick{"scriptTarget", 1}),
		op("IncreaseMinAllowedKey", pick{"incKind", 2}, pick{"big", 30}, pick{"scripted", 0}, pick{"scriptAction", 4})),
	// Level bits [1 1]: handles from before a Clear must stay rejected after
	// new elements reuse their records.
	"clear-then-stale": scenario([]pick{{"lbchoice", 1}},
		op("Add", pick{"keyKind", 0}), op("Add", pick{"keyKind", 1}),
		op("Clear"),
		op("Add", pick{"keyKind", 0}), op("Add", pick{"keyKind", 1}),
		op("Remove", pick{"removeLive", 0}, pick{"removeDead", 1}, pick{"removeDeadPick", 0}),
		op("Change", pick{"changeLive", 0}, pick{"changeDead", 1}, pick{"changeDeadPick", 1}, pick{"ckeyKind", 0})),
	// Level bits [2 2] with room for 4: Shrink moves the records of the
	// elements that stay; their handles must still work.
	"shrink-moves": scenario([]pick{{"lbchoice", 2}, {"cap", 4}},
		op("Add", pick{"keyKind", 4}, pick{"keyNear", 1}), op("Add", pick{"keyKind", 4}, pick{"keyNear", 2}),
		op("Add", pick{"keyKind", 4}, pick{"keyNear", 3}), op("Add", pick{"keyKind", 4}, pick{"keyNear", 4}),
		op("Remove", pick{"removeLive", 1}, pick{"remove", 0}),
		op("Remove", pick{"removeLive", 1}, pick{"remove", 0}),
		op("Shrink"),
		op("Change", pick{"changeLive", 1}, pick{"change", 1}, pick{"ckeyKind", 4}, pick{"ckeyNear", 0}),
		op("Remove", pick{"removeLive", 1}, pick{"remove", 0}),
		op("IncreaseMinAllowedKey", pick{"incKind", 3}, pick{"scripted", 1})),
}

// encode runs a scenario's choices on a harness and returns the bytes from
// which the fuzz target decodes the same calls, and their trace.
func encode(t *testing.T, wheel bool, script []pick) ([]byte, string) {
	s, err := (&options{}).structure(wheel)
	if err != nil {
		t.Fatal(err)
	}
	k := harness.QueueKind
	if wheel {
		k = harness.WheelKind
	}
	src := &scriptSource{script: script, kind: k, weights: s.weights}
	h, err := s.draw(src)
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

func corpusFile(data []byte) []byte {
	return []byte("go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n")
}

// TestFuzzSeeds checks the committed seed corpora against the scenarios and
// checks that each seed, decoded as the fuzz targets decode it, gives the
// scenario's trace and replays cleanly.
func TestFuzzSeeds(t *testing.T) {
	check := func(dir, name string, data []byte, trace string, replay func([]byte) string) {
		t.Helper()
		path := filepath.Join(dir, name)
		want := corpusFile(data)
		if *updateSeeds {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./proptest -run TestFuzzSeeds -update-seeds writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what scenario %q encodes to; rerun with -update-seeds", path, name)
		}
		// The fuzz target's decoding of the bytes gives the same calls.
		if decoded := replay(data); decoded != trace {
			t.Errorf("seed %s decodes to\n%s\nwant\n%s", name, decoded, trace)
		}
		t.Logf("seed %s (%d bytes):\n%s", name, len(data), trace)
	}
	for wheel, scenarios := range map[bool]map[string][]pick{true: wheelScenarios, false: queueScenarios} {
		dir := map[bool]string{true: "../timingwheel/testdata/fuzz/FuzzWheel", false: "../priorityqueue/testdata/fuzz/FuzzQueue"}[wheel]
		for name, script := range scenarios {
			data, trace := encode(t, wheel, script)
			check(dir, name, data, trace, func(b []byte) string { return checkBytes(t, wheel, b, nil).Trace() })
		}
	}
}
