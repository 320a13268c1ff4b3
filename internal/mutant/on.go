//go:build twmutants

package mutant

import "os"

// On is true in a twmutants build: TW_MUTANT selects the active mutant.
const On = true

var active = os.Getenv("TW_MUTANT")
