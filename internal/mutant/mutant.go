// Package mutant switches on known bugs in the library, one at a time, so
// that tests can show they catch them (mutation testing). Without the build
// tag twmutants, On is the constant false and every hook compiles away.
//
// With -tags twmutants, the environment variable TW_MUTANT names the active
// mutant (one of the constants below); docs/invariants.md lists which test
// kills each.
package mutant

// Names of the mutants. Each is a realistic bug in one line of the library.
const (
	SlotOffByOne      = "slot-off-by-one"      // Add files an element one slot too far
	BitmapNotCleared  = "bitmap-not-cleared"   // Remove leaves the slot's bit set when it empties
	CascadeAppends    = "cascade-appends"      // a cascade appends moved elements behind newer ones
	CascadeLowest     = "cascade-lowest-level" // a cascade moves elements to the lowest level (the original's rule)
	StaleMinAfterClr  = "stale-min-after-clear"
	ClampWrong        = "clamp-wrong"          // ranges clamp at 2^62-2 instead of 2^62-1
	MinNotInvalidated = "min-not-invalidated"  // removing the minimum keeps the cached minimum
	FirePastLevel0    = "firepast-level0-only" // FirePastAlarms looks at level 0 only (the original)
	NextAlarmOffByOne = "next-alarm-off-by-one"
	LengthNotCounted  = "length-not-counted" // Remove forgets to decrement a level's length
	DueNotFreed       = "due-not-freed"      // after a panicking handler, its record is dropped, never freed
	HandleGenIgnored  = "handle-gen-ignored" // handles are checked without their generation

	FirePastReversed  = "firepast-reversed"   // FirePastAlarms fires a slot's chosen alarms newest first
	FirePastStrict    = "firepast-strict"     // FirePastAlarms fires at < now, not at <= now
	MinTimesLevel0    = "min-times-level0"    // the min-interval time queries look at level 0 only (the original)
	RescheduleInPlace = "reschedule-in-place" // a reschedule within the same interval keeps the alarm's place
	BeforeNowRejected = "before-now-rejected" // Add rejects times in the current interval before now
	LimitJumps        = "limit-jumps"         // AdvanceClockLimit moves the clock to the target when it stops early
	ShrinkForwardLost = "shrink-forward-lost" // handle lookups ignore Shrink's forwarding entries
	ClearKeepsOwner   = "clear-keeps-owner"   // Clear keeps the pool's owner ID, so old handles can name new alarms
	OverflowShort     = "overflow-short"      // overflow levels come in whole 8-bit levels only, falling short of MaxTime
	LimitOneMore      = "limit-one-more"      // AdvanceClockLimit stops only once it has fired more than limit alarms
	SlotMinKept       = "slot-min-kept"       // removing a slot's smallest key keeps the slot's cached minimum
	GenWraps          = "gen-wraps"           // a record freed at the last generation wraps to 0 instead of retiring
)

// All lists every mutant.
var All = []string{SlotOffByOne, BitmapNotCleared, CascadeAppends, CascadeLowest, StaleMinAfterClr,
	ClampWrong, MinNotInvalidated, FirePastLevel0, NextAlarmOffByOne, LengthNotCounted, DueNotFreed,
	HandleGenIgnored, FirePastReversed, FirePastStrict, MinTimesLevel0, RescheduleInPlace, BeforeNowRejected,
	LimitJumps, ShrinkForwardLost, ClearKeepsOwner, OverflowShort, LimitOneMore, SlotMinKept, GenWraps}

// Is reports whether mutant name is active. It is always false without the
// twmutants build tag.
func Is(name string) bool { return On && active == name }
