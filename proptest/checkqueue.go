package proptest

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

// Queue is what CheckQueue drives: the methods of *priorityqueue.Queue[int] it
// calls.
type Queue interface {
	Len() int
	IsEmpty() bool
	MinAllowedKey() int64
	MaxAllowedKey() int64
	Add(key int64, v int) (alarm.Alarm, error)
	Remove(a alarm.Alarm) error
	Change(a alarm.Alarm, key int64) error
	Mem(a alarm.Alarm) bool
	Key(a alarm.Alarm) (int64, error)
	Value(a alarm.Alarm) (int, error)
	MinElt() (alarm.Alarm, bool)
	MinKey() (int64, bool)
	IncreaseMinAllowedKey(key int64, removed func(priorityqueue.Element[int])) error
	All() iter.Seq[alarm.Alarm]
	Clear()
	Shrink()
	Invariant() error
}

// QueueFactory makes the queue under test.
type QueueFactory func(lb levelbits.LevelBits, capacity int) Queue

func defaultQueueFactory(lb levelbits.LevelBits, capacity int) Queue {
	return priorityqueue.New[int](lb, capacity)
}

var queueSentinels = []error{priorityqueue.ErrKeyOutOfRange, priorityqueue.ErrInvalidAlarm}

// queueHarness runs calls on a queue and a QueueModel side by side, like
// wheelHarness.
type queueHarness struct {
	q     Queue
	m     *QueueModel[int]
	real  map[int]alarm.Alarm
	mod   map[int]ModelAlarm
	live  map[int]bool
	ended map[int]bool
	maxID int
	trace QueueTrace
}

func newQueueHarness(lb levelbits.LevelBits, capacity int, factory QueueFactory) (*queueHarness, error) {
	if factory == nil {
		factory = defaultQueueFactory
	}
	h := &queueHarness{q: factory(lb, capacity), m: NewQueueModel[int](lb), real: map[int]alarm.Alarm{},
		mod: map[int]ModelAlarm{}, live: map[int]bool{}, ended: map[int]bool{},
		trace: QueueTrace{Bits: lb.Bits(), Capacity: capacity}}
	return h, h.compare()
}

func runQueueTrace(tr QueueTrace, factory QueueFactory) error {
	lb, err := tr.LevelBits()
	if err != nil {
		return fmt.Errorf("proptest: trace level bits: %w", err)
	}
	h, err := newQueueHarness(lb, tr.Capacity, factory)
	if err != nil {
		return err
	}
	for _, op := range tr.Ops {
		if err := h.step(op); err != nil {
			return err
		}
	}
	return nil
}

func (h *queueHarness) handles(id int) (alarm.Alarm, ModelAlarm) { return h.real[id], h.mod[id] }

func (h *queueHarness) register(id int, a alarm.Alarm, ma ModelAlarm) {
	h.real[id], h.mod[id], h.live[id] = a, ma, true
	h.maxID = max(h.maxID, id)
}

func (h *queueHarness) step(op QueueOp) (err error) {
	if op.Name == QueueOpAdd && op.ID <= h.maxID {
		op.ID = h.maxID + 1
	}
	h.trace.Ops = append(h.trace.Ops, op)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v: unexpected panic: %v\n%s", op, r, debug.Stack())
		}
	}()
	if err := h.apply(op); err != nil {
		return fmt.Errorf("%v: %w", op, err)
	}
	if err := h.compare(); err != nil {
		return fmt.Errorf("after %v: %w", op, err)
	}
	return nil
}

func queueErrPair(call string, got, want error) error {
	return fmt.Errorf("%s: queue error %v, model error %v", call, got, want)
}

