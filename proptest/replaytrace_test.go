package proptest_test

import (
	"path/filepath"
	"testing"

	"github.com/gotimingwheel/timingwheel/proptest"
)

// TestReplayTestdata replays every committed trace: each must pass on the
// real wheel or queue.
func TestReplayTestdata(t *testing.T) {
	traces, _ := filepath.Glob("testdata/*/*.trace")
	if len(traces) < 8 {
		t.Fatalf("want the 8 committed traces, found %v", traces)
	}
	for _, p := range traces {
		t.Run(p, func(t *testing.T) { proptest.Replay(t, p) })
	}
}
