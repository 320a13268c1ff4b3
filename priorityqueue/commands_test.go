package priorityqueue_test

// A second state machine, with gopter's commands package: a different
// generator, a different shrinker and a model written independently of the
// rapid one in model_test.go. The model keeps its elements in one slice in
// removal order (key, then the sequence number of the last Add or Change) and
// computes MaxAllowedKey from the formulas in the package comment.

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"
	"github.com/leanovate/gopter/gen"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
	"github.com/gotimingwheel/timingwheel/proptest"
)

// cmdElt is one element of the model. id is its value in the queue.
type cmdElt struct {
	id  int
	key int64
	seq int
}

// cmdState is the model. It is never changed once built: NextState returns
// a new one.
type cmdState struct {
	bits   []int
	min    int64
	elts   []cmdElt // in removal order
	nextID int
	seq    int
	want   cmdResult // what the last command must have returned
}

// cmdResult is what a command saw on the queue.
type cmdResult struct {
	err     string // "", "range" or "invalid"
	removed []int  // Increase: the ids removed, in order
	minID   int    // MinElt: the id of the minimum, -1 for none
	minKey  int64
	len     int
	inv     error
}

func (s *cmdState) String() string {
	return fmt.Sprintf("bits %v min %d elts %v", s.bits, s.min, s.elts)
}

func (s *cmdState) clone() *cmdState {
	c := *s
	c.elts = slices.Clone(s.elts)
	c.want = cmdResult{}
	return &c
}

// maxAllowed computes max of the top level for min_0 = min:
// max_i = min(min_i + 2^(b_i+s_i) - 1, M), min_i = floor(max_(i-1)+1, 2^s_i).
func (s *cmdState) maxAllowed() int64 {
	const m = priorityqueue.MaxKey
	lo, hi := s.min, int64(0)
	shift := 0
	for i, b := range s.bits {
		if i > 0 {
			if hi == m {
				lo = m
			} else {
				lo = (hi + 1) &^ (int64(1)<<shift - 1)
			}
		}
		if b+shift >= 62 || lo > m-(int64(1)<<(b+shift)-1) {
			hi = m
		} else {
			hi = lo + int64(1)<<(b+shift) - 1
		}
		shift += b
	}
	return hi
}

func (s *cmdState) inRange(k int64) bool { return k >= s.min && k <= s.maxAllowed() }

func (s *cmdState) find(id int) int {
	return slices.IndexFunc(s.elts, func(e cmdElt) bool { return e.id == id })
}

// insert puts e after every element with a key <= e.key.
func (s *cmdState) insert(e cmdElt) {
	i := len(s.elts)
	for i > 0 && s.elts[i-1].key > e.key {
		i--
	}
	s.elts = slices.Insert(s.elts, i, e)
}

func (s *cmdState) result() cmdResult {
	r := s.want
	r.len = len(s.elts)
	return r
}

// cmdSUT is the queue under test and every handle it ever returned, by id.
type cmdSUT struct {
	q *priorityqueue.Queue[int]
	h map[int]alarm.Alarm
}

func (u *cmdSUT) done(r cmdResult) cmdResult {
	r.len = u.q.Len()
	r.inv = u.q.Invariant()
	return r
}

func errKind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, priorityqueue.ErrKeyOutOfRange):
		return "range"
	case errors.Is(err, priorityqueue.ErrInvalidAlarm):
		return "invalid"
	}
	return "other: " + err.Error()
}

// cmdBase gives every command the same precondition and postcondition: the
// queue's result equals the model's, and the queue is valid.
type cmdBase struct{}

func (cmdBase) PreCondition(commands.State) bool { return true }