func (h *queueHarness) apply(op QueueOp) error {
	a, ma := h.handles(op.ID)
	switch op.Name {
	case QueueOpAdd:
		got, err := h.q.Add(op.Key, op.ID)
		mgot, merr := h.m.Add(op.Key, op.ID)
		if !sameErr(err, merr, queueSentinels) {
			return queueErrPair(op.Name, err, merr)
		}
		if err == nil {
			h.register(op.ID, got, mgot)
		}
	case QueueOpRemove:
		if err, merr := h.q.Remove(a), h.m.Remove(ma); !sameErr(err, merr, queueSentinels) {
			return queueErrPair(op.Name, err, merr)
		}
	case QueueOpChange:
		if err, merr := h.q.Change(a, op.Key), h.m.Change(ma, op.Key); !sameErr(err, merr, queueSentinels) {
			return queueErrPair(op.Name, err, merr)
		}
	case QueueOpMinElt:
		// compare checks MinElt and MinKey after every call; this call only
		// makes a query the whole step.
	case QueueOpShrink:
		h.q.Shrink()
	case QueueOpClear:
		h.q.Clear()
		h.m.Clear()
	case QueueOpIncrease:
		return h.increase(op)
	default:
		return fmt.Errorf("unknown call %q", op.Name)
	}
	return h.resync()
}

// removedRec is what a removal handler saw.
type removedRec struct {
	ID  int
	Key int64
}

func (h *queueHarness) increase(op QueueOp) error {
	hs := op.Script
	addID := h.maxID + 1
	var got, want []removedRec
	var gotActErr, wantActErr error
	var added, madded bool
	var addHandle alarm.Alarm
	var addModel ModelAlarm
	var failure error
	fail := func(format string, args ...any) {
		if failure == nil {
			failure = fmt.Errorf(format, args...)
		}
	}
	calls := 0
	handler := func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		calls++
		id, err := h.q.Value(a)
		if err != nil {
			fail("Value inside the handler: %v", err)
			return
		}
		key, err := h.q.Key(a)
		if err != nil {
			fail("Key(id %d) inside the handler: %v", id, err)
		}
		if key >= h.q.MinAllowedKey() {
			fail("element %d with key %d removed, MinAllowedKey %d", id, key, h.q.MinAllowedKey())
		}
		if h.q.Mem(a) {
			fail("Mem(id %d) true inside its own handler", id)
		}
		if h.ended[id] || !h.live[id] {
			fail("element %d removed twice, or never added", id)
		}
		h.ended[id] = true
		got = append(got, removedRec{id, key})
		if calls != hs.Call {
			return
		}
		target, _ := h.handles(hs.Target)
		switch hs.Action {
		case ActAdd:
			addHandle, gotActErr = h.q.Add(h.q.MinAllowedKey()+hs.Offset, addID)
			added = gotActErr == nil
		case ActRemove:
			gotActErr = h.q.Remove(target)
		case ActReschedule:
			gotActErr = h.q.Change(target, h.q.MinAllowedKey()+hs.Offset)
		case ActShrink:
			h.q.Shrink()
		case ActPanic:
			panic(scriptPanic{})
		}
	}
	mcalls := 0
	mhandler := func(ma ModelAlarm) {
		mcalls++
		id, err := h.m.Value(ma)
		key, kerr := h.m.Key(ma)
		if err != nil || kerr != nil {
			fail("model Value/Key inside the handler: %v %v", err, kerr)
			return
		}
		want = append(want, removedRec{id, key})
		if mcalls != hs.Call {
			return
		}
		_, target := h.handles(hs.Target)
		switch hs.Action {
		case ActAdd:
			addModel, wantActErr = h.m.Add(h.m.MinAllowedKey()+hs.Offset, addID)
			madded = wantActErr == nil
		case ActRemove:
			wantActErr = h.m.Remove(target)
		case ActReschedule:
			wantActErr = h.m.Change(target, h.m.MinAllowedKey()+hs.Offset)
		case ActPanic:
			panic(scriptPanic{})
		}
	}
	removed := handler
	if hs.Action == ActNil {
		removed = nil
	}
	errQ, pQ := runScripted(func() error { return h.q.IncreaseMinAllowedKey(op.Key, removed) })
	errM, pM := runScripted(func() error { return h.m.IncreaseMinAllowedKey(op.Key, mhandler) })
	if removed == nil {
		got = want
		for _, r := range want {
			h.ended[r.ID] = true
		}
	}
	if failure != nil {
		return failure
	}
	if !sameErr(errQ, errM, queueSentinels) {
		return queueErrPair(op.Name, errQ, errM)
	}
	if pQ != pM {
		return fmt.Errorf("handler panic reached the caller: queue %v, model %v", pQ, pM)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("removed a different sequence (-model +queue):\n%s", diff)
	}
	if !sameErr(gotActErr, wantActErr, queueSentinels) {
		return fmt.Errorf("handler %s: queue error %v, model error %v", hs.Action, gotActErr, wantActErr)
	}
	if added != madded {
		return fmt.Errorf("handler add: queue added %v, model added %v", added, madded)
	}
	for _, r := range got {
		delete(h.live, r.ID)
	}
	if added {
		h.register(addID, addHandle, addModel)
	}
	return h.resync()
}

