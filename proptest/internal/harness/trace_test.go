package harness

import (
	"strings"
	"testing"
)

// A trace's calls replay and format back to the same text.
func TestTraceRoundTrip(t *testing.T) {
	for _, text := range []string{`wheel precision=3 bits=2,1 capacity=4 overflow=true start=77
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
`, "queue bits=1,1 capacity=0\nAdd 3 1\nChange 1 4\nRemove 1\nIncreaseMinAllowedKey 5 handler=1,add,2,0\nMinElt\nShrink\nClear\n"} {
		k, kv, ops, err := parseTrace(text)
		if err != nil {
			t.Fatal(err)
		}
		s, err := wheelFromHeader(kv, nil)
		if k == QueueKind {
			s, err = queueFromHeader(kv, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		h, err := s.New()
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			if err := h.Step(op); err != nil {
				t.Fatal(err)
			}
		}
		if got := h.Trace(); got != text {
			t.Errorf("round trip:\n%s\nwant\n%s", got, text)
		}
	}
}

func TestParseTraceErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"", "empty"},
		{"stack bits=1", `want "wheel" or "queue" first`},
		{"wheel bits=1 speed=2", "speed=2: unknown field"},
		{"wheel bits=1,x", "bits=1,x"},
		{"wheel precision=0 bits=0 start=0", "trace config"},
		{"wheel bits=1\nJump 3", `line 2: unknown call "Jump"`},
		{"wheel bits=1\nAdd 3", "line 2: Add: 1 arguments, want 2"},
		{"wheel bits=1\nAdd x 1", `argument "x"`},
		{"wheel bits=1\nRemove 1 handler=1,add,0,0", "takes no handler"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,jump,0,0", "unknown action"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,add", "want call,action,offset,target"},
		{"queue bits=1\nAdd 1 1 handler=1,add,0,0", "takes no handler"},
		{"queue bits=1\nChange 1", "Change: 1 arguments, want 2"},
		{"queue bits=1\nAdvanceClock 1", `unknown call "AdvanceClock"`},
	} {
		if err := Replay(c.text, nil, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Replay(%q) = %v, want an error containing %q", c.text, err, c.want)
		}
	}
}
