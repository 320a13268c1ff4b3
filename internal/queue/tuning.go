package queue

// The tuned constants of the queue: what each trades and how it was chosen
// (measurements in the commit messages, mechanisms in docs/design.md).
const (
	// compactMin: a slot or bucket is compacted when its tombstones
	// outnumber its elements, unless it has fewer entries than this
	// (walking a few tombstones costs less than rewriting them).
	compactMin = 32

	// vecBase is the smallest capacity of a slot vector; vectors have
	// capacities vecBase·2^k, the classes of the spares.
	vecBase = 8

	// keepMax is the largest vector a slot keeps when it empties (larger
	// ones go to the spares): a slot holding a few dozen elements each turn
	// does not trade vectors with the spares every turn, for at most 256
	// bytes per slot. Chosen on HOLD at 1e4.
	keepMax = 32

	// smallMax is the most elements small mode holds however its keys lie:
	// a radix heap instead of slot arrays of kilobytes per level; narrow
	// keys beyond it go to the levels, where they never move. Measured on
	// HOLD and HOLD-EXACT at 100 and 1000.
	smallMax = 128

	// wideMax is the most elements small mode holds while most of its keys
	// lie beyond level 0, where the levels would move each down at least
	// once: fewer moves for a larger radix heap to spill. Measured on
	// HOLD-EXACT at 1000 and 10000 and SPARSE.
	wideMax = 1 << 15

	// prefetchBurst is how many due records FireDue touches ahead of firing
	// them: more overlaps more misses but touches records a handler may
	// evict first. Measured on HOLD at 1e5.
	prefetchBurst = 16

	// cascadeAhead is how many records moveAll touches ahead of the one it
	// moves: the same trade for cascades. Measured on HOLD-EXACT at 1e5.
	cascadeAhead = 32
)
