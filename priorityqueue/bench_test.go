package priorityqueue_test

// Benchmarks at steady state: each fills the queue to n elements and warms
// it up (the record pool, the slots' vectors and the due buffer have grown to
// their peak) before the timer starts, so that the loop measures operations
// on a queue of about n elements and reports 0 allocs/op.
//
// Keys are spread uniformly over a window of n keys above MinAllowedKey (one
// element per key on average) with the default level bits: level 0 holds the
// first 2048 keys, level 1 the rest (it spans 2^21 keys).

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gotimingwheel/timingwheel/alarm"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/priorityqueue"
)

var benchSizes = []int{1_000, 100_000, 1_000_000}

const offMask = 1<<16 - 1

// benchQueue is a queue of n elements with keys in [min, min+span) and the
// offsets used for keys added later, drawn once so that the loops do not
// spend their time in the random number generator. With distinct, the keys
// are those of the window, one each, added in random order.
type benchQueue struct {
	q    *priorityqueue.Queue[int]
	h    []alarm.Alarm
	span int64
	offs []int64 // offMask+1 offsets in [0, span)
}

func newBenchQueue(b *testing.B, n int, distinct bool) *benchQueue {
	b.Helper()
	r := rand.New(rand.NewPCG(1, uint64(n)))
	bq := &benchQueue{
		q:    priorityqueue.New[int](levelbits.Default(), n),
		h:    make([]alarm.Alarm, n),
		span: int64(n),
		offs: make([]int64, offMask+1),
	}
	for i := range bq.offs {
		bq.offs[i] = r.Int64N(bq.span)
	}
	perm := r.Perm(n)
	for i := range bq.h {
		k := r.Int64N(bq.span)
		if distinct {
			k = int64(perm[i])
		}
		a, err := bq.q.Add(k, i)
		if err != nil {
			b.Fatal(err)
		}
		bq.h[i] = a
	}
	return bq
}

func (bq *benchQueue) key(i int) int64 { return bq.q.MinAllowedKey() + bq.offs[i&offMask] }

func BenchmarkAdd(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			bq := newBenchQueue(b, n, false)
			q := bq.q
			// Add in batches on top of the n elements; between batches, with
			// the timer stopped, remove the batch again.
			batch := make([]alarm.Alarm, min(n, 1<<14))
			round := func(m int, off int) {
				for j := range m {
					a, err := q.Add(bq.key(off+j), j)
					if err != nil {
						b.Fatal(err)
					}
					batch[j] = a
				}
			}
			undo := func(m int) {
				for _, a := range batch[:m] {
					if err := q.Remove(a); err != nil {
						b.Fatal(err)
					}
				}
			}
			// Warm up: grow the pool and the slots. Removals leave tombstones
			// and a slot is compacted only when they outnumber its elements
			// three to one,
			// so a slot's vector reaches its largest length only after adds
			// and removals of several times its elements: add 4n in all.
			for w := 0; w < 4 || w*len(batch) < 4*n; w++ {
				round(len(batch), w*len(batch))
				undo(len(batch))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; {
				m := min(len(batch), b.N-done)
				round(m, done)
				done += m
				b.StopTimer()
				undo(m)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkRemove measures a Remove and an Add: at steady state each removal
// is paired with an add so that the queue keeps n elements.
func BenchmarkRemove(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			bq := newBenchQueue(b, n, false)
			q, h := bq.q, bq.h
			step := func(i int) {
				j := i % n
				if err := q.Remove(h[j]); err != nil {
					b.Fatal(err)
				}
				a, err := q.Add(bq.key(i), j)
				if err != nil {
					b.Fatal(err)
				}
				h[j] = a
			}
			for i := range 2 * n { // warm up: every element replaced twice
				step(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				step(i)
			}
		})
	}
}

// benchIncrease raises MinAllowedKey by jump per operation. The handler
// notes each removed element's key and the loop adds it again span keys
// later, so the queue keeps n elements spread over the next span keys. An
// operation's cost includes the re-adds; "elts/op" says how many.
func benchIncrease(b *testing.B, n int, jump func(span int64) int64) {
	// One element per key: each slot holds the same number of elements
	// every time the window passes it, so that no slot outgrows the vectors
	// the warm-up gave it.
	bq := newBenchQueue(b, n, true)
	q := bq.q
	d := jump(bq.span)
	keys := make([]int64, 0, n)
	removed := func(ev priorityqueue.Element[int]) {
		a := ev.Alarm

		k, _ := q.Key(a)
		keys = append(keys, k)
	}
	total := 0
	step := func() {
		keys = keys[:0]
		if err := q.IncreaseMinAllowedKey(q.MinAllowedKey()+d, removed); err != nil {
			b.Fatal(err)
		}
		for _, k := range keys {
			if _, err := q.Add(k+bq.span, 0); err != nil {
				b.Fatal(err)
			}
		}
		total += len(keys)
	}
	// Warm up, in big jumps: pass the window at least twice, so that every
	// element has been removed and re-added and the due buffer has grown,
	// and pass a whole cycle of level 1's slots (2^(b_0+b_1) keys), so that
	// each slot the loop will use has had its vectors grown: a slot used for
	// the first time allocates them. Keys stay below min + 2^21 - 2^11, so
	// they never reach level 2, whose cycle (2^31 keys) no warm-up could pass.
	lb := levelbits.Default()
	cycle := int64(1) << (uint(lb.At(0) + lb.At(1)))
	for end := q.MinAllowedKey() + cycle + 2*bq.span; q.MinAllowedKey() < end; {
		keys = keys[:0]
		if err := q.IncreaseMinAllowedKey(q.MinAllowedKey()+max(d, bq.span/16), removed); err != nil {
			b.Fatal(err)
		}
		for _, k := range keys {
			if _, err := q.Add(k+bq.span, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	if q.Len() != n {
		b.Fatalf("Len %d after warm-up, want %d", q.Len(), n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	total = 0
	for i := 0; i < b.N; i++ {
		step()
	}
	b.StopTimer()
	b.ReportMetric(float64(total)/float64(b.N), "elts/op")
	if q.Len() != n {
		b.Fatalf("Len %d, want %d", q.Len(), n)
	}
}

func BenchmarkIncreaseMinAllowedKeyByOne(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			benchIncrease(b, n, func(int64) int64 { return 1 })
		})
	}
}

// BenchmarkIncreaseMinAllowedKeyJump raises the minimum by 1/16 of the
// window per operation: each removes and re-adds about n/16 elements.
func BenchmarkIncreaseMinAllowedKeyJump(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			benchIncrease(b, n, func(span int64) int64 { return span / 16 })
		})
	}
}
