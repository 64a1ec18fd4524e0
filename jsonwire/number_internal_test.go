package jsonwire

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestNormNumber checks that the match form of a number depends on its value
// only.
func TestNormNumber(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		in, want string
	}{
		{"0", "0"},
		{"-0", "0"},
		{"0.000", "0"},
		{"-0e10", "0"},
		{"1", "0.1e1"},
		{"1.0", "0.1e1"},
		{"1e0", "0.1e1"},
		{"10e-1", "0.1e1"},
		{"0.1E1", "0.1e1"},
		{"100", "0.1e3"},
		{"-2.50", "-0.25e1"},
		{"0.00123", "0.123e-2"},
		{"123.456e+2", "0.123456e5"},
		{"1e-999999999999999999999", "0.1e-999999999999999"},
		{"1e0000000000000000000001", "0.1e2"},
	}
	for _, tc := range testCases {
		if got := string(appendNormNumber(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("appendNormNumber(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestNormNumberAgreesWithValue compares the match forms of random numbers
// with exact rational arithmetic: equal forms exactly when equal values.
func TestNormNumberAgreesWithValue(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	spell := func() string {
		s := ""
		if rng.IntN(3) == 0 {
			s = "-"
		}
		n := rng.IntN(3)
		if rng.IntN(2) == 0 {
			s += "0"
		} else {
			s += strconv.Itoa(rng.IntN(3) + 1)
			for range n {
				s += strconv.Itoa(rng.IntN(2) * rng.IntN(10))
			}
		}
		if rng.IntN(2) == 0 {
			s += "."
			for range rng.IntN(3) + 1 {
				s += strconv.Itoa(rng.IntN(2) * rng.IntN(10))
			}
		}
		if rng.IntN(2) == 0 {
			s += []string{"e", "E", "e+", "e-"}[rng.IntN(4)] + strconv.Itoa(rng.IntN(3))
		}
		return s
	}
	for range 20000 {
		a, b := spell(), spell()
		ra, ok1 := new(big.Rat).SetString(a)
		rb, ok2 := new(big.Rat).SetString(b)
		if !ok1 || !ok2 {
			t.Fatalf("test generated a bad number: %s %s", a, b)
		}
		fa, fb := string(appendNormNumber(nil, []byte(a))), string(appendNormNumber(nil, []byte(b)))
		if (fa == fb) != (ra.Cmp(rb) == 0) {
			t.Errorf("%s → %s and %s → %s disagree with their values", a, fa, b, fb)
		}
	}
}
