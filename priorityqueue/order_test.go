package priorityqueue_test

import (
	"testing"

	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

// TestOrderAcrossLevelsAfterJump is the case where the original's cascade (to
// the lowest level that can hold a key) breaks FIFO order within one key: with
// level bits [1 1 1], an element f with key 8 added when the minimum is 3 sits
// on level 2; e, also key 8, added at minimum 5 sits on level 1; a jump to 7
// passes level 2's slot but not level 1's, and the lowest level for key 8 is
// then level 0. Sending f there puts it below the newer e, and e fires first.
func TestOrderAcrossLevelsAfterJump(t *testing.T) {
	lb, _ := levelbits.New(1, 1, 1)
	q := priorityqueue.New[string](lb, 0)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(q.IncreaseMinAllowedKey(3, nil))
	_, err := q.Add(8, "f (older)")
	must(err)
	must(q.IncreaseMinAllowedKey(5, nil))
	_, err = q.Add(8, "e (newer)")
	must(err)
	must(q.IncreaseMinAllowedKey(7, nil))
	must(q.Invariant())
	var got []string
	must(q.IncreaseMinAllowedKey(9, func(ev priorityqueue.Element[string]) {
		a := ev.Alarm

		v, _ := q.Value(a)
		got = append(got, v)
	}))
	if len(got) != 2 || got[0] != "f (older)" || got[1] != "e (newer)" {
		t.Fatalf("removed %q, want f then e", got)
	}
}
