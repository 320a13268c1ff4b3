package config_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotimingwheel/timingwheel/config"
	"github.com/gotimingwheel/timingwheel/internal/invtest"
	"github.com/gotimingwheel/timingwheel/invariant"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

func mustLB(t *testing.T, bits ...int) levelbits.LevelBits {
	t.Helper()
	lb, err := levelbits.New(bits...)
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

func TestPrecisionConstants(t *testing.T) {
	tests := []struct {
		p    config.AlarmPrecision
		log2 int
		d    time.Duration
		str  string
	}{
		{config.OneNanosecond, 0, 1, "2^0 ns (1ns)"},
		{config.AboutOneMicrosecond, 10, 1_024, "2^10 ns (1.024µs)"},
		{config.AboutOneMillisecond, 20, 1_048_576, "2^20 ns (1.048576ms)"},
		{config.AboutOneSecond, 30, 1_073_741_824, "2^30 ns (1.073741824s)"},
		{config.AboutOneDay, 46, 70_368_744_177_664, "2^46 ns (19h32m48.744177664s)"},
	}
	for _, tc := range tests {
		if got := tc.p.Log2(); got != tc.log2 {
			t.Errorf("%v.Log2() = %d, want %d", tc.p, got, tc.log2)
		}
		if got := tc.p.Duration(); got != tc.d {
			t.Errorf("2^%d.Duration() = %d, want %d", tc.log2, got, tc.d)
		}
		if got := tc.p.String(); got != tc.str {
			t.Errorf("2^%d.String() = %q, want %q", tc.log2, got, tc.str)
		}
		// The precision is its own floor, and so is anything up to the
		// next power of two.
		ds := []time.Duration{tc.d, 2*tc.d - 1}
		if tc.d > 1 {
			ds = append(ds, tc.d+1)
		}
		for _, d := range ds {
			if got, err := config.FloorPow2(d); err != nil || got != tc.p {
				t.Errorf("FloorPow2(%d) = %v, %v; want 2^%d", d, got, err, tc.log2)
			}
		}
	}
}

func TestFloorPow2(t *testing.T) {
	tests := []struct {
		d    time.Duration
		log2 int
	}{
		{time.Second, 29},      // 2^29 = 536870912 <= 1e9 < 2^30
		{time.Millisecond, 19}, // 2^19 = 524288 <= 1e6 < 2^20
		{time.Microsecond, 9},  // 2^9 = 512 <= 1000 < 2^10
		{1, 0},
		{2, 1},
		{3, 1},
		{4, 2},
		{1023, 9},
		{1024, 10},
		{time.Hour, 41}, // 3.6e12: 2^41 = 2199023255552 <= 3.6e12 < 2^42
		{1<<62 - 1, 61},
		// From 2^62 ns on, the floor is capped at the largest precision a
		// config accepts (2^61 ns), so that New agrees with FloorPow2.
		{1 << 62, 61},
		{1<<63 - 1, 61},
	}
	for _, tc := range tests {
		got, err := config.FloorPow2(tc.d)
		if err != nil || got.Log2() != tc.log2 {
			t.Errorf("FloorPow2(%v) = 2^%d, %v; want 2^%d", tc.d, got.Log2(), err, tc.log2)
		}
		if _, err := config.New(got); err != nil {
			t.Errorf("New(FloorPow2(%v)) fails: %v", tc.d, err)
		}
	}
	for _, d := range []time.Duration{0, -1, -time.Second, -1 << 63} {
		_, err := config.FloorPow2(d)
		if !errors.Is(err, config.ErrNonPositivePrecision) {
			t.Errorf("FloorPow2(%v) error = %v, want ErrNonPositivePrecision", d, err)
			continue
		}
		if !strings.Contains(err.Error(), d.String()) || !strings.Contains(err.Error(), "> 0") {
			t.Errorf("FloorPow2(%v) error %q does not name the value and the allowed range", d, err)
		}
	}
}

func TestMulDiv(t *testing.T) {
	// About one second (2^30 ns) divided and multiplied by 2^-3 .. 2^3.
	durs := map[int]time.Duration{
		27: 134_217_728, 28: 268_435_456, 29: 536_870_912, 30: 1_073_741_824,
		31: 2_147_483_648, 32: 4_294_967_296, 33: 8_589_934_592,
	}
	for pow2 := -3; pow2 <= 3; pow2++ {
		div := config.AboutOneSecond.Div(pow2)
		if div.Log2() != 30-pow2 || div.Duration() != durs[30-pow2] {
			t.Errorf("Div(%d) = 2^%d = %d ns, want 2^%d = %d", pow2, div.Log2(), div.Duration(), 30-pow2, durs[30-pow2])
		}
		mul := config.AboutOneSecond.Mul(pow2)
		if mul.Log2() != 30+pow2 || mul.Duration() != durs[30+pow2] {
			t.Errorf("Mul(%d) = 2^%d = %d ns, want 2^%d = %d", pow2, mul.Log2(), mul.Duration(), 30+pow2, durs[30+pow2])
		}
		if mul.Div(pow2) != config.AboutOneSecond {
			t.Errorf("Mul(%d).Div(%d) = %v", pow2, pow2, mul.Div(pow2))
		}
	}
	// Outside [0, 62] there is no duration, and String says so.
	for _, p := range []config.AlarmPrecision{config.OneNanosecond.Div(1), config.AboutOneDay.Mul(17)} {
		if p.Duration() != 0 {
			t.Errorf("2^%d.Duration() = %d, want 0 (not a usable precision)", p.Log2(), p.Duration())
		}
		if !strings.Contains(p.String(), "out of range") {
			t.Errorf("2^%d.String() = %q, want it to say out of range", p.Log2(), p.String())
		}
	}
}

func TestNewTrimsLevelBits(t *testing.T) {
	tests := []struct {
		p    config.AlarmPrecision
		lb   []int // nil: the default
		want []int
	}{
		{config.OneNanosecond, nil, []int{11, 10, 10, 10, 10, 10, 1}},
		{config.AboutOneMicrosecond, nil, []int{11, 10, 10, 10, 10, 1}},
		{config.AboutOneMillisecond, nil, []int{11, 10, 10, 10, 1}},
		{config.AboutOneSecond, nil, []int{11, 10, 10, 1}},
		{config.AboutOneDay, nil, []int{11, 5}},
		{config.AboutOneSecond.Mul(3), nil, []int{11, 10, 8}}, // 62 - 33 = 29
		{config.MaxPrecisionLog2, nil, []int{1}},
		{config.OneNanosecond, []int{1}, []int{1}},
		{config.AboutOneDay, []int{10}, []int{10}},
		{config.AboutOneDay, []int{10, 10}, []int{10, 6}},
		{config.AboutOneMicrosecond, []int{10, 10, 6, 6, 5, 3}, []int{10, 10, 6, 6, 5, 3}},
		{40, []int{10, 10, 10}, []int{10, 10, 2}},
	}
	for _, tc := range tests {
		var opts []config.Option
		if tc.lb != nil {
			opts = append(opts, config.WithLevelBits(mustLB(t, tc.lb...)))
		}
		c, err := config.New(tc.p, opts...)
		if err != nil {
			t.Fatalf("New(2^%d, %v): %v", tc.p.Log2(), tc.lb, err)
		}
		if got := c.LevelBits().Bits(); !slices.Equal(got, tc.want) {
			t.Errorf("New(2^%d, %v).LevelBits() = %v, want %v", tc.p.Log2(), tc.lb, got, tc.want)
		}
		if c.Precision() != tc.p || c.AlarmPrecision() != tc.p.Duration() {
			t.Errorf("New(2^%d): Precision %v, AlarmPrecision %v", tc.p.Log2(), c.Precision(), c.AlarmPrecision())
		}
		if c.Capacity() != 0 || c.Overflow() {
			t.Errorf("New(2^%d): Capacity %d, Overflow %v; want 0, false", tc.p.Log2(), c.Capacity(), c.Overflow())
		}
		if err := c.Invariant(); err != nil {
			t.Errorf("New(2^%d, %v).Invariant() = %v", tc.p.Log2(), tc.lb, err)
		}
	}
}

func TestNewErrors(t *testing.T) {
	type errCase struct {
		name string
		p    config.AlarmPrecision
		opts []config.Option
		want error
		msg  []string
	}
	tests := []errCase{
		// A negative exponent is reachable through Div: an error, not a panic.
		{"negative exponent via Div", config.OneNanosecond.Div(1), nil, config.ErrPrecisionOutOfRange, []string{"2^-1", "[0, 61]"}},
		{"very negative", config.AboutOneSecond.Div(100), nil, config.ErrPrecisionOutOfRange, []string{"2^-70", "[0, 61]"}},
		{"62 leaves no level bit", config.AboutOneDay.Mul(16), nil, config.ErrPrecisionOutOfRange, []string{"2^62", "[0, 61]"}},
		{"way too large", config.AboutOneDay.Mul(1000), nil, config.ErrPrecisionOutOfRange, []string{"2^1046"}},
		{"zero level bits", config.AboutOneMicrosecond, []config.Option{config.WithLevelBits(levelbits.LevelBits{})}, config.ErrInvalidLevelBits, []string{"[]"}},
		{"negative capacity", config.AboutOneMicrosecond, []config.Option{config.WithCapacity(-1)}, config.ErrCapacityOutOfRange, []string{"-1", "[0, 4294967294]"}},
		{"nil option", config.AboutOneMicrosecond, []config.Option{config.WithCapacity(1), nil}, config.ErrInvalidOption, []string{"opts[1]", "nil"}},
		{"nil option first", -1, []config.Option{nil, config.WithCapacity(-1)}, config.ErrInvalidOption, []string{"opts[0]", "nil"}},
		// Order: precision first, then level bits, then capacity.
		{"precision before level bits", -1, []config.Option{config.WithLevelBits(levelbits.LevelBits{}), config.WithCapacity(-1)}, config.ErrPrecisionOutOfRange, nil},
		{"level bits before capacity", 0, []config.Option{config.WithCapacity(-1), config.WithLevelBits(levelbits.LevelBits{})}, config.ErrInvalidLevelBits, nil},
	}
	if strconv.IntSize == 64 { // where int is 32 bits, no int is past the limit
		one := int64(1)
		tests = append(tests, []errCase{
			{"capacity past the index limit", config.AboutOneMicrosecond, []config.Option{config.WithCapacity(int(one << 62))}, config.ErrCapacityOutOfRange, []string{"4611686018427387904", "[0, 4294967294]"}},
			{"capacity one past the limit", config.AboutOneMicrosecond, []config.Option{config.WithCapacity(int(int64(config.MaxCapacity) + one))}, config.ErrCapacityOutOfRange, []string{"4294967295", "[0, 4294967294]"}},
		}...)
	}
	all := []error{config.ErrPrecisionOutOfRange, config.ErrInvalidLevelBits, config.ErrCapacityOutOfRange, config.ErrNonPositivePrecision, config.ErrInvalidOption}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.New(tc.p, tc.opts...)
			if !errors.Is(err, tc.want) {
				t.Fatalf("New error = %v, want %v", err, tc.want)
			}
			for _, s := range all {
				if s != tc.want && errors.Is(err, s) {
					t.Errorf("error %v also matches %v", err, s)
				}
			}
			for _, m := range tc.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			if c.LevelBits().Len() != 0 {
				t.Errorf("New returned %v with an error, want the zero Config", c)
			}
		})
	}
	// The level-bits error carries the levelbits invariant that failed.
	_, err := config.New(0, config.WithLevelBits(levelbits.LevelBits{}))
	if invariant.IDOf(err) != "LB1" {
		t.Errorf("New with zero level bits: %v, want it to wrap an LB1 violation", err)
	}
}

