package levelbits_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gotimingwheel/timingwheel/internal/invtest"
	"github.com/gotimingwheel/timingwheel/levelbits"
)

func TestMaxNumBits(t *testing.T) {
	if levelbits.MaxNumBits != 62 {
		t.Fatalf("MaxNumBits = %d, want 62", levelbits.MaxNumBits)
	}
}

// seq returns [from, from+1, ..., to].
func seq(from, to int) []int {
	var s []int
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		bits []int
		want error
		// substrings the message must contain: the input and the limit
		msg []string
	}{
		{"empty", nil, levelbits.ErrNoLevels, []string{"[]"}},
		{"empty slice", []int{}, levelbits.ErrNoLevels, []string{"[]"}},
		{"zero", []int{0}, levelbits.ErrNonPositiveBits, []string{"[0]", ">= 1"}},
		{"negative", []int{-1}, levelbits.ErrNonPositiveBits, []string{"[-1]", ">= 1"}},
		{"zero in the middle", []int{2, 0, 1}, levelbits.ErrNonPositiveBits, []string{"[2 0 1]", "level 1"}},
		{"zero last", []int{11, 10, -3}, levelbits.ErrNonPositiveBits, []string{"[11 10 -3]", "level 2"}},
		{"63 in one level", []int{63}, levelbits.ErrTooManyBits, []string{"[63]", "62"}},
		{"63 over two levels", []int{31, 32}, levelbits.ErrTooManyBits, []string{"[31 32]", "62"}},
		{"default plus one", []int{11, 10, 10, 10, 10, 10, 2}, levelbits.ErrTooManyBits, []string{"62"}},
		{"huge values do not overflow", []int{math.MaxInt, math.MaxInt}, levelbits.ErrTooManyBits, []string{"62"}},
		{"huge after a valid prefix", []int{61, math.MaxInt}, levelbits.ErrTooManyBits, []string{"62"}},
		// ErrNonPositiveBits is checked before the total: these inputs are
		// both too many bits and have a non-positive level.
		{"0..62: non-positive first", seq(0, 62), levelbits.ErrNonPositiveBits, []string{"level 0"}},
		{"too many then zero", []int{63, 0}, levelbits.ErrNonPositiveBits, []string{"level 1"}},
		{"full then negative", []int{62, -1}, levelbits.ErrNonPositiveBits, []string{"level 1"}},
	}
	sentinels := []error{levelbits.ErrNoLevels, levelbits.ErrNonPositiveBits, levelbits.ErrTooManyBits}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for name, f := range map[string]func(...int) (levelbits.LevelBits, error){
				"New": levelbits.New, "NewExtended": levelbits.NewExtended,
			} {
				lb, err := f(tc.bits...)
				if !errors.Is(err, tc.want) {
					t.Fatalf("%s(%v) error = %v, want %v", name, tc.bits, err, tc.want)
				}
				for _, s := range sentinels {
					if s != tc.want && errors.Is(err, s) {
						t.Errorf("%s(%v) error %v also matches %v", name, tc.bits, err, s)
					}
				}
				for _, m := range tc.msg {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("%s(%v) error %q does not mention %q", name, tc.bits, err, m)
					}
				}
				if lb.Len() != 0 {
					t.Errorf("%s(%v) returned %v with the error, want the zero value", name, tc.bits, lb)
				}
			}
		})
	}
}

func TestNewValid(t *testing.T) {
	tests := []struct {
		bits    []int
		numBits int
		str     string
	}{
		{[]int{1}, 1, "[1]"},
		{[]int{1, 1}, 2, "[1 1]"},
		{[]int{1, 2, 3}, 6, "[1 2 3]"},
		{[]int{62}, 62, "[62]"},
		{[]int{31, 31}, 62, "[31 31]"},
		{[]int{10, 10, 6, 6, 5, 3}, 40, "[10 10 6 6 5 3]"},
		{[]int{11, 10, 10, 10, 10, 10, 1}, 62, "[11 10 10 10 10 10 1]"},
	}
	for _, tc := range tests {
		lb, err := levelbits.New(tc.bits...)
		if err != nil {
			t.Fatalf("New(%v): %v", tc.bits, err)
		}
		if got := lb.Bits(); !slices.Equal(got, tc.bits) {
			t.Errorf("New(%v).Bits() = %v", tc.bits, got)
		}
		if got := lb.NumBits(); got != tc.numBits {
			t.Errorf("New(%v).NumBits() = %d, want %d", tc.bits, got, tc.numBits)
		}
		if got := lb.Len(); got != len(tc.bits) {
			t.Errorf("New(%v).Len() = %d, want %d", tc.bits, got, len(tc.bits))
		}
		for i, b := range tc.bits {
			if lb.At(i) != b {
				t.Errorf("New(%v).At(%d) = %d, want %d", tc.bits, i, lb.At(i), b)
			}
		}
		if got := lb.String(); got != tc.str {
			t.Errorf("New(%v).String() = %q, want %q", tc.bits, got, tc.str)
		}
		if err := lb.Invariant(); err != nil {
			t.Errorf("New(%v).Invariant() = %v", tc.bits, err)
		}
	}
}

