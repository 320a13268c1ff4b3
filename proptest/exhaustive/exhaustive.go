// Package exhaustive checks a timing wheel against proptest's reference
// model on every operation sequence up to a depth, in small worlds (tiny
// level bits, a precision of 1 or 2 ns, a few live alarms), breadth first,
// with the comparisons of proptest.CheckWheel after every step. States that
// encode alike are explored once. docs/invariants.md ("Exhaustive small
// worlds") gives the worlds, the alphabet, the encoding and the figures.
package exhaustive

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// World is one small configuration explored from one start time.
type World struct {
	Name   string
	Config config.Config
	Start  time.Time
}

// midStart is the default start: far from both ends of time and not aligned
// to any level (so the first advances cross slot and level boundaries).
var midStart = time.Unix(0, 1<<40+3).UTC()

// SmallWorlds returns the default worlds: level bits [1], [2], [1 1], [2 1],
// [1 1 1] and [2 2], each with precision 2^0 and 2^1 ns, without and with
// overflow levels, starting at 2^40+3 ns; plus two worlds starting at the
// epoch, where times before the current interval are before time 0.
func SmallWorlds() []World {
	var ws []World
	for _, bits := range [][]int{{1}, {2}, {1, 1}, {2, 1}, {1, 1, 1}, {2, 2}} {
		for _, prec := range []int{0, 1} {
			for _, ovf := range []bool{false, true} {
				ws = append(ws, NewWorld(bits, prec, ovf, midStart))
			}
		}
	}
	ws = append(ws, NewWorld([]int{2, 1}, 0, false, time.Unix(0, 0).UTC()))
	ws = append(ws, NewWorld([]int{1, 1}, 1, false, time.Unix(0, 0).UTC()))
	return ws
}

// NewWorld returns the world with the given level bits, precision 2^prec ns
// and overflow levels or not, starting at start. It panics on invalid bits.
func NewWorld(bits []int, prec int, overflow bool, start time.Time) World {
	lb, err := levelbits.New(bits...)
	if err != nil {
		panic(err)
	}
	opts := []config.Option{config.WithLevelBits(lb)}
	name := fmt.Sprintf("bits%v/prec2^%d", bits, prec)
	if overflow {
		opts = append(opts, config.WithOverflow())
		name += "/overflow"
	}
	if start.UnixNano() != midStart.UnixNano() {
		name += fmt.Sprintf("/start%d", start.UnixNano())
	}
	cfg, err := config.New(config.AlarmPrecision(prec), opts...)
	if err != nil {
		panic(err)
	}
	return World{Name: name, Config: cfg, Start: start}
}

// Options bound a run. The zero value means depth 3, three live alarms.
type Options struct {
	Depth     int // length of the longest operation sequence explored
	MaxLive   int // adds are not offered once this many alarms are live
	MaxStates int // stop expanding a world after this many distinct states (0: no limit)
}

func (o Options) withDefaults() Options {
	if o.Depth <= 0 {
		o.Depth = 3
	}
	if o.MaxLive <= 0 {
		o.MaxLive = 3
	}
	return o
}

// Result is what a run of one world explored.
type Result struct {
	World World
	// Depth is the depth explored completely: every sequence of at most
	// Depth operations was checked (up to the state merging).
	Depth int
	// States is the number of distinct states (canonical encodings) reached,
	// the start included; PerDepth[k] of them were first reached after k
	// operations.
	States   int
	PerDepth []int
	// Transitions is the number of operations run and checked from a
	// distinct state: each is one sequence replayed on a fresh wheel.
	Transitions int
	// Sequences is the number of operation sequences of length 1 to Depth
	// that the run covers (counted on the graph of merged states;
	// saturates at 2^64-1).
	Sequences uint64
	// Truncated is true when MaxStates stopped the run before Depth.
	Truncated bool
	Elapsed   time.Duration
}

// Failure is a difference between the wheel and the model, or a broken
// invariant, with the calls that lead to it.
type Failure struct {
	World World
	Trace string // the calls, resolved to their arguments, as proptest.ReplayText reads them
	Msg   string
}

// Error describes the failure: the world, what differed, and the trace that
// replays it.
func (f *Failure) Error() string {
	return fmt.Sprintf("exhaustive %s (%v, start %d): %s\nreplay it with proptest.ReplayText:\n%s",
		f.World.Name, f.World.Config, f.World.Start.UnixNano(), f.Msg, f.Trace)
}

// node is a distinct state: the operation that first reached it, and what
// the operations offered in it depend on (the world aside).
type node struct {
	parent int32
	op     op
	live   int8
	dead   bool
}

