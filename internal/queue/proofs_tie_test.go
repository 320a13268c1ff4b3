package queue

// The tie between the Go code and the proofs in proofs/ (levels.mlw,
// keys.mlw, small.mlw): the proofs state properties of formulas written
// with the Go code's operations; these tests check, on boundary and random
// values, that the Go functions compute those formulas, here written out in
// exact integer arithmetic (math/big) from their mathematical definitions
// (docs/invariants.md, PQ1, PQ2, PQ4, PQ15).

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gotimingwheel/timingwheel/levelbits"
)

var bigOne = big.NewInt(1)

func pow2(e uint) *big.Int { return new(big.Int).Lsh(bigOne, e) }

// floorTo returns floor(x, 2^e) = x - x mod 2^e, for x >= 0.
func floorTo(x *big.Int, e uint) *big.Int {
	return new(big.Int).Lsh(new(big.Int).Rsh(x, e), e)
}

func bigMin(x, y *big.Int) *big.Int {
	if x.Cmp(y) <= 0 {
		return x
	}
	return y
}

// proofLayouts returns the level-bit layouts the tests walk: the extremes
// the config accepts (one level of 62 bits, 62 levels of 1 bit, one level
// of 1 bit), the defaults, and random layouts of at most 62 bits.
func proofLayouts(r *rand.Rand) [][]int {
	ones := make([]int, 62)
	for i := range ones {
		ones[i] = 1
	}
	out := [][]int{{62}, {1}, {61, 1}, {1, 61}, {31, 31}, ones,
		{11, 10, 10, 10, 10, 10, 1}, {10, 10, 6, 6, 5, 3}, {3, 8, 8, 8}}
	for range 40 {
		var lb []int
		sum, limit := 0, 1+r.IntN(62)
		for sum < limit {
			b := 1 + r.IntN(min(limit-sum, 20))
			lb = append(lb, b)
			sum += b
		}
		out = append(out, lb)
	}
	return out
}

// edgeKeys returns keys around every power of two near the edges of the
// levels of layout bits (2^e - 1, 2^e, 2^e + 1 for e within one of each
// s_i and s_i + b_i), 0, 1, MaxKey - 1, MaxKey, and random keys.
func edgeKeys(r *rand.Rand, lb []int) []int64 {
	keys := []int64{0, 1, 2, MaxKey - 1, MaxKey}
	add := func(e int) {
		if e < 0 || e > 62 {
			return
		}
		p := int64(1) << uint(min(e, 62))
		for _, k := range []int64{p - 1, p, p + 1, MaxKey - p, MaxKey - p + 1} {
			if k >= 0 && k <= MaxKey {
				keys = append(keys, k)
			}
		}
	}
	s := 0
	for _, b := range lb {
		for d := -1; d <= 1; d++ {
			add(s + d)
			add(s + b + d)
		}
		s += b
	}
	for range 20 {
		keys = append(keys, r.Int64N(MaxKey+1), r.Int64N(1<<uint(1+r.IntN(62))))
	}
	return keys
}

