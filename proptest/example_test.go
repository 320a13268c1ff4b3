package proptest_test

import (
	"fmt"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/proptest"
)

// A trace in the text form a failing check prints, replayed on a real wheel
// and the model. Run returns the first difference, or nil.
func ExampleWheelTrace_Run() {
	tr, err := proptest.ParseWheelTrace(`
		wheel precision=0 bits=1,1 capacity=0 overflow=false start=0
		Add 5 1
		AdvanceClock 2
		Add 5 2
		AdvanceClock 6 handler=1,add,3,0
	`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(tr.Ops), "calls, difference:", tr.Run())
	// Output: 4 calls, difference: <nil>
}

// The reference model fires alarms in interval order, and within an interval
// in the order they were added.
func ExampleModel() {
	lb, _ := levelbits.New(2, 2)
	cfg, _ := config.New(config.OneNanosecond, config.WithLevelBits(lb))
	m, _ := proptest.NewModel[string](cfg, time.Unix(0, 0))
	m.Add(time.Unix(0, 7), "late")
	m.Add(time.Unix(0, 3), "first")
	m.Add(time.Unix(0, 3), "second")
	m.AdvanceClock(time.Unix(0, 10), func(a proptest.ModelAlarm) {
		v, _ := m.AlarmValue(a)
		fmt.Println(v)
	})
	// Output:
	// first
	// second
	// late
}

// The queue model removes by key, then by the order of Add and Change.
func ExampleQueueModel() {
	lb, _ := levelbits.New(3, 1)
	q := proptest.NewQueueModel[string](lb)
	a, _ := q.Add(4, "a")
	q.Add(4, "b")
	q.Add(2, "c")
	q.Change(a, 4) // a moves behind b
	q.IncreaseMinAllowedKey(5, func(e proptest.ModelAlarm) {
		v, _ := q.Value(e)
		fmt.Print(v, " ")
	})
	fmt.Println()
	// Output: c b a
}
