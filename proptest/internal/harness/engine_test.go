package harness

import (
	"strings"
	"testing"
)

// seqDiff lines two firing sequences up on what they share, in words a
// user reads, and shows sequences too long to align whole.
func TestSeqDiff(t *testing.T) {
	wheel, queue := &Harness{k: WheelKind}, &Harness{k: QueueKind}
	for _, c := range []struct {
		h         *Harness
		want, got []fired
		diff      string
	}{
		{wheel, []fired{{1, 5}, {2, 5}, {3, 5}}, []fired{{1, 5}, {3, 5}},
			"  alarm 1 at 5\n- alarm 2 at 5\n  alarm 3 at 5\n"},
		{wheel, []fired{{1, 5}, {2, 6}}, []fired{{2, 6}, {1, 5}},
			"- alarm 1 at 5\n  alarm 2 at 6\n+ alarm 1 at 5\n"},
		{queue, []fired{{1, 1}, {2, 3}}, []fired{{1, 1}, {4, 3}, {5, 9}},
			"  element 1 key 1\n- element 2 key 3\n+ element 4 key 3\n+ element 5 key 9\n"},
		{wheel, nil, []fired{{7, 8}}, "+ alarm 7 at 8\n"},
	} {
		if got := c.h.seqDiff(c.want, c.got); got != c.diff {
			t.Errorf("seqDiff(%v, %v) =\n%s\nwant\n%s", c.want, c.got, got, c.diff)
		}
	}
	long := make([]fired, 1100)
	for i := range long {
		long[i] = fired{i + 1, int64(i)}
	}
	d := wheel.seqDiff(long, long[1:])
	if n := strings.Count(d, "\n"); n != 2*len(long)-1 || !strings.HasPrefix(d, "- alarm 1 at 0\n") ||
		!strings.Contains(d, "+ alarm 2 at 1\n") {
		t.Errorf("past maxDiffCells: %d lines, starting %q", n, d[:min(len(d), 60)])
	}
}

// zigzag counts 0, -1, 1, -2, 2, ... and covers its range once, to its ends.
func TestZigzag(t *testing.T) {
	for _, c := range []struct{ lo, hi int64 }{{-1, 1}, {-2, 40}, {-5, 2}, {-1, 8}} {
		neg, pos := uint64(-c.lo), uint64(c.hi)
		var got []int64
		seen := map[int64]bool{}
		for u := uint64(0); u <= neg+pos; u++ {
			v := zigzag(u, neg, pos)
			if v < c.lo || v > c.hi || seen[v] {
				t.Fatalf("[%d, %d]: u=%d gives %d, out of range or twice", c.lo, c.hi, u, v)
			}
			seen[v] = true
			got = append(got, v)
		}
		if got[0] != 0 || got[1] != -1 || got[2] != 1 {
			t.Errorf("[%d, %d]: %v, want 0, -1, 1 first", c.lo, c.hi, got)
		}
	}
	const minI, maxI = -1 << 63, 1<<63 - 1
	neg, pos := uint64(1)<<63, uint64(maxI)
	for u, want := range map[uint64]int64{0: 0, 1: -1, 2: 1, neg + pos: minI, neg + pos - 1: maxI} {
		if v := zigzag(u, neg, pos); v != want {
			t.Errorf("full int64 range: u=%d gives %d, want %d", u, v, want)
		}
	}
}
