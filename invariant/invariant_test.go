package invariant_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gotimingwheel/timingwheel/invariant"
)

func TestViolation(t *testing.T) {
	err := invariant.Errorf("PQ3", "level %d has %d", 1, 3)
	if got, want := err.Error(), "invariant PQ3 violated: level 1 has 3"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	var v *invariant.Violation
	if !errors.As(err, &v) || v.ID != "PQ3" || v.Detail != "level 1 has 3" {
		t.Fatalf("errors.As: %#v", v)
	}
}

func TestIDOf(t *testing.T) {
	inner := invariant.Errorf("LB2", "x")
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{io.EOF, ""},
		{inner, "LB2"},
		{fmt.Errorf("config: %w", inner), "LB2"},
		{fmt.Errorf("outer: %w", fmt.Errorf("middle: %w", inner)), "LB2"},
		{fmt.Errorf("two: %w %w", io.EOF, inner), "LB2"},
		// The first violation in the chain wins.
		{fmt.Errorf("%w: %w", invariant.Errorf("CF2", "y"), inner), "CF2"},
		{fmt.Errorf("not wrapped: %v", inner), ""},
	}
	for _, tc := range tests {
		if got := invariant.IDOf(tc.err); got != tc.want {
			t.Errorf("IDOf(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// fakeTB records what Expect reports instead of failing the real test.
type fakeTB struct {
	failed bool
	msg    string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
}

func TestExpect(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		id       string
		wantFail bool
	}{
		{"nil error: corruption not detected", nil, "PQ1", true},
		{"wrong ID", invariant.Errorf("PQ2", "d"), "PQ1", true},
		{"not a violation", io.EOF, "PQ1", true},
		{"right ID", invariant.Errorf("PQ1", "d"), "PQ1", false},
		{"right ID, wrapped", fmt.Errorf("wheel: %w", invariant.Errorf("TW4", "d")), "TW4", false},
		{"ID prefix is not the ID", invariant.Errorf("PQ10", "d"), "PQ1", true},
	}
	for _, tc := range tests {
		f := &fakeTB{}
		invariant.Expect(f, tc.err, tc.id)
		if f.failed != tc.wantFail {
			t.Errorf("%s: Expect failed = %v (%q), want %v", tc.name, f.failed, f.msg, tc.wantFail)
		}
		if f.failed && !strings.Contains(f.msg, tc.id) {
			t.Errorf("%s: message %q does not name %s", tc.name, f.msg, tc.id)
		}
	}
}
