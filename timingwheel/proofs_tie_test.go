package timingwheel_test

// The tie between the wheel's time arithmetic and proofs/time.mlw: the
// proofs state properties of the formulas key = t >> A, IntervalStart =
// t >> A << A, MaxIntervalNum = MaxTime >> A, MaxAllowedAlarmTime and
// NextAlarmFiresAt as the Go code writes them; these tests check that the
// wheel's answers are those formulas, written here in exact arithmetic
// (math/big), on boundary and random values, and that the proved
// consequences hold: Add admits exactly [IntervalStart(now),
// MaxAllowedAlarmTime], and an alarm fires at NextAlarmFiresAt and not a
// nanosecond before.

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/levelbits"
	"github.com/gotimingwheel/timingwheel/timingwheel"
)

const proofMaxNs = int64(1)<<62 - 1

func floorDiv2(t int64, a int) int64 { return new(big.Int).Rsh(big.NewInt(t), uint(a)).Int64() }

func times2(n int64, a int) *big.Int { return new(big.Int).Lsh(big.NewInt(n), uint(a)) }

// proofTimes returns 0, 1, MaxTime and its neighbour, the powers of two
// around the precision and the levels' edges, and random times.
func proofTimes(r *rand.Rand, a int) []int64 {
	ts := []int64{0, 1, 2, proofMaxNs - 1, proofMaxNs}
	for e := 0; e <= 62; e++ {
		if e < a-1 || e > a+4 && e < 60 {
			continue
		}
		p := int64(1) << uint(e)
		ts = append(ts, p-1, p, p+1, proofMaxNs-p, proofMaxNs-p+1)
	}
	for range 20 {
		ts = append(ts, r.Int64N(proofMaxNs+1))
	}
	out := ts[:0]
	for _, t := range ts {
		if t >= 0 && t <= proofMaxNs {
			out = append(out, t)
		}
	}
	return out
}

func TestProofTieIntervals(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 8))
	for _, a := range []int{0, 1, 2, 10, 20, 30, 46, 60, 61} {
		cfg, err := config.New(config.AlarmPrecision(a))
		if err != nil {
			t.Fatal(err)
		}
		w, err := timingwheel.NewWithConfig[int](cfg, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		maxN := w.MaxIntervalNum()
		if want := floorDiv2(proofMaxNs, a); maxN != want {
			t.Fatalf("A=%d: MaxIntervalNum %d, want %d", a, maxN, want)
		}
		for _, ns := range proofTimes(r, a) {
			n, err := w.IntervalNum(time.Unix(0, ns))
			if err != nil || n != floorDiv2(ns, a) {
				t.Fatalf("A=%d: IntervalNum(%d) = %d, %v; want %d", a, ns, n, err, floorDiv2(ns, a))
			}
			st, err := w.IntervalStart(time.Unix(0, ns))
			want := times2(n, a)
			if err != nil || st.UnixNano() != want.Int64() || ns-st.UnixNano() >= int64(1)<<uint(a) {
				t.Fatalf("A=%d: IntervalStart(%d) = %d, %v; want %v, within 2^A", a, ns, st.UnixNano(), err, want)
			}
		}
		for _, n := range []int64{0, 1, maxN - 1, maxN, r.Int64N(maxN + 1)} {
			st, err := w.IntervalNumStart(n)
			if err != nil || st.UnixNano() != times2(n, a).Int64() {
				t.Fatalf("A=%d: IntervalNumStart(%d) = %v, %v", a, n, st, err)
			}
		}
		if _, err := w.IntervalNumStart(maxN + 1); !errors.Is(err, timingwheel.ErrIntervalNumOutOfRange) {
			t.Fatalf("A=%d: IntervalNumStart(MaxIntervalNum+1): %v", a, err)
		}
	}
}

