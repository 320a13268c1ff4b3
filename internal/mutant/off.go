//go:build !twmutants

package mutant

// On is false: no mutant can be active in a normal build.
const On = false

const active = ""
