package alarm_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// A handle names its alarm only while the alarm is in the wheel that issued
// it: after it fires or is removed, and in any other wheel, it is rejected.
func ExampleAlarm() {
	start := time.Unix(0, 0)
	w, _ := timingwheel.New[string](start, time.Millisecond)
	var tea alarm.Alarm // the same type as timingwheel.Alarm
	tea, _ = w.Add(start.Add(time.Second), "tea")
	fmt.Println("null:", tea.IsNull(), "in the wheel:", w.Mem(tea))

	w.Remove(tea)
	coffee, _ := w.Add(start.Add(time.Second), "coffee") // may reuse tea's record
	_, err := w.AlarmValue(tea)
	fmt.Println("tea after removal:", errors.Is(err, timingwheel.ErrInvalidAlarm))
	v, _ := w.AlarmValue(coffee)
	fmt.Println("coffee:", v)

	other, _ := timingwheel.New[string](start, time.Millisecond)
	other.Add(start.Add(time.Second), "juice")
	fmt.Println("other wheel knows coffee:", other.Mem(coffee))

	var null alarm.Alarm
	fmt.Println("null:", null.IsNull(), null)
	// Output:
	// null: false in the wheel: true
	// tea after removal: true
	// coffee: coffee
	// other wheel knows coffee: false
	// null: true alarm(null)
}

// TestHandleSize: a handle is 16 bytes with no pointers, as the package doc
// says (a pointer-free type is one reflect finds no pointer in).
func TestHandleSize(t *testing.T) {
	var a alarm.Alarm
	if n := unsafe.Sizeof(a); n != 16 {
		t.Errorf("an Alarm is %d bytes, the doc says 16", n)
	}
	typ := reflect.TypeOf(a)
	for i := range typ.NumField() {
		switch typ.Field(i).Type.Kind() {
		case reflect.Pointer, reflect.UnsafePointer, reflect.Slice, reflect.Map, reflect.Chan,
			reflect.Func, reflect.Interface, reflect.String, reflect.Struct, reflect.Array:
			t.Errorf("field %s of Alarm is a %v", typ.Field(i).Name, typ.Field(i).Type.Kind())
		}
	}
}