// TestProofTieAdmitAndFire: on wheels whose levels reach less than MaxTime
// (so MaxAllowedAlarmTime is the formula's second branch), Add admits
// IntervalStart(now) and MaxAllowedAlarmTime = (k+1)·2^A - 1 (k the
// largest allowed interval) and refuses the nanosecond beyond each end
// (tw3_add_lower_bound_is_interval_start,
// tw2_key_fits_then_time_le_max_allowed and its converse); an alarm's
// NextAlarmFiresAt is (key+1)·2^A, an advance to a nanosecond before it
// fires nothing and an advance to it fires the alarm
// (next_alarm_fires_at_*).
func TestProofTieAdmitAndFire(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 9))
	for _, a := range []int{0, 1, 3, 20, 46, 58} {
		for _, bits := range [][]int{{1}, {3}, {2, 2}} {
			lb, err := levelbits.New(bits...)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := config.New(config.AlarmPrecision(a), config.WithLevelBits(lb))
			if err != nil {
				t.Fatal(err)
			}
			for _, now := range proofTimes(r, a)[:12] {
				w, err := timingwheel.NewWithConfig[int](cfg, time.Unix(0, now))
				if err != nil {
					t.Fatal(err)
				}
				k := w.MaxAllowedAlarmIntervalNum()
				want := proofMaxNs
				if k < w.MaxIntervalNum() {
					want = new(big.Int).Sub(times2(k+1, a), big.NewInt(1)).Int64()
				}
				if got := w.MaxAllowedAlarmTime().UnixNano(); got != want {
					t.Fatalf("A=%d bits %v now %d: MaxAllowedAlarmTime %d, want %d", a, bits, now, got, want)
				}
				start := times2(floorDiv2(now, a), a).Int64()
				if _, err := w.Add(time.Unix(0, start), 0); err != nil {
					t.Fatalf("A=%d now %d: Add(IntervalStart) = %v", a, now, err)
				}
				if start > 0 {
					if _, err := w.Add(time.Unix(0, start-1), 0); !errors.Is(err, timingwheel.ErrBeforeCurrentInterval) {
						t.Fatalf("A=%d now %d: Add(IntervalStart-1) = %v", a, now, err)
					}
				}
				if _, err := w.Add(time.Unix(0, want), 0); err != nil {
					t.Fatalf("A=%d now %d: Add(MaxAllowedAlarmTime) = %v", a, now, err)
				}
				if want < proofMaxNs {
					if _, err := w.Add(time.Unix(0, want+1), 0); !errors.Is(err, timingwheel.ErrTooFarInFuture) {
						t.Fatalf("A=%d now %d: Add(MaxAllowedAlarmTime+1) = %v", a, now, err)
					}
				}
				// A wheel whose only alarm is at a random admitted time.
				w2, err := timingwheel.NewWithConfig[int](cfg, time.Unix(0, now))
				if err != nil {
					t.Fatal(err)
				}
				at := start + r.Int64N(want-start+1)
				if _, err := w2.Add(time.Unix(0, at), 0); err != nil {
					t.Fatal(err)
				}
				key := floorDiv2(at, a)
				next, ok := w2.NextAlarmFiresAt()
				if key >= w2.MaxIntervalNum() {
					if ok {
						t.Fatalf("A=%d: alarm in the last interval, NextAlarmFiresAt %v", a, next)
					}
					continue
				}
				if !ok || next.UnixNano() != times2(key+1, a).Int64() || next.UnixNano()-at > int64(1)<<uint(a) {
					t.Fatalf("A=%d at %d: NextAlarmFiresAt %d, %v; want %v", a, at, next.UnixNano(), ok, times2(key+1, a))
				}
				fired := 0
				count := func(timingwheel.Fired[int]) { fired++ }
				if err := w2.AdvanceClock(time.Unix(0, next.UnixNano()-1), count); err != nil || fired != 0 {
					t.Fatalf("A=%d at %d: advance to NextAlarmFiresAt-1 fired %d (%v)", a, at, fired, err)
				}
				if err := w2.AdvanceClock(next, count); err != nil || fired != 1 {
					t.Fatalf("A=%d at %d: advance to NextAlarmFiresAt fired %d (%v)", a, at, fired, err)
				}
			}
		}
	}
}
