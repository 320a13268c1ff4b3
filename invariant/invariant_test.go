package invariant_test

import (
	"errors"
	"fmt"
	"io"
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