// New copies its input and Bits returns a copy: a LevelBits cannot be
// changed from outside.
func TestImmutable(t *testing.T) {
	in := []int{3, 2, 1}
	lb, err := levelbits.New(in...)
	if err != nil {
		t.Fatal(err)
	}
	in[0] = 0
	out := lb.Bits()
	out[1] = -5
	if got := lb.Bits(); !slices.Equal(got, []int{3, 2, 1}) {
		t.Fatalf("Bits() = %v after changing the input and a returned copy, want [3 2 1]", got)
	}
	if err := lb.Invariant(); err != nil {
		t.Fatal(err)
	}
	d := levelbits.Default()
	d.Bits()[0] = 1
	if got := levelbits.Default().Bits(); got[0] != 11 {
		t.Fatalf("Default changed through Bits(): %v", got)
	}
}

func TestNewExtended(t *testing.T) {
	ones := func(n int) []int { return slices.Repeat([]int{1}, n) }
	tests := []struct {
		in, want []int
	}{
		{[]int{1}, ones(62)},
		{[]int{10, 10, 10}, append([]int{10, 10, 10}, ones(32)...)},
		{[]int{60}, []int{60, 1, 1}},
		{[]int{61}, []int{61, 1}},
		{[]int{62}, []int{62}},
		{[]int{11, 10, 10, 10, 10, 10, 1}, []int{11, 10, 10, 10, 10, 10, 1}},
	}
	for _, tc := range tests {
		lb, err := levelbits.NewExtended(tc.in...)
		if err != nil {
			t.Fatalf("NewExtended(%v): %v", tc.in, err)
		}
		if got := lb.Bits(); !slices.Equal(got, tc.want) {
			t.Errorf("NewExtended(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if lb.NumBits() != levelbits.MaxNumBits {
			t.Errorf("NewExtended(%v).NumBits() = %d, want 62", tc.in, lb.NumBits())
		}
		if err := lb.Invariant(); err != nil {
			t.Errorf("NewExtended(%v).Invariant() = %v", tc.in, err)
		}
	}
}

func TestDefault(t *testing.T) {
	d := levelbits.Default()
	if got, want := d.Bits(), []int{11, 10, 10, 10, 10, 10, 1}; !slices.Equal(got, want) {
		t.Fatalf("Default() = %v, want %v", got, want)
	}
	if d.NumBits() != 62 || d.Len() != 7 {
		t.Fatalf("Default(): NumBits %d, Len %d, want 62 and 7", d.NumBits(), d.Len())
	}
	if got := d.String(); got != "[11 10 10 10 10 10 1]" {
		t.Fatalf("Default().String() = %q", got)
	}
	if err := d.Invariant(); err != nil {
		t.Fatal(err)
	}
}

func TestTrim(t *testing.T) {
	lb := func(bits ...int) levelbits.LevelBits {
		l, err := levelbits.New(bits...)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	def := levelbits.Default()
	tests := []struct {
		in   levelbits.LevelBits
		max  int
		want []int
	}{
		// The trims config.New applies for the standard precisions: 62 - A.
		{def, 62, []int{11, 10, 10, 10, 10, 10, 1}},
		{def, 52, []int{11, 10, 10, 10, 10, 1}},
		{def, 42, []int{11, 10, 10, 10, 1}},
		{def, 32, []int{11, 10, 10, 1}},
		{def, 16, []int{11, 5}},
		{def, 1, []int{1}},
		// Boundaries: exactly at a level's end, one past it, above the sum.
		{def, 11, []int{11}},
		{def, 12, []int{11, 1}},
		{def, 21, []int{11, 10}},
		{def, 61, []int{11, 10, 10, 10, 10, 10}},
		{def, 100, []int{11, 10, 10, 10, 10, 10, 1}},
		{lb(3, 1), 4, []int{3, 1}},
		{lb(3, 1), 3, []int{3}},
		{lb(3, 1), 2, []int{2}},
		{lb(1), 62, []int{1}},
	}
	for _, tc := range tests {
		got := tc.in.Trim(tc.max)
		if !slices.Equal(got.Bits(), tc.want) {
			t.Errorf("%v.Trim(%d) = %v, want %v", tc.in, tc.max, got, tc.want)
		}
		if err := got.Invariant(); err != nil {
			t.Errorf("%v.Trim(%d).Invariant() = %v", tc.in, tc.max, err)
		}
	}
	// Trim does not change its receiver.
	_ = def.Trim(16)
	if def.NumBits() != 62 {
		t.Fatalf("Trim changed its receiver: %v", def)
	}
	// Nothing to keep: the result has no levels and is invalid.
	for _, max := range []int{0, -1} {
		got := def.Trim(max)
		if got.Len() != 0 {
			t.Errorf("Trim(%d) = %v, want no levels", max, got)
		}
		invtest.Expect(t, got.Invariant(), "LB1")
	}
}

func TestEqual(t *testing.T) {
	a, _ := levelbits.New(11, 10, 10, 10, 10, 10, 1)
	if !a.Equal(levelbits.Default()) {
		t.Fatal("New(default bits) not Equal to Default()")
	}
	b, _ := levelbits.New(11, 10, 10, 10, 10, 10)
	c, _ := levelbits.New(11, 10, 10, 10, 10, 9, 2)
	for _, x := range []levelbits.LevelBits{b, c, {}} {
		if a.Equal(x) || x.Equal(a) {
			t.Errorf("%v Equal %v", a, x)
		}
	}
}

func TestZeroValue(t *testing.T) {
	var z levelbits.LevelBits
	if z.String() != "[]" || z.NumBits() != 0 || z.Len() != 0 || len(z.Bits()) != 0 {
		t.Fatalf("zero LevelBits: %q, NumBits %d, Len %d", z.String(), z.NumBits(), z.Len())
	}
	invtest.Expect(t, z.Invariant(), "LB1")
}