// TestProofTieGeometry: for every layout and minimum tried, the levels
// NewTimed and setMin lay out are the ones levels.mlw reasons about:
// shift_i = s_i, mask = 2^b_i - 1, keysPerSlot = 2^s_i, span_i =
// min(2^(b_i+s_i) - 1, MaxKey), max_i = min(min_i + span_i, MaxKey), and
// min_i = MaxKey if max_(i-1) = MaxKey, else floor(max_(i-1) + 1, 2^s_i).
// It checks the proved consequences too: no gap (pq2_no_gap), and minima
// and maxima that do not decrease.
func TestProofTieGeometry(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 1))
	maxKey := big.NewInt(MaxKey)
	for _, layout := range proofLayouts(r) {
		lb, err := levelbits.New(layout...)
		if err != nil {
			t.Fatal(err)
		}
		q := NewTimed[int](lb, 0, 0)
		for _, m0 := range edgeKeys(r, layout) {
			q.setMin(m0)
			var s uint
			var prevMax *big.Int
			for i, b := range layout {
				lv := &q.levels[i]
				ub := uint(b)
				span := bigMin(new(big.Int).Sub(pow2(ub+s), bigOne), maxKey)
				var mn *big.Int
				switch {
				case i == 0:
					mn = big.NewInt(m0)
				case prevMax.Cmp(maxKey) == 0:
					mn = new(big.Int).Set(maxKey)
				default:
					mn = floorTo(new(big.Int).Add(prevMax, bigOne), s)
				}
				mx := bigMin(new(big.Int).Add(mn, span), maxKey)
				if lv.shift != s || lv.mask != uint64(pow2(ub).Int64()-1) || lv.keysPerSlot != pow2(s).Int64() ||
					lv.span != span.Int64() || lv.minKey != mn.Int64() || lv.maxKey != mx.Int64() {
					t.Fatalf("layout %v min0 %d level %d: shift %d mask %#x kps %d span %d [%d, %d], want shift %d span %v [%v, %v]",
						layout, m0, i, lv.shift, lv.mask, lv.keysPerSlot, lv.span, lv.minKey, lv.maxKey, s, span, mn, mx)
				}
				if i > 0 {
					if mn.Cmp(new(big.Int).Add(prevMax, bigOne)) > 0 || mx.Cmp(prevMax) < 0 {
						t.Fatalf("layout %v min0 %d level %d: [%v, %v] after max %v: gap or shrinking reach", layout, m0, i, mn, mx, prevMax)
					}
				}
				prevMax = mx
				s += ub
			}
			// The reach (open/levels_open.mlw, pq1_reach_step by induction):
			// the top level ends at min0 + 2^B - 1 or later, or at MaxKey.
			if want := bigMin(new(big.Int).Sub(new(big.Int).Add(big.NewInt(m0), pow2(s)), bigOne), maxKey); prevMax.Cmp(want) < 0 {
				t.Fatalf("layout %v min0 %d: top level ends at %v, before %v", layout, m0, prevMax, want)
			}
		}
	}
}

// TestProofTieSlot: level.slot(k) = (k >> s) mod 2^b and level.alignDown(k)
// = floor(k, 2^s) (PQ4; levels.mlw slot, alignDown), and checkPQ1's
// alignment test min % keysPerSlot = 0 agrees with the mask test
// min & (keysPerSlot - 1) = 0 that levels.mlw uses (left unproved:
// open/levels_open.mlw, pq1_signed_remainder_is_mask_test).
func TestProofTieSlot(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 2))
	for _, layout := range proofLayouts(r) {
		lb, err := levelbits.New(layout...)
		if err != nil {
			t.Fatal(err)
		}
		q := NewTimed[int](lb, 0, 0)
		keys := edgeKeys(r, layout)
		for i := range q.levels {
			lv := &q.levels[i]
			for _, k := range keys {
				bk := big.NewInt(k)
				want := new(big.Int).Rsh(bk, lv.shift)
				want.Mod(want, pow2(lv.bits))
				if got := lv.slot(k); int64(got) != want.Int64() {
					t.Fatalf("layout %v level %d: slot(%d) = %d, want %v", layout, i, k, got, want)
				}
				if got, want := lv.alignDown(k), floorTo(bk, lv.shift); got != want.Int64() {
					t.Fatalf("layout %v level %d: alignDown(%d) = %d, want %v", layout, i, k, got, want)
				}
				if rem, masked := k%lv.keysPerSlot == 0, k&(lv.keysPerSlot-1) == 0; rem != masked {
					t.Fatalf("layout %v level %d: %d %% %d = 0 is %v, mask test %v", layout, i, k, lv.keysPerSlot, rem, masked)
				}
			}
		}
	}
}

// TestProofTieSlotsDoNotOverlap: within a level's range, two keys share a
// slot only if they share the block of 2^s keys it stands for
// (pq4_slot_injective_on_range, left unproved: open/levels_open.mlw), and
// a key moved down by a cascade lands in a level that holds it
// (pq3_move_down_lands_in_range, proved; checked here on the layouts).
func TestProofTieSlotsDoNotOverlap(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 3))
	for _, layout := range proofLayouts(r) {
		lb, err := levelbits.New(layout...)
		if err != nil {
			t.Fatal(err)
		}
		q := NewTimed[int](lb, 0, 0)
		for _, m0 := range edgeKeys(r, layout)[:12] {
			q.setMin(m0)
			for i := range q.levels {
				lv := &q.levels[i]
				width := lv.maxKey - lv.minKey // at most 2^(b+s) - 1
				if uint64(width) > uint64(1)<<(lv.bits+lv.shift)-1 {
					t.Fatalf("layout %v min0 %d level %d: range [%d, %d] wider than 2^%d keys", layout, m0, i, lv.minKey, lv.maxKey, lv.bits+lv.shift)
				}
				for range 50 {
					k1 := lv.minKey + r.Int64N(width+1)
					k2 := lv.minKey + r.Int64N(width+1)
					if lv.slot(k1) == lv.slot(k2) && k1>>lv.shift != k2>>lv.shift {
						t.Fatalf("layout %v level %d: keys %d and %d share slot %d from different blocks", layout, i, k1, k2, lv.slot(k1))
					}
				}
				// moveDown's choice: the highest level t < i with min_t <=
				// key, for a key below min_i, holds the key.
				if i == 0 || lv.minKey == 0 {
					continue
				}
				for _, k := range []int64{q.levels[0].minKey, lv.minKey - 1, q.levels[0].minKey + r.Int64N(lv.minKey-q.levels[0].minKey+1)} {
					if k < q.levels[0].minKey || k >= lv.minKey {
						continue
					}
					tl := i - 1
					for q.levels[tl].minKey > k {
						tl--
					}
					if k > q.levels[tl].maxKey {
						t.Fatalf("layout %v min0 %d: key %d moved from level %d to level %d covering [%d, %d]",
							layout, m0, k, i, tl, q.levels[tl].minKey, q.levels[tl].maxKey)
					}
				}
			}
		}
	}
}

