//go:build twcheck

package checked

// On is true: every mutating call checks the invariants.
const On = true
