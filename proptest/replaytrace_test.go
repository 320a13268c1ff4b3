package proptest_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest"
)

// TestReplayTestdata replays every committed trace: each must pass on the
// real wheel or queue.
func TestReplayTestdata(t *testing.T) {
	wheels, _ := filepath.Glob("testdata/wheel/*.trace")
	queues, _ := filepath.Glob("testdata/queue/*.trace")
	if len(wheels) == 0 || len(queues) == 0 {
		t.Fatalf("no traces: %v %v", wheels, queues)
	}
	for _, p := range wheels {
		t.Run(p, func(t *testing.T) { proptest.ReplayWheel(t, p) })
	}
	for _, p := range queues {
		t.Run(p, func(t *testing.T) { proptest.ReplayQueue(t, p) })
	}
}

func TestTraceRoundTrip(t *testing.T) {
	text := `wheel precision=3 bits=2,1 capacity=4 overflow=true start=77
Add 80 1
AddAtIntervalNum 11 2
Remove 1
Reschedule 2 90
RescheduleAtIntervalNum 2 12
AdvanceClock 100 handler=2,reschedule,-3,5
AdvanceClockLimit 120 2 handler=1,nil,0,0
FirePastAlarms handler=1,panic,0,0
AdvanceClockStopAtNextAlarm 130
Shrink
Clear
`
	tr, err := proptest.ParseWheelTrace(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.String(); got != text {
		t.Errorf("round trip:\n%s\nwant\n%s", got, text)
	}
	want := proptest.WheelOp{Name: proptest.OpAdvanceClock, Time: 100,
		Script: proptest.Script{Call: 2, Action: proptest.ActReschedule, Offset: -3, Target: 5}}
	if !reflect.DeepEqual(tr.Ops[5], want) {
		t.Errorf("op 5 = %+v, want %+v", tr.Ops[5], want)
	}
	qtext := "queue bits=1,1 capacity=0\nAdd 3 1\nChange 1 4\nRemove 1\nIncreaseMinAllowedKey 5 handler=1,add,2,0\nMinElt\nShrink\nClear\n"
	qt, err := proptest.ParseQueueTrace(qtext)
	if err != nil {
		t.Fatal(err)
	}
	if got := qt.String(); got != qtext {
		t.Errorf("round trip:\n%s\nwant\n%s", got, qtext)
	}
}

func TestParseTraceErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "empty"},
		{"queue bits=1", `want "wheel" first`},
		{"wheel bits=1 speed=2", "unknown field"},
		{"wheel bits=1,x", "bits=1,x"},
		{"wheel bits=1\nJump 3", `line 2: unknown call "Jump"`},
		{"wheel bits=1\nAdd 3", "line 2: Add: 1 arguments, want 2"},
		{"wheel bits=1\nAdd x 1", `argument "x"`},
		{"wheel bits=1\nRemove 1 handler=1,add,0,0", "takes no handler"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,jump,0,0", "unknown action"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,add", "want call,action,offset,target"},
	} {
		_, err := proptest.ParseWheelTrace(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseWheelTrace(%q) = %v, want an error containing %q", c.text, err, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"wheel bits=1", `want "queue" first`},
		{"queue bits=1\nAdd 1 1 handler=1,add,0,0", "takes no handler"},
		{"queue bits=1\nChange 1", "Change: 1 arguments, want 2"},
	} {
		_, err := proptest.ParseQueueTrace(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseQueueTrace(%q) = %v, want an error containing %q", c.text, err, c.want)
		}
	}
	// A trace whose config is invalid fails to run, naming the config.
	tr, err := proptest.ParseWheelTrace("wheel precision=0 bits=0 start=0")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(); err == nil || !strings.Contains(err.Error(), "trace config") {
		t.Errorf("Run with level bits [0] = %v, want a config error", err)
	}
}