func (h *queueHarness) resync() error {
	for _, id := range slices.Sorted(maps.Keys(h.real)) {
		inQ, inM := h.q.Mem(h.real[id]), h.m.Mem(h.mod[id])
		if inQ != inM {
			return fmt.Errorf("element %d: queue Mem %v, model Mem %v", id, inQ, inM)
		}
		if inQ && !h.live[id] {
			return fmt.Errorf("element %d is a member again after it was removed or cleared", id)
		}
		if !inQ && h.live[id] {
			delete(h.live, id)
			h.ended[id] = true
		}
	}
	return nil
}

func (h *queueHarness) compare() error {
	q, m := h.q, h.m
	if err := q.Invariant(); err != nil {
		return fmt.Errorf("Invariant: %w", err)
	}
	if q.Len() != m.Len() || q.IsEmpty() != m.IsEmpty() {
		return fmt.Errorf("Len %d, model %d", q.Len(), m.Len())
	}
	if q.MinAllowedKey() != m.MinAllowedKey() || q.MaxAllowedKey() != m.MaxAllowedKey() {
		return fmt.Errorf("allowed keys [%d, %d], model [%d, %d]",
			q.MinAllowedKey(), q.MaxAllowedKey(), m.MinAllowedKey(), m.MaxAllowedKey())
	}
	a, ok := q.MinElt()
	ma, mok := m.MinElt()
	if ok != mok {
		return fmt.Errorf("MinElt ok %v, model %v", ok, mok)
	}
	if ok {
		id, err := q.Value(a)
		mid, _ := m.Value(ma)
		if err != nil || id != mid {
			return fmt.Errorf("MinElt is element %d (%v), model %d", id, err, mid)
		}
	}
	k, ok := q.MinKey()
	mk, mok := m.MinKey()
	if ok != mok || k != mk {
		return fmt.Errorf("MinKey %d %v, model %d %v", k, ok, mk, mok)
	}
	for _, id := range slices.Sorted(maps.Keys(h.real)) {
		a, ma := h.handles(id)
		if !h.live[id] {
			if q.Mem(a) {
				return fmt.Errorf("element %d is a member after it was removed or cleared", id)
			}
			if _, err := q.Key(a); !errors.Is(err, priorityqueue.ErrInvalidAlarm) {
				return fmt.Errorf("Key(dead id %d): error %v, want ErrInvalidAlarm", id, err)
			}
			continue
		}
		k, err := q.Key(a)
		mk, merr := m.Key(ma)
		if !q.Mem(a) || err != nil || merr != nil || k != mk {
			return fmt.Errorf("element %d: Mem %v, Key %d %v, model %d %v", id, q.Mem(a), k, err, mk, merr)
		}
		if v, err := q.Value(a); err != nil || v != id {
			return fmt.Errorf("Value(id %d) = %d, %v", id, v, err)
		}
	}
	seen := map[int]bool{}
	for a := range q.All() {
		v, err := q.Value(a)
		if err != nil || !h.live[v] || seen[v] || h.real[v] != a {
			return fmt.Errorf("All yields element %v (id %d, %v): not a live element, or twice", a, v, err)
		}
		seen[v] = true
	}
	if len(seen) != len(h.live) {
		return fmt.Errorf("All yields %d elements, %d live", len(seen), len(h.live))
	}
	return nil
}

// randomLevelBits draws level bits: [1], [1 1], [2 2], [3 1], [1 1 1],
// [2 1 1], the default, or 1 to 5 levels of 1 to 4 bits, extended to 62 bits
// with 1-bit levels half of the time.
func randomLevelBits(src source) (levelbits.LevelBits, error) {
	var bits []int
	switch src.intn("lbchoice", 10) {
	case 0:
		bits = []int{1}
	case 1:
		bits = []int{1, 1}
	case 2:
		bits = []int{2, 2}
	case 3:
		bits = []int{3, 1}
	case 4:
		return levelbits.Default(), nil
	case 5:
		bits = []int{1, 1, 1}
	case 6:
		bits = []int{2, 1, 1}
	default:
		n := 1 + src.intn("numLevels", 5)
		for i := range n {
			bits = append(bits, 1+src.intn(fmt.Sprintf("bits%d", i), 4))
		}
		if src.intn("extend", 2) == 1 {
			return levelbits.NewExtended(bits...)
		}
	}
	return levelbits.New(bits...)
}

