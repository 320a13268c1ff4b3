package timingwheel_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/internal/checked"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

// TestShrinkAfterBurst: add 1e6 alarms, remove all but 10, Shrink. The bytes
// held must come down to a small multiple of the live set plus the fixed
// slot arrays; every surviving handle keeps working and every stale one is
// still rejected.
func TestShrinkAfterBurst(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	if checked.On {
		n = 3_000 // every call checks every invariant: O(n) per call
	}
	cfg, err := config.New(config.AboutOneMicrosecond)
	if err != nil {
		t.Fatal(err)
	}
	w, err := timingwheel.NewWithConfig[int64](cfg, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	handles := make([]alarm.Alarm, n)
	for i := range handles {
		// Spread over many slots and several levels.
		a, err := w.Add(time.Unix(0, int64(i)*7919%(1<<40)), int64(i))
		if err != nil {
			t.Fatal(err)
		}
		handles[i] = a
	}
	before := w.Stats().BytesHeld
	keep := map[int]bool{}
	for i := 0; i < 10; i++ {
		keep[(i*104729+13)%n] = true // scattered survivors, some at high indices
	}
	keep[n-1] = true
	for i, a := range handles {
		if !keep[i] {
			if err := w.Remove(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.Shrink()
	if err := w.Invariant(); err != nil {
		t.Fatal(err)
	}
	// The baseline: a wheel that only ever held the survivors.
	base, _ := timingwheel.NewWithConfig[int64](cfg, time.Unix(0, 0))
	for i := range keep {
		if _, err := base.Add(time.Unix(0, int64(i)*7919%(1<<40)), int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	st := w.Stats()
	want := base.Stats().BytesHeld
	if st.BytesHeld > 2*want {
		t.Fatalf("after Shrink %d bytes held for %d alarms; a wheel that only held them holds %d (before Shrink %d)",
			st.BytesHeld, st.Live, want, before)
	}
	t.Logf("bytes held: %d before Shrink, %d after; a wheel holding only the %d survivors: %d",
		before, st.BytesHeld, st.Live, want)
	for i, a := range handles {
		v, err := w.AlarmValue(a)
		if keep[i] {
			if err != nil || v != int64(i) || !w.Mem(a) {
				t.Fatalf("survivor %d: value %d, err %v, Mem %v", i, v, err, w.Mem(a))
			}
		} else if err == nil || w.Mem(a) || !errors.Is(w.Remove(a), timingwheel.ErrInvalidAlarm) {
			t.Fatalf("stale handle %d accepted after Shrink", i)
		}
	}
	// Survivors still fire with their own handles, in time order; new alarms
	// after the shrink get fresh records and do not alias stale handles.
	for i := 0; i < 1000; i++ {
		if _, err := w.Add(time.Unix(0, 1<<41+int64(i)), -1); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range handles {
		if !keep[i] && w.Mem(a) {
			t.Fatalf("stale handle %d aliases a new alarm", i)
		}
	}
	fired := map[alarm.Alarm]bool{}
	if err := w.AdvanceClock(time.Unix(0, 1<<41), func(ev timingwheel.Fired[int64]) {
		a := ev.Alarm
		fired[a] = true
	}); err != nil {
		t.Fatal(err)
	}
	for i := range keep {
		if !fired[handles[i]] {
			t.Fatalf("survivor %d did not fire under its own handle", i)
		}
	}
	if err := w.Invariant(); err != nil {
		t.Fatal(err)
	}
}

// TestShrinkTwiceAndReschedule: moved alarms can be moved again, rescheduled
// and removed through their original handles.
func TestShrinkTwiceAndReschedule(t *testing.T) {
	lb, _ := levelbits.New(2, 2)
	cfg, _ := config.New(config.OneNanosecond, config.WithLevelBits(lb), config.WithOverflow())
	w, _ := timingwheel.NewWithConfig[int](cfg, time.Unix(0, 0))
	var hs []alarm.Alarm
	for i := 0; i < 200; i++ {
		a, err := w.Add(time.Unix(0, int64(i*13)), i)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, a)
	}
	for i := 0; i < 190; i++ {
		if err := w.Remove(hs[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Shrink()
	if err := w.Reschedule(hs[195], time.Unix(0, 5)); err != nil {
		t.Fatal(err)
	}
	if err := w.Remove(hs[199]); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if _, err := w.Add(time.Unix(0, int64(1000+i)), 1000+i); err != nil {
			t.Fatal(err)
		}
	}
	w.Shrink()
	if err := w.Invariant(); err != nil {
		t.Fatal(err)
	}
	var got []int
	if err := w.AdvanceClock(time.Unix(0, 1<<20), func(ev timingwheel.Fired[int]) {
		a := ev.Alarm

		v, _ := w.AlarmValue(a)
		got = append(got, v)
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 9+50 || got[0] != 195 {
		t.Fatalf("fired %v", got)
	}
}

// TestShrinkAfterFiringBurst: fire 1e6 alarms in one AdvanceClock, then
// Shrink. The empty wheel must hold about what BytesHeld says: measured as
// the heap its release frees, which must not exceed BytesHeld by more than
// a margin far below the 4 MB the burst's due list takes.
func TestShrinkAfterFiringBurst(t *testing.T) {
	if checked.On {
		t.Skip("checked mode's log holds memory of its own")
	}
	freed, held := releasedHeap(func() *timingwheel.Wheel[int] {
		start := time.Unix(0, 0)
		w, err := timingwheel.New[int](start, time.Nanosecond)
		if err != nil {
			t.Fatal(err)
		}
		const n = 1_000_000
		for i := range n {
			if _, err := w.Add(start.Add(time.Duration(i)), i); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.AdvanceClock(start.Add(n), nil); err != nil {
			t.Fatal(err)
		}
		w.Shrink()
		return w
	})
	if freed > int64(held)+heapMargin {
		t.Fatalf("the shrunk empty wheel held %d bytes of heap; BytesHeld says %d", freed, held)
	}
	t.Logf("the shrunk empty wheel held %d bytes of heap; BytesHeld says %d", freed, held)
}

// TestShrinkForwardingHeld: Shrink moves 100,000 alarms, whose handles it
// then forwards through maps that Go never shrinks. When all but keep of
// them have fired, Shrink again must let the maps' room go, and BytesHeld
// must count what the maps hold: measured as the heap the wheel's release
// frees, with moved alarms live (keep 100,000), few (10,000) and none, and
// with none before the second Shrink, when the maps still hold their room.
func TestShrinkForwardingHeld(t *testing.T) {
	if checked.On {
		t.Skip("checked mode's log holds memory of its own")
	}
	const n, moved = 200_000, 100_000
	start := time.Unix(0, 0)
	for _, c := range []struct {
		keep   int
		shrink bool
	}{{moved, true}, {moved / 10, true}, {0, true}, {0, false}} {
		freed, held := releasedHeap(func() *timingwheel.Wheel[int] {
			w, err := timingwheel.New[int](start, time.Nanosecond)
			if err != nil {
				t.Fatal(err)
			}
			hs := make([]alarm.Alarm, n)
			for i := range hs {
				if hs[i], err = w.Add(start.Add(time.Duration(i)), i); err != nil {
					t.Fatal(err)
				}
			}
			for _, a := range hs[:n-moved] {
				if err := w.Remove(a); err != nil {
					t.Fatal(err)
				}
			}
			w.Shrink()
			if err := w.AdvanceClock(start.Add(n-time.Duration(c.keep)), nil); err != nil {
				t.Fatal(err)
			}
			if c.shrink {
				w.Shrink()
			}
			if v, err := w.AlarmValue(hs[n-1]); c.keep > 0 && (err != nil || v != n-1) {
				t.Fatalf("%+v: the last alarm's handle gives %d, %v", c, v, err)
			}
			if _, err := w.AlarmValue(hs[n-moved]); c.keep < moved && err == nil {
				t.Fatalf("%+v: a fired alarm's handle is still valid", c)
			}
			return w
		})
		if freed > int64(held)+heapMargin {
			t.Errorf("%+v: the wheel held %d bytes of heap; BytesHeld says %d", c, freed, held)
		} else {
			t.Logf("%+v: the wheel held %d bytes of heap; BytesHeld says %d", c, freed, held)
		}
	}
}

// heapMargin is how far the heap a wheel holds may exceed its BytesHeld
// in the tests that measure it.
const heapMargin = 1 << 20

// releasedHeap returns the heap that dropping the wheel build returns
// frees, and the wheel's BytesHeld before.
func releasedHeap[T any](build func() *timingwheel.Wheel[T]) (freed int64, held int) {
	w := build()
	held = w.Stats().BytesHeld
	var m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(w)
	w = nil
	runtime.GC()
	runtime.ReadMemStats(&m2)
	return int64(m1.HeapAlloc) - int64(m2.HeapAlloc), held
}
