package harness

import (
	"errors"
	"os"
	"path/filepath"
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
		s, ops, err := Parse(text, nil, nil)
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
		// A line longer than any buffer is read, and so is what follows it.
		{"wheel bits=1\nAdd 3 1\n# " + strings.Repeat("x", 1<<20+10) + "\nJump 3", `line 4: unknown call "Jump"`},
		{"wheel bits=1\nAdd 3 1 " + strings.Repeat("1 ", 1<<20), "line 2: Add: 1048578 arguments, want 2"},
		// Nothing a trace says is dropped or rewritten.
		{"wheel bits=1 bits=2", "line 1: header field bits=2: bits given twice"},
		{"wheel bits=1\nAdvanceClock 1 handler=0,add,0,0", "line 2: handler \"0,add,0,0\": call 0: a handler's calls count from 1"},
		{"wheel bits=1\nAdvanceClock 1 handler=-3,remove,0,1", "call -3: a handler's calls count from 1"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,panic,3,0", "line 2: handler \"1,panic,3,0\": panic takes no offset"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,add,2,4", "line 2: handler \"1,add,2,4\": add takes no target"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,nil,2,0", "nil takes no offset"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,remove,2,1", "remove takes no offset"},
		{"wheel bits=1\nAdvanceClock 1 handler=1,remove,0,-1", "line 2: handler \"1,remove,0,-1\": alarm id -1"},
		{"wheel bits=1\nRemove -2", "line 2: Remove: alarm id -2: ids are 1 and up (0: the null alarm)"},
		{"wheel bits=1\nAdd 3 0", "line 2: Add 3 0: the alarm's id is 0, want 1"},
		{"wheel bits=1\nAdd 3 2", "line 2: Add 3 2: the alarm's id is 2, want 1"},
		{"wheel bits=2\nAdd 3 1\nAdd 3 1", "line 3: Add 3 1: the alarm's id is 1, want 2"},
		{"wheel bits=2\nAdd 3 1\nAdvanceClock 4 handler=1,add,1,0\nAdd 6 2", "line 4: Add 6 2: the alarm's id is 2, want 3"},
		{"queue bits=1\nAdd 1 7", "line 2: Add 1 7: the element's id is 7, want 1"},
		// Hostile numbers: clear errors, not a false failure or unbounded memory.
		{"wheel precision=0 bits=1,1 capacity=0 overflow=false start=0\nAdd 5 9223372036854775807\nAdd 6 2\nAdd 7 3",
			"line 2: Add 5 9223372036854775807: the alarm's id is 9223372036854775807, want 1"},
		{"wheel bits=1 capacity=4000000000", "line 1: header capacity=4000000000: a trace's capacity is 0 to 65536"},
		{"queue bits=1 capacity=4000000000", "line 1: header capacity=4000000000: a trace's capacity is 0 to 65536"},
		{"queue bits=1 capacity=-1", "capacity=-1: a trace's capacity is 0 to 65536"},
		{"wheel bits=1 start=-1", "line 1: header start=-1: the start is 0 to 4611686018427387903 ns"},
		{"wheel bits=1 start=4611686018427387904", "the start is 0 to 4611686018427387903 ns"},
		{"wheel bits=1 precision=99", "line 1: trace config"},
	} {
		if err := Replay(c.text, nil, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Replay(%q) = %v, want an error containing %q", c.text, err, c.want)
		}
	}
}

// FuzzTrace: any text replayed on the library's wheel or queue either
// passes or fails as a malformed trace naming its line; never a difference
// (the library's structures are the reference here), a panic, or memory
// beyond what the text holds.
func FuzzTrace(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/*/*.trace")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{
		"wheel precision=0 bits=1,1 capacity=0 overflow=false start=0\nAdd 5 1\nAdd 5 2\nAdvanceClockLimit 9 1 handler=1,reschedule,2,2\nStep handler=2,remove,0,1\n",
		"wheel precision=3 bits=2,1 capacity=4 overflow=true start=4611686018427387903\nAdd 4611686018427387903 1\nFirePastAlarms handler=1,add,-9223372036854775808,0\n",
		"queue bits=1,1 capacity=3\nAdd 3 1\nChange 1 9223372036854775807\nIncreaseMinAllowedKey -5 handler=1,add,9223372036854775807,0\nMinElt\n",
		"wheel bits=1\nAdd -9223372036854775808 1\nAdd 1 1\nAdd 1 2\nAdvanceClock 5 handler=1,reschedule,-9223372036854775808,2\n",
		"wheel precision=46 bits=1\nAddAtIntervalNum 9223372036854775807 1\nAdd 1 1\nRescheduleAtIntervalNum 1 -9223372036854775808\n",
		"wheel bits=62 start=4611686018427387903\nAdd 4611686018427387903 1\nAdvanceClockLimit 4611686018427387903 9223372036854775807\nFirePastAlarms\n",
		"queue bits=1\nAdd 0 1\nAdd 1 2\nIncreaseMinAllowedKey 1 handler=1,reschedule,-9223372036854775808,2\nIncreaseMinAllowedKey 9223372036854775807\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		err := Replay(text, nil, nil)
		var te *traceError
		if err != nil && !errors.As(err, &te) && !errors.Is(err, errEmpty) {
			t.Fatalf("replay of a trace on the library's own structure: %v\n%s", err, text)
		}
	})
}