// Run explores w breadth first and returns at the first failure (a
// *Failure) or when every sequence up to o.Depth has been checked.
func Run(w World, o Options) (Result, error) {
	o = o.withDefaults()
	begin := time.Now()
	res := Result{World: w}
	s, err := newMachine(w, o) // compares the new wheel with the model
	if err != nil {
		return res, &Failure{World: w, Msg: err.Error()}
	}
	nodes := []node{{parent: -1, live: int8(len(s.Live()))}}
	edges := [][]int32{nil}
	seen := map[[16]byte]int32{s.encode(): 0}
	res.PerDepth = []int{1}
	frontier := []int32{0}
	var path []op
	for depth := 1; depth <= o.Depth && len(frontier) > 0; depth++ {
		if o.MaxStates > 0 && len(nodes) >= o.MaxStates {
			res.Truncated = true
			break
		}
		var next []int32
		for _, id := range frontier {
			path = pathTo(nodes, id, path[:0])
			for _, x := range s.ops(int(nodes[id].live), nodes[id].dead) {
				s, err := replay(w, o, path)
				if err != nil {
					return res, err
				}
				if err := s.Step(s.resolve(x)); err != nil {
					return res, &Failure{World: w, Trace: s.Trace(), Msg: err.Error()}
				}
				res.Transitions++
				dead, _ := s.Dead()
				n := node{parent: id, op: x, live: int8(len(s.Live())), dead: dead != 0}
				key := s.encode()
				to, ok := seen[key]
				if !ok {
					to = int32(len(nodes))
					seen[key] = to
					nodes = append(nodes, n)
					edges = append(edges, nil)
					next = append(next, to)
				}
				edges[id] = append(edges[id], to)
			}
		}
		res.Depth = depth
		res.PerDepth = append(res.PerDepth, len(next))
		frontier = next
	}
	res.States = len(nodes)
	res.Sequences = countSequences(edges, res.Depth)
	res.Elapsed = time.Since(begin)
	return res, nil
}

// replay runs path, checked before, on a new wheel and model, without the
// comparisons after each call (Harness.Quiet).
func replay(w World, o Options, path []op) (*machine, error) {
	s, err := newMachine(w, o)
	if err != nil {
		return nil, &Failure{World: w, Msg: err.Error()}
	}
	s.Quiet = true
	for _, x := range path {
		if err := s.Step(s.resolve(x)); err != nil {
			return nil, &Failure{World: w, Trace: s.Trace(), Msg: err.Error()}
		}
	}
	s.Quiet = false
	return s, nil
}

func pathTo(nodes []node, id int32, buf []op) []op {
	for ; nodes[id].parent >= 0; id = nodes[id].parent {
		buf = append(buf, nodes[id].op)
	}
	slices.Reverse(buf)
	return buf
}

// countSequences counts the paths of length 1..depth from state 0 in the
// graph of merged states: cnt_k(t) = Σ over edges s->t of cnt_(k-1)(s).
func countSequences(edges [][]int32, depth int) uint64 {
	cur := make([]uint64, len(edges))
	cur[0] = 1
	var total uint64
	for k := 1; k <= depth; k++ {
		nxt := make([]uint64, len(edges))
		for s, es := range edges {
			if cur[s] == 0 {
				continue
			}
			for _, t := range es {
				nxt[t] = add(nxt[t], cur[s])
				total = add(total, cur[s])
			}
		}
		cur = nxt
	}
	return total
}

// add adds, saturating at 2^64-1.
func add(a, b uint64) uint64 {
	if a > ^uint64(0)-b {
		return ^uint64(0)
	}
	return a + b
}

// Check runs every world (in parallel, on GOMAXPROCS goroutines), reports
// each failing world with t.Errorf, logs what each explored and returns the
// results.
func Check(t testing.TB, worlds []World, o Options) []Result {
	t.Helper()
	o = o.withDefaults()
	results := make([]Result, len(worlds))
	errs := make([]error, len(worlds))
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for i := range worlds {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			results[i], errs[i] = Run(worlds[i], o)
		}()
	}
	wg.Wait()
	var states, transitions int
	var seqs uint64
	for i, r := range results {
		if errs[i] != nil {
			var f *Failure
			if errors.As(errs[i], &f) {
				t.Errorf("%v", f)
			} else {
				t.Errorf("%s: %v", worlds[i].Name, errs[i])
			}
			continue
		}
		t.Logf("%-34s depth %d: %7d states %v, %8d transitions, %.3g sequences, %v%s", r.World.Name, r.Depth,
			r.States, r.PerDepth, r.Transitions, float64(r.Sequences), r.Elapsed.Round(time.Millisecond),
			map[bool]string{true: " (truncated)"}[r.Truncated])
		states += r.States
		transitions += r.Transitions
		seqs = add(seqs, r.Sequences)
	}
	t.Logf("total over %d worlds, depth %d, %d live alarms at most: %d distinct states, %d transitions checked, %.3g sequences covered",
		len(worlds), o.Depth, o.MaxLive, states, transitions, float64(seqs))
	return results
}
