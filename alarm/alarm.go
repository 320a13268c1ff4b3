// Package alarm defines Alarm, the handle a timing wheel or priority queue of
// this module returns for each alarm it holds. Package timingwheel names the
// same type timingwheel.Alarm, so most programs never import this package.
//
// A handle is a small comparable value with no pointers (16 bytes): the ID of
// the wheel or queue that issued it, the index of the alarm's record there,
// and the record's generation. Every method that takes a handle checks all
// three in O(1), so a handle is accepted only by the structure that issued
// it, and only while its alarm is in it: once the alarm fires, is removed or
// is cleared, the handle is rejected with ErrInvalidAlarm, even after its
// record is reused for a new alarm. This holds however long the process
// runs: IDs of wheels and queues never repeat (64 bits, taken anew by every
// Clear), and a record whose generation (25 bits) is spent is retired rather
// than reused under an old generation.
//
// The zero Alarm is the null alarm, never a member of anything.
package alarm

import "github.com/gotimingwheel/timingwheel/internal/pool"

// Alarm is a handle to an alarm in a wheel or queue. Compare handles with ==;
// use them as map keys freely. The zero value is the null alarm. Methods:
// IsNull reports whether a handle is the null alarm; String formats it for
// debugging as "alarm(owner/index@generation)".
type Alarm = pool.Handle
