package exhaustive

import (
	"os"
	"strconv"
	"testing"
)

// TestSmallWorlds is the shallow run of the default test: every world, every
// sequence of up to 3 operations (TW_EXHAUSTIVE_DEPTH overrides it; the deep
// run in docs/invariants.md uses 6, with -timeout 30m).
func TestSmallWorlds(t *testing.T) {
	o := Options{Depth: 3, MaxLive: 3}
	if s := os.Getenv("TW_EXHAUSTIVE_DEPTH"); s != "" {
		d, err := strconv.Atoi(s)
		if err != nil || d < 1 {
			t.Fatalf("TW_EXHAUSTIVE_DEPTH=%q: want a positive depth", s)
		}
		o.Depth = d
	}
	if s := os.Getenv("TW_EXHAUSTIVE_LIVE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TW_EXHAUSTIVE_LIVE=%q: want a positive number", s)
		}
		o.MaxLive = n
	}
	Check(t, SmallWorlds(), o)
}
