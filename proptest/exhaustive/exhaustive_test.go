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
	env := func(name string) int {
		s := os.Getenv(name)
		if s == "" {
			return 3
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", name, s)
		}
		return n
	}
	Check(t, SmallWorlds(), Options{Depth: env("TW_EXHAUSTIVE_DEPTH"), MaxLive: env("TW_EXHAUSTIVE_LIVE")})
}
