//go:build twcheck

package checked

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseFull(t *testing.T) {
	if parseFull("") || !parseFull("full") {
		t.Fatal(`parseFull: "" must give false and "full" true`)
	}
	for _, v := range []string{"1", "Full", "local", "on"} {
		var msg string
		func() {
			defer func() { msg = fmt.Sprint(recover()) }()
			parseFull(v)
		}()
		if !strings.Contains(msg, "TWCHECK="+fmt.Sprintf("%q", v)) || !strings.Contains(msg, "TWCHECK=full") {
			t.Errorf("parseFull(%q) panics with %q, want a message naming the value and TWCHECK=full", v, msg)
		}
	}
}

func TestSchedDue(t *testing.T) {
	if Full() {
		t.Skip("TWCHECK=full: every call is due")
	}
	var s Sched
	for round := range 3 {
		for i := 1; i < 5; i++ {
			if s.Due(5) {
				t.Fatalf("round %d: due after %d calls, want after 5", round, i)
			}
		}
		if !s.Due(5) {
			t.Fatalf("round %d: not due after 5 calls", round)
		}
	}
	if !s.Due(1) || !s.Due(0) {
		t.Fatal("a cost of 1 or less must make every call due")
	}
}