func (cmdBase) PostCondition(state commands.State, result commands.Result) *gopter.PropResult {
	want := state.(*cmdState).result()
	got := result.(cmdResult)
	if got.inv != nil {
		return &gopter.PropResult{Status: gopter.PropError, Error: got.inv}
	}
	got.inv = nil
	if got.err != want.err || !slices.Equal(got.removed, want.removed) ||
		got.minID != want.minID || got.minKey != want.minKey || got.len != want.len {
		return &gopter.PropResult{Status: gopter.PropError,
			Error: fmt.Errorf("queue %+v, model %+v", got, want)}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

type addCmd struct {
	cmdBase
	id  int
	key int64
}

func (c addCmd) String() string { return fmt.Sprintf("Add(%d) #%d", c.key, c.id) }

func (c addCmd) Run(sut commands.SystemUnderTest) commands.Result {
	u := sut.(*cmdSUT)
	a, err := u.q.Add(c.key, c.id)
	if err == nil {
		u.h[c.id] = a
	}
	return u.done(cmdResult{err: errKind(err)})
}

func (c addCmd) NextState(state commands.State) commands.State {
	s := state.(*cmdState).clone()
	s.nextID = max(s.nextID, c.id+1)
	if !s.inRange(c.key) {
		s.want.err = "range"
		return s
	}
	s.seq++
	s.insert(cmdElt{id: c.id, key: c.key, seq: s.seq})
	return s
}

type removeCmd struct {
	cmdBase
	id int
}

func (c removeCmd) String() string { return fmt.Sprintf("Remove(#%d)", c.id) }

func (c removeCmd) Run(sut commands.SystemUnderTest) commands.Result {
	u := sut.(*cmdSUT)
	return u.done(cmdResult{err: errKind(u.q.Remove(u.h[c.id]))})
}

func (c removeCmd) NextState(state commands.State) commands.State {
	s := state.(*cmdState).clone()
	if i := s.find(c.id); i >= 0 {
		s.elts = slices.Delete(s.elts, i, i+1)
	} else {
		s.want.err = "invalid"
	}
	return s
}

type changeCmd struct {
	cmdBase
	id  int
	key int64
}

func (c changeCmd) String() string { return fmt.Sprintf("Change(#%d, %d)", c.id, c.key) }

func (c changeCmd) Run(sut commands.SystemUnderTest) commands.Result {
	u := sut.(*cmdSUT)
	return u.done(cmdResult{err: errKind(u.q.Change(u.h[c.id], c.key))})
}

func (c changeCmd) NextState(state commands.State) commands.State {
	s := state.(*cmdState).clone()
	i := s.find(c.id)
	switch {
	case i < 0:
		s.want.err = "invalid"
	case !s.inRange(c.key):
		s.want.err = "range"
	default:
		e := s.elts[i]
		s.elts = slices.Delete(s.elts, i, i+1)
		s.seq++
		e.key, e.seq = c.key, s.seq
		s.insert(e)
	}
	return s
}

type increaseCmd struct {
	cmdBase
	key int64
}

func (c increaseCmd) String() string { return fmt.Sprintf("IncreaseMinAllowedKey(%d)", c.key) }

func (c increaseCmd) Run(sut commands.SystemUnderTest) commands.Result {
	u := sut.(*cmdSUT)
	var removed []int
	err := u.q.IncreaseMinAllowedKey(c.key, func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		v, _ := u.q.Value(a)
		removed = append(removed, v)
	})
	return u.done(cmdResult{err: errKind(err), removed: removed})
}

func (c increaseCmd) NextState(state commands.State) commands.State {
	s := state.(*cmdState).clone()
	if c.key > priorityqueue.MaxKey {
		s.want.err = "range"
		return s
	}
	n := 0
	for n < len(s.elts) && s.elts[n].key < c.key {
		s.want.removed = append(s.want.removed, s.elts[n].id)
		n++
	}
	s.elts = s.elts[n:]
	s.min = max(s.min, c.key)
	return s
}

type minEltCmd struct{ cmdBase }

func (minEltCmd) String() string { return "MinElt" }

func (minEltCmd) Run(sut commands.SystemUnderTest) commands.Result {
	u := sut.(*cmdSUT)
	r := cmdResult{minID: -1}
	if a, ok := u.q.MinElt(); ok {
		r.minID, _ = u.q.Value(a)
		r.minKey, _ = u.q.MinKey()
	}
	return u.done(r)
}

func (minEltCmd) NextState(state commands.State) commands.State {
	s := state.(*cmdState).clone()
	s.want.minID = -1
	if len(s.elts) > 0 {
		s.want.minID, s.want.minKey = s.elts[0].id, s.elts[0].key
	}
	return s
}

type clearCmd struct{ cmdBase }

func (clearCmd) String() string { return "Clear" }

func (clearCmd) Run(sut commands.SystemUnderTest) commands.Result {
	u := sut.(*cmdSUT)
	u.q.Clear()
	return u.done(cmdResult{})
}

func (clearCmd) NextState(state commands.State) commands.State {
	s := state.(*cmdState).clone()
	s.elts = nil
	return s
}

// genKey draws a key around the allowed range: mostly inside, near its
// bottom or equal to a key in use (where elements collide), sometimes just
// outside either end.
func genKey(s *cmdState) gopter.Gen {
	lo, hi := s.min, s.maxAllowed()
	gens := []gen.WeightedGen{
		{Weight: 4, Gen: gen.Int64Range(lo, min(hi, lo+8))},
		{Weight: 4, Gen: gen.Int64Range(lo, hi)},
		{Weight: 1, Gen: gen.OneConstOf(lo-1, hi, hi+1, int64(-1))},
	}
	if len(s.elts) > 0 {
		// The key of an element already in: elements with one key added at
		// different minimums sit on different levels, and must still leave
		// in the order they came.
		keys := make([]any, len(s.elts))
		for i, e := range s.elts {
			keys[i] = e.key
		}
		gens = append(gens, gen.WeightedGen{Weight: 3, Gen: gen.OneConstOf(keys...)})
	}
	return gen.Weighted(gens)
}

// genID draws a live element's id mostly, else any id ever used (stale
// handles) or one never used (the null alarm).
func genID(s *cmdState) gopter.Gen {
	anyID := gen.IntRange(-1, s.nextID)
	if len(s.elts) == 0 {
		return anyID
	}
	live := make([]any, len(s.elts))
	for i, e := range s.elts {
		live[i] = e.id
	}
	return gen.Weighted([]gen.WeightedGen{
		{Weight: 4, Gen: gen.OneConstOf(live...)},
		{Weight: 1, Gen: anyID},
	})
}

func genIncrease(s *cmdState) gopter.Gen {
	gens := []gen.WeightedGen{
		{Weight: 3, Gen: gen.Int64Range(s.min, s.min+6)},
		{Weight: 2, Gen: gen.Int64Range(s.min, s.maxAllowed())},
		{Weight: 1, Gen: gen.Int64Range(max(0, s.min-3), s.min)},
		{Weight: 1, Gen: gen.OneConstOf(priorityqueue.MaxKey, priorityqueue.MaxKey+1)},
	}
	if len(s.elts) > 0 {
		k := s.elts[0].key
		gens = append(gens, gen.WeightedGen{Weight: 3, Gen: gen.Int64Range(k, k+2)})
	}
	return gen.Weighted(gens)
}

var queueCommands = &commands.ProtoCommands{
	NewSystemUnderTestFunc: func(initial commands.State) commands.SystemUnderTest {
		lb, err := levelbits.New(initial.(*cmdState).bits...)
		if err != nil {
			panic(err)
		}
		return &cmdSUT{q: priorityqueue.New[int](lb, 0), h: map[int]alarm.Alarm{}}
	},
	InitialStateGen: gen.OneConstOf(0, 1, 2, 3, 4, 5).Map(func(i int) *cmdState {
		bits := [][]int{{1}, {1, 1}, {2, 2, 2}, {1, 1, 1, 1}, {3, 1, 2}, {2, 1, 1, 1, 1}}[i]
		return &cmdState{bits: bits}
	}),
	GenCommandFunc: func(state commands.State) gopter.Gen {
		s := state.(*cmdState)
		id := s.nextID
		return gen.Weighted([]gen.WeightedGen{
			{Weight: 6, Gen: genKey(s).Map(func(k int64) commands.Command { return addCmd{id: id, key: k} })},
			{Weight: 2, Gen: genID(s).Map(func(i int) commands.Command { return removeCmd{id: i} })},
			{Weight: 2, Gen: gopter.CombineGens(genID(s), genKey(s)).Map(func(v []any) commands.Command {
				return changeCmd{id: v[0].(int), key: v[1].(int64)}
			})},
			{Weight: 3, Gen: genIncrease(s).Map(func(k int64) commands.Command { return increaseCmd{key: k} })},
			{Weight: 2, Gen: gen.Const(commands.Command(minEltCmd{}))},
			{Weight: 1, Gen: gen.OneConstOf(commands.Command(clearCmd{}), commands.Command(minEltCmd{}),
				commands.Command(minEltCmd{}))}, // Clear is rarer: it empties the queue
		})
	},
}

func TestQueueCommands(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 1000
	params.MaxSize = 100
	props := gopter.NewProperties(params)
	props.Property("queue matches the model", commands.Prop(queueCommands))
	props.TestingRun(t)
}

// TestQueueCommandsProptest runs proptest's queue machine (the one CheckQueue
// runs on rapid, with removal handlers that add, remove, change, shrink and panic) on
// gopter as well: a third generator and shrinker against a second model.
func TestQueueCommandsProptest(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 200
	params.MaxSize = 80
	props := gopter.NewProperties(params)
	props.Property("queue matches proptest's model", commands.Prop(proptest.QueueCommands()))
	props.TestingRun(t)
}
