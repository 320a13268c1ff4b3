// Package invtest is the corruption tests' helper: Expect fails a test
// unless a structure's Invariant error names the invariant the test broke.
// Only _test.go files import it (TestOnlyTestsImportIt).
package invtest

import "github.com/gotimingwheel/timingwheel/invariant"

// TB is the part of testing.TB that Expect uses; *testing.T and *testing.B
// satisfy it.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Expect fails t unless err is an *invariant.Violation of invariant id.
// Tests that corrupt a structure on purpose use it to show that the check
// for id can fail.
func Expect(t TB, err error, id string) {
	t.Helper()
	if err == nil {
		t.Fatalf("invariant %s: corruption was not detected (Invariant returned nil)", id)
		return
	}
	if got := invariant.IDOf(err); got != id {
		t.Fatalf("invariant %s: corruption reported as %q: %v", id, got, err)
	}
}