func TestCapacityAndOverflowOptions(t *testing.T) {
	c, err := config.New(config.AboutOneMillisecond, config.WithCapacity(1000))
	if err != nil || c.Capacity() != 1000 {
		t.Fatalf("WithCapacity(1000): %v, %v", c.Capacity(), err)
	}
	c, err = config.New(config.AboutOneMillisecond, config.WithCapacity(0))
	if err != nil || c.Capacity() != 0 {
		t.Fatalf("WithCapacity(0): %v, %v", c.Capacity(), err)
	}
	// Later options win.
	c, err = config.New(config.OneNanosecond, config.WithLevelBits(mustLB(t, 3)), config.WithLevelBits(mustLB(t, 4, 4)))
	if err != nil || !slices.Equal(c.LevelBits().Bits(), []int{4, 4}) {
		t.Fatalf("two WithLevelBits: %v, %v", c.LevelBits(), err)
	}
}

// QueueLevelBits adds overflow levels of up to 8 bits until the sum is
// 62 - A, only with WithOverflow.
func TestQueueLevelBits(t *testing.T) {
	tests := []struct {
		p        config.AlarmPrecision
		lb       []int
		overflow bool
		want     []int
	}{
		{config.AboutOneMicrosecond, []int{10}, false, []int{10}},
		{config.AboutOneMicrosecond, []int{10}, true, []int{10, 8, 8, 8, 8, 8, 2}},                     // 52 - 10 = 42 = 5*8 + 2
		{config.AboutOneMicrosecond, []int{10, 10, 6, 6, 5, 3}, true, []int{10, 10, 6, 6, 5, 3, 8, 4}}, // 40 bits; 52 - 40 = 12
		{config.OneNanosecond, []int{11, 10, 10, 10, 10, 10, 1}, true, []int{11, 10, 10, 10, 10, 10, 1}},
		{config.AboutOneDay, []int{2}, true, []int{2, 8, 6}}, // 16 - 2 = 14
	}
	for _, tc := range tests {
		opts := []config.Option{config.WithLevelBits(mustLB(t, tc.lb...))}
		if tc.overflow {
			opts = append(opts, config.WithOverflow())
		}
		c, err := config.New(tc.p, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if c.Overflow() != tc.overflow {
			t.Errorf("Overflow() = %v, want %v", c.Overflow(), tc.overflow)
		}
		if got := c.QueueLevelBits().Bits(); !slices.Equal(got, tc.want) {
			t.Errorf("2^%d %v overflow=%v: QueueLevelBits = %v, want %v", tc.p.Log2(), tc.lb, tc.overflow, got, tc.want)
		}
		if !slices.Equal(c.LevelBits().Bits(), tc.lb) {
			t.Errorf("LevelBits changed by WithOverflow: %v", c.LevelBits())
		}
	}
}

func TestMicrosecondPrecision(t *testing.T) {
	c := config.MicrosecondPrecision()
	if c.Precision() != config.AboutOneMicrosecond || c.AlarmPrecision() != 1024 {
		t.Fatalf("precision %v", c.Precision())
	}
	if got := c.LevelBits().Bits(); !slices.Equal(got, []int{10, 10, 6, 6, 5, 3}) {
		t.Fatalf("level bits %v, want [10 10 6 6 5 3]", got)
	}
	if err := c.Invariant(); err != nil {
		t.Fatal(err)
	}
}

func TestDurations(t *testing.T) {
	const capped = time.Duration(1<<62 - 1)
	p2 := func(exps ...int) []time.Duration {
		var out []time.Duration
		for _, e := range exps {
			if e >= 62 {
				out = append(out, capped)
			} else {
				out = append(out, time.Duration(1)<<e)
			}
		}
		return out
	}
	ext, err := levelbits.NewExtended(10, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p config.AlarmPrecision, lb levelbits.LevelBits) config.Config {
		c, err := config.New(p, config.WithLevelBits(lb))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	def := func(p config.AlarmPrecision) config.Config {
		c, err := config.New(p)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var thirtyTwoOnes []int
	for i := 31; i <= 62; i++ {
		thirtyTwoOnes = append(thirtyTwoOnes, i)
	}
	tests := []struct {
		name string
		c    config.Config
		want []time.Duration
	}{
		// 2^10 ns, bits [10 10 6 6 5 3]: cumulative exponents 20 30 36 42 47 50.
		{"microsecond", config.MicrosecondPrecision(), p2(20, 30, 36, 42, 47, 50)},
		{"1s [1]", mk(config.AboutOneSecond, mustLB(t, 1)), p2(31)},
		{"1s [2 1]", mk(config.AboutOneSecond, mustLB(t, 2, 1)), p2(32, 33)},
		{"1s 32 ones", mk(config.AboutOneSecond, mustLB(t, slices.Repeat([]int{1}, 32)...)), p2(thirtyTwoOnes...)},
		// Extended [10 10 10] is trimmed to 32 bits at 2^30: [10 10 10 1 1].
		{"1s extended [10 10 10]", mk(config.AboutOneSecond, ext), p2(40, 50, 60, 61, 62)},
		{"1ns default", def(config.OneNanosecond), p2(11, 21, 31, 41, 51, 61, 62)},
		{"1us default", def(config.AboutOneMicrosecond), p2(21, 31, 41, 51, 61, 62)},
		{"1day default", def(config.AboutOneDay), p2(57, 62)},
		{"2^61 [1]", def(config.MaxPrecisionLog2), p2(62)},
	}
	for _, tc := range tests {
		if got := tc.c.Durations(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Durations() = %v, want %v", tc.name, got, tc.want)
		}
	}
	// The cap: 2^62-1 ns is 53375 days 23h53m38.427387903s.
	if capped != 53375*24*time.Hour+23*time.Hour+53*time.Minute+38*time.Second+427387903 {
		t.Fatal("the cap is not 2^62-1 ns")
	}
}

func TestConfigString(t *testing.T) {
	c, err := config.New(config.AboutOneMicrosecond)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "precision 2^10 ns (1.024µs), level bits [11 10 10 10 10 1]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	c, err = config.New(config.AboutOneSecond, config.WithCapacity(7), config.WithOverflow())
	if err != nil {
		t.Fatal(err)
	}
	s := c.String()
	for _, m := range []string{"2^30 ns", "[11 10 10 1]", "capacity 7", "overflow"} {
		if !strings.Contains(s, m) {
			t.Errorf("String() = %q, missing %q", s, m)
		}
	}
}

func TestZeroConfigInvalid(t *testing.T) {
	invtest.Expect(t, config.Config{}.Invariant(), "CF2")
}

// PrecisionFor is the largest power of two nanoseconds <= d, capped at
// 2^61 ns, and 0 for d <= 0; NewFromDuration makes a config of that
// precision, and rejects d <= 0 as New rejects a bad exponent.
func TestPrecisionForAndNewFromDuration(t *testing.T) {
	tests := []struct {
		d, want time.Duration
	}{
		{1, 1}, {2, 2}, {3, 2}, {1023, 512}, {1024, 1024},
		{time.Microsecond, 512}, {time.Millisecond, 524_288}, {time.Second, 536_870_912},
		{1 << 61, 1 << 61}, {1<<62 - 1, 1 << 61}, {1 << 62, 1 << 61}, {1<<63 - 1, 1 << 61},
	}
	for _, tc := range tests {
		if got := config.PrecisionFor(tc.d); got != tc.want {
			t.Errorf("PrecisionFor(%d) = %d, want %d", tc.d, got, tc.want)
		}
		c, err := config.NewFromDuration(tc.d, config.WithCapacity(3))
		if err != nil || c.AlarmPrecision() != tc.want || c.Capacity() != 3 || c.Invariant() != nil {
			t.Errorf("NewFromDuration(%d) = %v, %v; want precision %d, capacity 3", tc.d, c, err, tc.want)
		}
	}
	for _, d := range []time.Duration{0, -1, -time.Hour, -1 << 63} {
		if got := config.PrecisionFor(d); got != 0 {
			t.Errorf("PrecisionFor(%d) = %d, want 0", d, got)
		}
		if _, err := config.NewFromDuration(d); !errors.Is(err, config.ErrNonPositivePrecision) ||
			!strings.Contains(err.Error(), d.String()) {
			t.Errorf("NewFromDuration(%d): %v, want ErrNonPositivePrecision naming the value", d, err)
		}
	}
	if _, err := config.NewFromDuration(time.Millisecond, config.WithCapacity(-1)); !errors.Is(err, config.ErrCapacityOutOfRange) {
		t.Errorf("NewFromDuration with capacity -1: %v, want ErrCapacityOutOfRange", err)
	}
}

// NewFromDuration passes its options to New: a nil one is an error there
// too, after the precision's own check.
func TestNewFromDurationNilOption(t *testing.T) {
	_, err := config.NewFromDuration(time.Millisecond, config.WithOverflow(), nil)
	if !errors.Is(err, config.ErrInvalidOption) || !strings.Contains(err.Error(), "opts[1]") {
		t.Errorf("NewFromDuration with a nil option: %v, want ErrInvalidOption naming opts[1]", err)
	}
	if _, err := config.NewFromDuration(0, nil); !errors.Is(err, config.ErrNonPositivePrecision) {
		t.Errorf("NewFromDuration(0, nil): %v, want ErrNonPositivePrecision", err)
	}
}
