// Package alarm defines Alarm, the handle a timing wheel or priority queue of
// this module returns for each alarm it holds. Package timingwheel names the
// same type timingwheel.Alarm, so most programs never import this package.
//
// A handle is a small comparable value with no pointers (16 bytes): compare
// handles with ==, use them as map keys. Every method that takes a handle
// checks it in O(1): a handle is accepted only by the wheel or queue that
// issued it, and only while its alarm is in it. Once the alarm fires, is
// removed or is cleared, the handle is rejected with ErrInvalidAlarm (of
// package timingwheel or priorityqueue), even after its memory is reused for
// a new alarm, however long the process runs: a stale handle never names
// another alarm. docs/design.md says how.
//
// The zero Alarm is the null alarm, never a member of anything.
package alarm

import "github.com/gotimingwheel/timingwheel/internal/pool"

// Alarm is a handle to an alarm in a wheel or queue. Compare handles with ==;
// use them as map keys freely. The zero value is the null alarm. Methods:
// IsNull reports whether a handle is the null alarm; String formats it for
// debugging as "alarm(owner/index@generation)".
type Alarm = pool.Handle