// CheckQueue runs a rapid state machine that drives a
// priorityqueue.Queue[int] and a QueueModel[int] with the same random calls:
// Add and Change with keys at and around the edges of the allowed range and
// keys already in use, Remove of live, removed and null handles,
// IncreaseMinAllowedKey by one, by small steps, by large jumps, to the top of
// the key space, past it, backwards and to just past the minimum (with
// removal handlers that add, remove, change, shrink and panic), MinElt, Shrink and
// Clear, over random level bits ([1], [1 1], [2 2], [3 1], random small ones
// and the default). After every call Invariant() is nil and every observable
// equals the model's: errors, the removed sequence (a cmp.Diff in the
// message), Len, the allowed range, MinElt, MinKey, each element's key and
// value, membership of live and dead handles, and All.
//
// Options: WithLevelBits, WithSteps, WithQueueOpWeights, WithoutPanics,
// WithFailureFile, WithQueueFactory. A failure prints a snippet that replays
// it (ReplayQueueText).
func CheckQueue(t *testing.T, opts ...Option) {
	t.Helper()
	checkQueue(t, opts)
}

func checkQueue(t rapid.TB, opts []Option) {
	t.Helper()
	o := buildOptions(opts)
	weights, err := opWeights(queueOpList(), queueDefaultWeights(), o.queueWeights, "WithQueueOpWeights")
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		src := rapidSource{rt}
		h, err := o.newQueueHarness(src)
		if err != nil {
			rt.Fatalf("%s", o.queueFailure(err, h))
		}
		step := func(rt *rapid.T) {
			if err := h.step(h.genOp(rapidSource{rt}, weights, o.noPanic)); err != nil {
				rt.Fatalf("%s", o.queueFailure(err, h))
			}
		}
		if o.steps > 0 {
			for range o.steps {
				step(rt)
			}
			return
		}
		rt.Repeat(map[string]func(*rapid.T){"step": step})
	})
}

func (o *options) newQueueHarness(src source) (*queueHarness, error) {
	var lb levelbits.LevelBits
	if len(o.levelBits) > 0 {
		lb = o.levelBits[src.intn("levelbits", len(o.levelBits))]
	} else {
		var err error
		if lb, err = randomLevelBits(src); err != nil {
			return nil, err
		}
	}
	return newQueueHarness(lb, src.intn("cap", 9), o.queueFactory)
}

// CheckQueueBytes decodes level bits, a capacity and up to MaxFuzzCalls
// calls from data and runs them on a queue and the model, failing t at the
// first difference, like CheckQueue. It is the body of a fuzz target:
//
//	func FuzzQueue(f *testing.F) {
//		f.Fuzz(func(t *testing.T, data []byte) { proptest.CheckQueueBytes(t, data) })
//	}
func CheckQueueBytes(t testing.TB, data []byte, opts ...Option) {
	t.Helper()
	o := buildOptions(opts)
	weights, err := opWeights(queueOpList(), queueDefaultWeights(), o.queueWeights, "WithQueueOpWeights")
	if err != nil {
		t.Fatal(err)
	}
	src := &byteSource{data: data}
	h, err := o.newQueueHarness(src)
	if err != nil {
		t.Fatalf("%s", o.queueFailure(err, h))
	}
	for i := 0; i < MaxFuzzCalls && !src.exhausted(); i++ {
		if err := h.step(h.genOp(src, weights, o.noPanic)); err != nil {
			t.Fatalf("%s", o.queueFailure(err, h))
		}
	}
	if o.traceSink != nil {
		o.traceSink(h.trace.String())
	}
}

func (o *options) queueFailure(err error, h *queueHarness) string {
	if h == nil {
		return fmt.Sprintf("proptest: %v", err)
	}
	tr := h.trace.String()
	return fmt.Sprintf("proptest: the queue differs from the model: %v\n\nReplay it with:\n\n"+
		"\tproptest.ReplayQueueText(t, `\n%s\n\t`)\n%s", err, indentTrace(tr), o.writeFailure(tr))
}

