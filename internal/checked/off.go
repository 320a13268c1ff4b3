//go:build !twcheck

package checked

// On is false: checks are compiled out.
const On = false
