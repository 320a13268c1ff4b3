// Package config holds the settings of a timing wheel: its alarm precision
// and its level bits, plus an initial capacity and the overflow option.
// timingwheel.New takes the precision as a time.Duration, which it rounds
// down to a power of two nanoseconds (PrecisionFor tells the result:
// time.Millisecond gives 524.288µs), and these options; a Config (New,
// NewFromDuration) is for timingwheel.NewWithConfig. Which precision to
// choose: the timingwheel package doc, "Choosing a precision".
//
// Time from the Unix epoch is cut into half-open intervals of one alarm
// precision, 2^A nanoseconds; the interval number of a time t (in ns) is t>>A.
// The level bits say how far ahead a wheel accepts alarms: in at least
// 2^(sum of the bits) intervals, the current one included, and up to the
// last time a wheel holds with WithOverflow or the default level bits.
//
// A valid Config satisfies CF1: 0 <= A <= MaxPrecisionLog2; CF2: the level
// bits are valid (levelbits); CF3: sum(level bits) <= 62 - A; CF4: 0 <=
// capacity <= MaxCapacity. Every Config that New returns is valid; the zero
// Config is not.
package config

import (
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/gotimingwheel/timingwheel/internal/pool"
	"github.com/gotimingwheel/timingwheel/invariant"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

// MaxPrecisionLog2 is the largest allowed precision exponent: a wheel needs at
// least one level bit, and A + bits <= 62.
const MaxPrecisionLog2 = levelbits.MaxNumBits - 1

// Errors, usable with errors.Is.
var (
	ErrNonPositivePrecision = errors.New("config: precision must be positive")
	ErrPrecisionOutOfRange  = errors.New("config: precision exponent out of range")
	ErrCapacityOutOfRange   = errors.New("config: capacity out of range")
	ErrInvalidLevelBits     = errors.New("config: invalid level bits")
	ErrInvalidOption        = errors.New("config: invalid option") // a nil Option
)

// AlarmPrecision is a power of two nanoseconds, held as its exponent: the
// value A stands for 2^A ns. Only 0 <= A <= MaxPrecisionLog2 is usable in a
// Config; Mul and Div can step outside that range, and New rejects the result.
type AlarmPrecision int

// Common precisions.
const (
	OneNanosecond       AlarmPrecision = 0  // 1 ns
	AboutOneMicrosecond AlarmPrecision = 10 // 1.024 µs
	AboutOneMillisecond AlarmPrecision = 20 // 1.048576 ms
	AboutOneSecond      AlarmPrecision = 30 // 1.073741824 s
	AboutOneDay         AlarmPrecision = 46 // about 19.5 hours
)

// FloorPow2 returns the largest power of two nanoseconds that is <= d, as an
// exponent: a precision New accepts for every d in [1ns, MaxInt64]. It fails
// with ErrNonPositivePrecision when d <= 0. A d of 2^62 ns or more gives
// MaxPrecisionLog2 (2^61 ns): a wheel needs at least one level bit.
// NewFromDuration and PrecisionFor do the same in one call.
func FloorPow2(d time.Duration) (AlarmPrecision, error) {
	if d <= 0 {
		return 0, fmt.Errorf("%w: got %v, want > 0", ErrNonPositivePrecision, d)
	}
	return min(AlarmPrecision(bits.Len64(uint64(d))-1), MaxPrecisionLog2), nil
}

// PrecisionFor returns the alarm precision a wheel asked for precision d
// gets: the largest power of two nanoseconds <= d, at most 2^61 ns (0 for
// d <= 0, which New and NewFromDuration reject). timingwheel.New and
// NewFromDuration round this way; time.Millisecond gives 524.288µs.
func PrecisionFor(d time.Duration) time.Duration {
	p, err := FloorPow2(d)
	if err != nil {
		return 0
	}
	return p.Duration()
}

// Log2 returns the exponent A of the precision 2^A ns.
func (p AlarmPrecision) Log2() int { return int(p) }

// Duration returns 2^A ns. For an exponent outside [0, 62] it returns 0 (not a
// usable precision).
func (p AlarmPrecision) Duration() time.Duration {
	if p < 0 || p > levelbits.MaxNumBits {
		return 0
	}
	return time.Duration(1) << uint(p)
}

// Mul returns the precision times 2^pow2.
func (p AlarmPrecision) Mul(pow2 int) AlarmPrecision { return p + AlarmPrecision(pow2) }

// Div returns the precision divided by 2^pow2.
func (p AlarmPrecision) Div(pow2 int) AlarmPrecision { return p - AlarmPrecision(pow2) }

// String formats the precision as "2^A ns (duration)".
func (p AlarmPrecision) String() string {
	if p < 0 || p > levelbits.MaxNumBits {
		return fmt.Sprintf("2^%d ns (out of range)", int(p))
	}
	return fmt.Sprintf("2^%d ns (%v)", int(p), p.Duration())
}

// Config is an immutable wheel configuration. Make one with New; the zero value
// is precision 1 ns with no levels, which is invalid.
type Config struct {
	precision AlarmPrecision
	levelBits levelbits.LevelBits
	capacity  int
	overflow  bool
}

// Option sets an optional part of a Config.
type Option func(*Config)

// WithLevelBits sets the level bits; the default is levelbits.Default(). New
// trims them to 62 - A bits.
func WithLevelBits(lb levelbits.LevelBits) Option {
	return func(c *Config) { c.levelBits = lb }
}

// MaxCapacity is the largest capacity New accepts: the number of alarm
// records a wheel or queue can index (2^32-2). Records are allocated up
// front, 24 bytes each with an 8-byte value, so a capacity near the limit
// needs about 103 GB of memory.
const MaxCapacity = pool.MaxRecords

// WithCapacity sets how many alarm records are allocated up front (default 0:
// grow on demand); New accepts 0 <= n <= MaxCapacity.
func WithCapacity(n int) Option {
	return func(c *Config) { c.capacity = n }
}

// WithOverflow lets a wheel accept alarms at any time up to its last
// representable time, however short the reach of its level bits: alarms
// beyond the levels wait in overflow levels (OverflowLevelBits) stacked above
// them and move down as the clock approaches, with the same order and
// guarantees. Without it a wheel behaves exactly as the original: Add fails
// with ErrTooFarInFuture beyond the levels' reach.
func WithOverflow() Option {
	return func(c *Config) { c.overflow = true }
}

// OverflowLevelBits is the width of each overflow level: 2^8 slots.
const OverflowLevelBits = 8

// New returns a Config with precision p. It trims the level bits to 62 - A
// bits, as the original does, so that the levels never reach past the last
// representable time. Errors: ErrInvalidOption naming the position of a nil
// option (checked first); ErrPrecisionOutOfRange when A is outside
// [0, MaxPrecisionLog2]; ErrInvalidLevelBits (wrapping the levelbits error)
// when the level bits are invalid; ErrCapacityOutOfRange when the capacity
// is not in [0, MaxCapacity].
func New(p AlarmPrecision, opts ...Option) (Config, error) {
	c := Config{precision: p, levelBits: levelbits.Default()}
	for i, o := range opts {
		if o == nil {
			return Config{}, fmt.Errorf("%w: opts[%d] is nil", ErrInvalidOption, i)
		}
		o(&c)
	}
	if p < 0 || p > MaxPrecisionLog2 {
		return Config{}, fmt.Errorf("%w: 2^%d ns, want exponent in [0, %d]",
			ErrPrecisionOutOfRange, int(p), MaxPrecisionLog2)
	}
	if err := c.levelBits.Invariant(); err != nil {
		return Config{}, fmt.Errorf("%w %v: %w", ErrInvalidLevelBits, c.levelBits, err)
	}
	if c.capacity < 0 || int64(c.capacity) > MaxCapacity {
		return Config{}, fmt.Errorf("%w: got %d, want in [0, %d]", ErrCapacityOutOfRange, c.capacity, MaxCapacity)
	}
	c.levelBits = c.levelBits.Trim(levelbits.MaxNumBits - int(p))
	return c, nil
}

// NewFromDuration is New with the precision given as a duration: the
// largest power of two nanoseconds <= precision (PrecisionFor tells which).
// Errors: ErrNonPositivePrecision when precision <= 0, then those of New.
func NewFromDuration(precision time.Duration, opts ...Option) (Config, error) {
	p, err := FloorPow2(precision)
	if err != nil {
		return Config{}, err
	}
	return New(p, opts...)
}

// MicrosecondPrecision returns the config for precision 2^10 ns with level bits
// [10 10 6 6 5 3]: a small wheel (2,216 slots) that reaches 2^50 ns from the
// start of the current interval, about 13 days.
func MicrosecondPrecision() Config {
	lb, err := levelbits.New(10, 10, 6, 6, 5, 3)
	if err != nil {
		panic(err) // unreachable: the bits are valid
	}
	c, err := New(AboutOneMicrosecond, WithLevelBits(lb))
	if err != nil {
		panic(err) // unreachable
	}
	return c
}

// Precision returns the alarm precision.
func (c Config) Precision() AlarmPrecision { return c.precision }

// AlarmPrecision returns the alarm precision as a duration.
func (c Config) AlarmPrecision() time.Duration { return c.precision.Duration() }

// LevelBits returns the (trimmed) level bits.
func (c Config) LevelBits() levelbits.LevelBits { return c.levelBits }

// Capacity returns the initial number of alarm records.
func (c Config) Capacity() int { return c.capacity }

// Overflow reports whether WithOverflow was given.
func (c Config) Overflow() bool { return c.overflow }

// QueueLevelBits returns the level bits a wheel's queue uses: LevelBits, plus,
// with WithOverflow, overflow levels of up to OverflowLevelBits bits each until
// the sum is 62 - A, so that the levels reach every representable time.
func (c Config) QueueLevelBits() levelbits.LevelBits {
	if !c.overflow {
		return c.levelBits
	}
	bits := c.levelBits.Bits()
	for rest := levelbits.MaxNumBits - int(c.precision) - c.levelBits.NumBits(); rest > 0; {
		b := min(rest, OverflowLevelBits)
		bits = append(bits, b)
		rest -= b
	}
	lb, err := levelbits.New(bits...)
	if err != nil {
		return c.levelBits // unreachable for a valid config: the sum is 62 - A
	}
	return lb
}

// Durations returns, for each level i, the time one full rotation of levels
// 0..i spans: 2^(A+b0+...+bi) ns, where an exponent of 62 gives 2^62-1 ns.
func (c Config) Durations() []time.Duration {
	bs := c.levelBits.Bits()
	out := make([]time.Duration, len(bs))
	acc := int(c.precision)
	for i, b := range bs {
		acc += b
		if acc >= levelbits.MaxNumBits {
			out[i] = time.Duration(1<<62 - 1)
		} else {
			out[i] = time.Duration(1) << uint(acc)
		}
	}
	return out
}

// String formats the config, for example
// "precision 2^10 ns (1.024µs), level bits [11 10 10 10 10 1]".
func (c Config) String() string {
	s := fmt.Sprintf("precision %v, level bits %v", c.precision, c.levelBits)
	if c.capacity > 0 {
		s += fmt.Sprintf(", capacity %d", c.capacity)
	}
	if c.overflow {
		s += ", overflow"
	}
	return s
}

// Invariant checks CF1-CF4, in that order, and returns nil or an
// *invariant.Violation naming the first one broken by its ID
// (docs/invariants.md states each).
func (c Config) Invariant() error {
	if err := c.checkCF1(); err != nil {
		return err
	}
	if err := c.checkCF2(); err != nil {
		return err
	}
	if err := c.checkCF3(); err != nil {
		return err
	}
	return c.checkCF4()
}

// checkCF1: the precision exponent leaves room for one level bit:
// 0 <= A <= MaxPrecisionLog2.
func (c Config) checkCF1() error {
	if c.precision < 0 || c.precision > MaxPrecisionLog2 {
		return invariant.Errorf("CF1", "precision exponent %d not in [0, %d]", int(c.precision), MaxPrecisionLog2)
	}
	return nil
}

// checkCF2: the level bits are valid: LB1, LB2 and LB3 hold.
func (c Config) checkCF2() error {
	if err := c.levelBits.Invariant(); err != nil {
		return invariant.Errorf("CF2", "level bits: %v", err)
	}
	return nil
}

// checkCF3: levels and precision together stay within 62 bits:
// sum(level bits) <= 62 - A (New trims the levels to fit).
func (c Config) checkCF3() error {
	if n := c.levelBits.NumBits(); n > levelbits.MaxNumBits-int(c.precision) {
		return invariant.Errorf("CF3", "level bits %v sum to %d > 62 - %d", c.levelBits, n, int(c.precision))
	}
	return nil
}

// checkCF4: the capacity is in range: 0 <= capacity <= MaxCapacity.
func (c Config) checkCF4() error {
	if c.capacity < 0 || int64(c.capacity) > MaxCapacity {
		return invariant.Errorf("CF4", "capacity %d not in [0, %d]", c.capacity, MaxCapacity)
	}
	return nil
}
