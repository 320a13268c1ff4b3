// Package invariant is the house style for invariant checks.
//
// Every invariant of every structure in this module has a stable ID, such as
// "PQ3" (priority queue, invariant 3). docs/invariants.md states each one in
// words and as a formula. A structure's Invariant method returns nil, or a
// *Violation that names the broken invariant and the facts that break it.
//
// Callers tell violations apart with errors.As:
//
//	var v *invariant.Violation
//	if errors.As(err, &v) && v.ID == "PQ3" { ... }
package invariant

import (
	"errors"
	"fmt"
)

// Violation reports that the invariant ID does not hold. Detail says which
// values break it.
type Violation struct {
	ID     string // stable identifier, for example "PQ3"
	Detail string // the facts, for example "level 1 length 3, slots hold 2"
}

// Error implements error as "invariant ID violated: Detail".
func (v *Violation) Error() string {
	return "invariant " + v.ID + " violated: " + v.Detail
}

// Errorf returns a *Violation of invariant id with a formatted detail.
func Errorf(id, format string, args ...any) error {
	return &Violation{ID: id, Detail: fmt.Sprintf(format, args...)}
}

// IDOf returns the ID of the first *Violation in err's chain, or "" when err
// holds none.
func IDOf(err error) string {
	var v *Violation
	if errors.As(err, &v) {
		return v.ID
	}
	return ""
}
