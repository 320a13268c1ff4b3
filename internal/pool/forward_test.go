package pool

import "testing"

// TestShrinkReleasesForwarding: Go maps never give back the room of
// deleted entries, so Shrink makes the forwarding maps afresh for the
// entries left and drops them when none are left; BytesHeld counts them.
// Every handle keeps its meaning: a moved live record's handle finds it, a
// freed record's handle is refused.
func TestShrinkReleasesForwarding(t *testing.T) {
	const n, moved = 5000, 1000
	p := NewPool[int](0)
	hs := make([]Handle, n)
	for v := range hs {
		hs[v], _ = p.Alloc(0, v, 1)
	}
	free := func(hs []Handle) {
		for _, h := range hs {
			i, r := p.Lookup(h)
			p.Free(i, r)
		}
	}
	free(hs[:n-moved])
	bytes, left := 0, moved
	for _, keep := range []int{moved, moved / 10, 0} {
		free(hs[n-left : n-keep])
		left = keep
		p.Shrink(func(from, to uint32) {})
		if err := p.Invariant(); err != nil {
			t.Fatalf("keep %d: %v", keep, err)
		}
		if entries, room, made := forwarding(p); entries != keep || room != keep || made != (keep > 0) {
			t.Fatalf("keep %d: the maps hold %d entries, made for %d (allocated: %v)", keep, entries, room, made)
		}
		if b := p.BytesHeld(); keep < moved && b >= bytes {
			t.Fatalf("keep %d: BytesHeld %d, %d before", keep, b, bytes)
		}
		bytes = p.BytesHeld()
		for v, h := range hs {
			if i, r := p.Lookup(h); (v >= n-keep) != (r != nil) || r != nil && (r.Value != v || p.Handle(i) != h) {
				t.Fatalf("keep %d: handle %d finds %v", keep, v, r)
			}
		}
	}
	if want := NewPool[int](0).BytesHeld() + 4; bytes > want {
		t.Fatalf("BytesHeld %d with nothing live, want at most %d", bytes, want)
	}
}