func queueDefaultWeights() []int { return queueOpNames.weights() }

func (h *queueHarness) genOp(src source, weights []int, noPanic bool) QueueOp {
	op := QueueOp{Name: queueOpNames[weighted(src, "op", weights)].name}
	switch op.Name {
	case QueueOpAdd:
		op.Key = h.genKey(src, "key")
	case QueueOpRemove:
		op.ID = h.pick(src, "remove")
	case QueueOpChange:
		op.ID = h.pick(src, "change")
		op.Key = h.genKey(src, "ckey")
	case QueueOpIncrease:
		op.Key = h.genIncrease(src)
		op.Script = h.genScript(src, noPanic)
	}
	return op
}

// genKey draws a key at and around the edges of the allowed range, near its
// bottom, equal to a key in use (elements with one key added at different
// minimums sit on different levels), or anywhere in the first 2^20 keys of
// the range.
func (h *queueHarness) genKey(src source, label string) int64 {
	lo, hi := h.m.MinAllowedKey(), h.m.MaxAllowedKey()
	switch src.intn(label+"Kind", 9) {
	case 0:
		return lo
	case 1:
		return hi
	case 2:
		return hi + 1
	case 3:
		return lo - 1
	case 4, 5:
		return lo + src.int64Range(label+"Near", 0, 12)
	case 6:
		if n := h.m.Len(); n > 0 {
			return h.m.elts[src.intn(label+"InUse", n)].key
		}
		return lo
	default:
		return lo + src.int64Range(label, 0, min(hi-lo, 1<<20))
	}
}

// genIncrease draws a new minimum: by one, by a few, by large jumps, to the
// top of the key space and one past it, backwards, to just past the smallest
// key, or to MaxAllowedKey.
func (h *queueHarness) genIncrease(src source) int64 {
	cur := h.m.MinAllowedKey()
	switch src.intn("incKind", 9) {
	case 0:
		return cur + 1
	case 1:
		return cur + src.int64Range("small", 0, 8)
	case 2:
		return cur + src.int64Range("big", 0, 1<<24)
	case 3:
		return priorityqueue.MaxKey
	case 4:
		return cur - src.int64Range("back", 0, 3)
	case 5:
		return cur + src.int64Range("huge", 0, priorityqueue.MaxKey-cur)
	case 6:
		if src.intn("pastTop", 4) == 0 {
			return priorityqueue.MaxKey + 1
		}
		return h.m.MaxAllowedKey() + src.int64Range("pastMax", 0, 1)
	default:
		if mk, ok := h.m.MinKey(); ok {
			return mk + src.int64Range("nearMin", 0, 3)
		}
		return cur + 1
	}
}

// pick returns the id of a live element mostly, else of a removed one, else 0
// (the null alarm).
func (h *queueHarness) pick(src source, label string) int {
	if live := slices.Sorted(maps.Keys(h.live)); len(live) > 0 && src.intn(label+"Live", 5) > 0 {
		return live[src.intn(label, len(live))]
	}
	if dead := slices.Sorted(maps.Keys(h.ended)); len(dead) > 0 && src.intn(label+"Dead", 2) > 0 {
		return dead[src.intn(label+"DeadPick", len(dead))]
	}
	return 0
}

func (h *queueHarness) genScript(src source, noPanic bool) Script {
	if src.intn("scripted", 3) != 0 {
		return Script{}
	}
	acts := []string{ActAdd, ActRemove, ActReschedule, ActPanic, ActNil, ActShrink}
	hs := Script{
		Call:   1 + src.intn("scriptAt", 4),
		Action: acts[src.intn("scriptAction", len(acts))],
		Offset: src.int64Range("scriptOffset", -1, 8),
	}
	if hs.Action == ActPanic && noPanic {
		hs.Action = ActAdd
	}
	switch hs.Action {
	case ActNil:
		return Script{Action: ActNil}
	case ActPanic, ActShrink:
		hs.Offset = 0
	case ActRemove, ActReschedule:
		hs.Target = h.pick(src, "scriptTarget")
	}
	return hs
}
