package queue

// The tuned constants of the queue, in one place. Each line says what the
// constant trades and how its value was chosen; the measurements behind each
// are in the commit messages that set it. docs/design.md describes the
// mechanisms.

// Slot vectors (slots.go).
const (
	// compactRatio: a slot of compactMin entries or more is compacted when
	// it holds more than compactRatio entries per element. Higher means
	// fewer compactions (each writes every kept element's record, a cache
	// miss each) for more tombstones kept; chosen on TIMEOUT, which removes
	// most of what it adds.
	compactRatio = 4

	// compactMin: slots and buckets below this many entries are never
	// compacted: a short walk over tombstones costs less than the rewrite.
	compactMin = 32

	// slotStart is the capacity of the back vector each slot starts with,
	// carved out of one allocation per level (its arena): a new level then
	// allocates once, not once per slot, for 16 bytes per slot.
	slotStart = 4

	// vecBase is the smallest capacity of a grown vector; grown vectors have
	// capacities vecBase·2^k, the classes of the spares.
	vecBase = 8
)

// Small mode (small.go).
const (
	// smallMax is the most elements small mode holds however its keys lie:
	// narrow keys go straight to their level-0 slot on the levels, so small
	// mode only saves the levels' memory; chosen where the levels' first
	// allocation stops dominating (HOLD and HOLD-EXACT at 100 and 1000).
	smallMax = 128

	// wideMax is the most elements small mode holds while most of its keys
	// lie beyond level 0, where the levels would cascade each at least once
	// and the radix heap moves each only when the minimum reaches it; chosen
	// on SPARSE and CLOCK-NEW.
	wideMax = 1 << 15
)

// Cache warming (queue.go).
const (
	// prefetchBurst is how many due records FireDue and TakeDue touch at
	// once, ahead of firing them: more overlaps more misses, but touches
	// records a handler may evict before they are read; chosen on HOLD at
	// 1e5.
	prefetchBurst = 16

	// cascadeAhead is how many records moveAll touches ahead of the one it
	// moves: the same trade for cascades; chosen on HOLD-EXACT at 1e5.
	cascadeAhead = 32
)