// TestProofTieBucket: radix.bucketOf(k) satisfies small.mlw's is_len64
// (bucket 0 iff k = last; else 2^(b-1) <= k XOR last < 2^b), and the
// proved facts on samples: a lower bucket holds a smaller key
// (pq15_lower_bucket_smaller_key).
func TestProofTieBucket(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 4))
	lasts := []int64{0, 1, MaxKey - 1, MaxKey}
	for e := range 63 {
		lasts = append(lasts, int64(1)<<uint(e)-1)
	}
	for range 20 {
		lasts = append(lasts, r.Int64N(MaxKey+1))
	}
	for _, last := range lasts {
		rd := radix{last: last}
		keys := []int64{last, MaxKey}
		if last < MaxKey {
			keys = append(keys, last+1)
		}
		for e := range 63 {
			for _, k := range []int64{last + int64(1)<<uint(e) - 1, last + int64(1)<<uint(e), last | int64(1)<<uint(e)} {
				if k >= last && k <= MaxKey {
					keys = append(keys, k)
				}
			}
		}
		for range 20 {
			keys = append(keys, last+r.Int64N(MaxKey-last+1))
		}
		for _, k := range keys {
			b := rd.bucketOf(k)
			x := new(big.Int).SetUint64(uint64(k ^ last))
			ok := b == 0 && k == last ||
				b >= 1 && b <= 62 && pow2(uint(b-1)).Cmp(x) <= 0 && x.Cmp(pow2(uint(b))) < 0
			if !ok {
				t.Fatalf("last %d key %d: bucketOf = %d, not bits.Len64 of %#x", last, k, b, uint64(k^last))
			}
		}
		for range 200 {
			k1, k2 := keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]
			if rd.bucketOf(k1) < rd.bucketOf(k2) && k1 >= k2 {
				t.Fatalf("last %d: key %d in bucket %d, key %d in higher bucket %d", last, k1, rd.bucketOf(k1), k2, rd.bucketOf(k2))
			}
		}
	}
	// is_len64 is bits.Len64's definition; check the library on the edges.
	for e := range 64 {
		p := uint64(1) << uint(e)
		if bits.Len64(p) != e+1 || bits.Len64(p-1) != e {
			t.Fatalf("bits.Len64 around 2^%d: %d, %d", e, bits.Len64(p), bits.Len64(p-1))
		}
	}
}

// TestProofTieBitmapNext: bitmap.next(from) is the smallest set index >=
// from (keys.mlw pq7_next_in_word_*), against a scan of has.
func TestProofTieBitmapNext(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 5))
	for _, n := range []int{1, 2, 63, 64, 65, 128, 200, 1 << 11} {
		for range 20 {
			bm := newBitmap(n)
			for range r.IntN(4) {
				bm.set(r.IntN(n))
			}
			if r.IntN(3) == 0 {
				bm.set(n - 1)
			}
			for _, from := range []int{0, 1, 62, 63, 64, 65, n - 1, n, r.IntN(n)} {
				if from < 0 {
					continue
				}
				want := -1
				for i := from; i < n; i++ {
					if bm.has(i) {
						want = i
						break
					}
				}
				if got := bm.next(from); got != want {
					t.Fatalf("n %d: next(%d) = %d, want %d", n, from, got, want)
				}
			}
		}
	}
}
