package priorityqueue_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

// modelElt is one element of the reference model.
type modelElt struct {
	A   alarm.Alarm
	Key int64
	V   int
	Seq int // order of the last Add or Change
}

// model is the reference: a plain slice, sorted on demand by (Key, Seq).
type model struct {
	elts   []modelElt
	minKey int64
	maxKey int64 // fixed geometry is not modelled: checked against the queue
	seq    int
}

func (m *model) sorted() []modelElt {
	out := slices.Clone(m.elts)
	slices.SortFunc(out, func(a, b modelElt) int {
		if a.Key != b.Key {
			if a.Key < b.Key {
				return -1
			}
			return 1
		}
		return a.Seq - b.Seq
	})
	return out
}

func (m *model) find(a alarm.Alarm) int {
	for i, e := range m.elts {
		if e.A == a {
			return i
		}
	}
	return -1
}

type removedRec struct {
	Key int64
	V   int
}

func genLevelBits(t *rapid.T) levelbits.LevelBits {
	choice := rapid.IntRange(0, 9).Draw(t, "lbchoice")
	var bits []int
	switch choice {
	case 0:
		bits = []int{1}
	case 1:
		bits = []int{1, 1}
	case 2:
		bits = []int{2, 2}
	case 3:
		bits = []int{3, 1}
	case 4:
		bits = levelbits.Default().Bits()
	case 5:
		bits = []int{1, 1, 1}
	case 6:
		bits = []int{2, 1, 1}
	default:
		bits = rapid.SliceOfN(rapid.IntRange(1, 4), 1, 5).Draw(t, "bits")
		if rapid.Bool().Draw(t, "extend") {
			lb, err := levelbits.NewExtended(bits...)
			if err != nil {
				t.Fatal(err)
			}
			return lb
		}
	}
	lb, err := levelbits.New(bits...)
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

func TestQueueAgainstModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lb := genLevelBits(t)
		q := priorityqueue.New[int](lb, rapid.IntRange(0, 8).Draw(t, "cap"))
		m := &model{}
		var stale []alarm.Alarm
		nextV := 0

		genKey := func(label string) int64 {
			lo, hi := q.MinAllowedKey(), q.MaxAllowedKey()
			switch rapid.IntRange(0, 7).Draw(t, label+"kind") {
			case 0:
				return lo
			case 1:
				return hi
			case 2:
				return hi + 1
			case 3:
				return lo - 1
			case 4, 5:
				return lo + rapid.Int64Range(0, 12).Draw(t, label+"near")
			default:
				span := hi - lo
				if span > 1<<20 {
					span = 1 << 20
				}
				return lo + rapid.Int64Range(0, span).Draw(t, label)
			}
		}
		pickAlarm := func() alarm.Alarm {
			if len(m.elts) > 0 && rapid.IntRange(0, 4).Draw(t, "pickLive") > 0 {
				return m.elts[rapid.IntRange(0, len(m.elts)-1).Draw(t, "idx")].A
			}
			if len(stale) > 0 && rapid.Bool().Draw(t, "pickStale") {
				return stale[rapid.IntRange(0, len(stale)-1).Draw(t, "sidx")]
			}
			return alarm.Alarm{}
		}

		t.Repeat(map[string]func(*rapid.T){
			"Add": func(t *rapid.T) {
				k := genKey("key")
				nextV++
				a, err := q.Add(k, nextV)
				inRange := k >= q.MinAllowedKey() && k <= q.MaxAllowedKey()
				if !inRange {
					if !errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
						t.Fatalf("Add(%d) outside [%d,%d]: err %v", k, q.MinAllowedKey(), q.MaxAllowedKey(), err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Add(%d): %v", k, err)
				}
				m.seq++
				m.elts = append(m.elts, modelElt{A: a, Key: k, V: nextV, Seq: m.seq})
			},
			"Remove": func(t *rapid.T) {
				a := pickAlarm()
				err := q.Remove(a)
				if i := m.find(a); i >= 0 {
					if err != nil {
						t.Fatalf("Remove live: %v", err)
					}
					m.elts = slices.Delete(m.elts, i, i+1)
					stale = append(stale, a)
				} else if !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
					t.Fatalf("Remove stale %v: err %v", a, err)
				}
			},
			"Change": func(t *rapid.T) {
				a := pickAlarm()
				k := genKey("ckey")
				err := q.Change(a, k)
				i := m.find(a)
				switch {
				case i < 0:
					if !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
						t.Fatalf("Change stale: err %v", err)
					}
				case k < q.MinAllowedKey() || k > q.MaxAllowedKey():
					if !errors.Is(err, priorityqueue.ErrKeyOutOfRange) {
						t.Fatalf("Change out of range: err %v", err)
					}
				default:
					if err != nil {
						t.Fatalf("Change: %v", err)
					}
					m.seq++
					m.elts[i].Key = k
					m.elts[i].Seq = m.seq
				}
			},
			"Increase": func(t *rapid.T) {
				cur := q.MinAllowedKey()
				var k int64
				switch rapid.IntRange(0, 5).Draw(t, "incKind") {
				case 0:
					k = cur + 1
				case 1:
					k = cur + rapid.Int64Range(0, 8).Draw(t, "small")
				case 2:
					k = cur + rapid.Int64Range(0, 1<<24).Draw(t, "big")
				case 3:
					k = priorityqueue.MaxKey
				case 4:
					k = cur - rapid.Int64Range(0, 3).Draw(t, "back")
				default:
					if mk, ok := q.MinKey(); ok {
						k = mk + rapid.Int64Range(0, 3).Draw(t, "nearmin")
					} else {
						k = cur + 1
					}
				}
				if k > priorityqueue.MaxKey {
					k = priorityqueue.MaxKey
				}
				var got []removedRec
				err := q.IncreaseMinAllowedKey(k, func(a alarm.Alarm) {
					key, err1 := q.Key(a)
					v, err2 := q.Value(a)
					if err1 != nil || err2 != nil {
						t.Fatalf("Key/Value inside handler: %v %v", err1, err2)
					}
					if q.Mem(a) {
						t.Fatalf("Mem true inside own handler")
					}
					got = append(got, removedRec{key, v})
				})
				if err != nil {
					t.Fatalf("Increase(%d): %v", k, err)
				}
				var want []removedRec
				var keep []modelElt
				for _, e := range m.sorted() {
					if e.Key < k {
						want = append(want, removedRec{e.Key, e.V})
						stale = append(stale, e.A)
					} else {
						keep = append(keep, e)
					}
				}
				m.elts = keep
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("Increase(%d) from %d removed wrong sequence (-want +got):\n%s", k, cur, diff)
				}
				if wantMin := max(cur, k); q.MinAllowedKey() != wantMin {
					t.Fatalf("MinAllowedKey %d, want %d", q.MinAllowedKey(), wantMin)
				}
			},
			"Clear": func(t *rapid.T) {
				if rapid.IntRange(0, 9).Draw(t, "clearRare") != 0 {
					return
				}
				q.Clear()
				for _, e := range m.elts {
					stale = append(stale, e.A)
				}
				m.elts = nil
			},
			"MinElt": func(t *rapid.T) {
				a, ok := q.MinElt()
				s := m.sorted()
				if ok != (len(s) > 0) {
					t.Fatalf("MinElt ok=%v with %d elements", ok, len(s))
				}
				if ok && a != s[0].A {
					t.Fatalf("MinElt %v, want %v (key %d)", a, s[0].A, s[0].Key)
				}
				k, ok := q.MinKey()
				if ok && k != s[0].Key {
					t.Fatalf("MinKey %d, want %d", k, s[0].Key)
				}
			},
			"": func(t *rapid.T) {
				if err := q.Invariant(); err != nil {
					t.Fatal(err)
				}
				if q.Len() != len(m.elts) {
					t.Fatalf("Len %d, model %d", q.Len(), len(m.elts))
				}
				for _, e := range m.elts {
					if !q.Mem(e.A) {
						t.Fatalf("model element %v not a member", e)
					}
				}
				for _, a := range stale {
					if q.Mem(a) {
						t.Fatalf("stale %v is a member", a)
					}
				}
				n := 0
				for a := range q.All() {
					if m.find(a) < 0 {
						t.Fatalf("All yields %v, not in model", a)
					}
					n++
				}
				if n != len(m.elts) {
					t.Fatalf("All yields %d, want %d", n, len(m.elts))
				}
			},
		})
	})
}

var _ = fmt.Sprint
