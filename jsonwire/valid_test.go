package jsonwire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/jsonwire"
)

// validSeeds are inputs every check of the lexer starts from (also the fuzz
// seeds): valid and invalid JSON of every kind.
var validSeeds = []string{
	``, ` `, `{}`, `[]`, `[`, `]`, `{`, `}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1,]`, `[,1]`,
	`[1 2]`, `"`, `"abc`, `"a\"b"`, `"\u00e9"`, `"\u00g9"`, `"\u00e"`, `"\x"`, "\"\t\"", "\"\xff\"",
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e5.5`, `-a`, `+1`, `123456789012345678901234567890`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `[true,false,null]`, ` {"a" : [ 1 , { } ] } `, `{}{}`, `[] x`,
	`{"a":{"b":{"c":[[[]]]}}}`, `[[[[[[[[[`, `[[[[1]]]]`, `[[[[1]]]`, `[[[[1]]]]]`, `{"a":[}`, `["[","{"]`,
	`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`,
	`[{"jsonrpc":"2.0","id":"a","method":"m"},1,{"id":1.5}]`, "\ufeff{}", "{}\x00", "[1,\n2]",
	`["\\"]`, `["\\\""]`, `"\/"`, `"\b\f\n\r\t"`, `{"a":"b",}`, `{,}`, `[-]`, `[0.e1]`, `[1e+-1]`,
	`["\ud800"]`, `["\udfff"]`, `["\ufffd"]`, `["\ud83d\ude00"]`, `["\ud83d\ud83d\ude00"]`, "[\"\xed\xa0\x80\"]",
	"\"\x7f\"", "\"\u2028\"", `{"a":1,"a":2}`, `{"b":[{"y":1,"x":2}],"a":null}`,
}

// wantValid is the oracle's verdict on data at maxDepth: nil, ErrTooDeep
// or ErrInvalid, from encoding/json and a bracket count.
func wantValid(data []byte, maxDepth int) error {
	switch {
	case tooDeepFirst(data, maxDepth):
		return jsonwire.ErrTooDeep
	case json.Valid(data) && depthOf(data) <= maxDepth:
		return nil
	}
	return jsonwire.ErrInvalid
}

func TestValidSeeds(t *testing.T) {
	t.Parallel()
	for _, s := range validSeeds {
		for _, depth := range []int{1, 3, 64, 10000} {
			checkValid(t, []byte(s), depth)
		}
	}
}

// TestValidDepth checks the depth limit at its edges and far past them:
// too deep wins over whatever follows, and loses to an error before it.
func TestValidDepth(t *testing.T) {
	t.Parallel()
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	testCases := []struct {
		name  string
		in    string
		depth int
		want  error
	}{
		{"at the limit", nested(64), 64, nil},
		{"one above", nested(65), 64, jsonwire.ErrTooDeep},
		{"two above", nested(66), 64, jsonwire.ErrTooDeep},
		{"objects one above", strings.Repeat(`{"a":`, 65) + "1" + strings.Repeat("}", 65), 64, jsonwire.ErrTooDeep},
		{"objects at the limit", strings.Repeat(`{"a":`, 64) + "1" + strings.Repeat("}", 64), 64, nil},
		{"ten thousand and one", nested(10001), 64, jsonwire.ErrTooDeep},
		{"a hundred thousand", nested(100_000), 64, jsonwire.ErrTooDeep},
		{"a million, never closed", strings.Repeat("[", 1_000_000), 64, jsonwire.ErrTooDeep},
		{"too deep, then garbage", nested(65)[:65] + "x", 64, jsonwire.ErrTooDeep},
		{"garbage, then too deep", "[x" + nested(100), 64, jsonwire.ErrInvalid},
		{"beyond the stack's array", nested(5000), 5000, nil},
		{"beyond the stack's array, too deep", nested(5001), 5000, jsonwire.ErrTooDeep},
		{"scalar at depth 0", `"x"`, 0, nil},
		{"container at depth 0", `[]`, 0, jsonwire.ErrTooDeep},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := jsonwire.Valid([]byte(tc.in), tc.depth)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Valid = %v, want %v", err, tc.want)
			}
			if errors.Is(err, jsonwire.ErrTooDeep) && errors.Is(err, jsonwire.ErrInvalid) {
				t.Fatalf("%v is both too deep and invalid", err)
			}
		})
	}
	// encoding/json's own limit is 10000 levels: up to it the two agree;
	// past it encoding/json calls the input invalid, jsonwire too deep.
	if err := jsonwire.Valid([]byte(nested(10000)), 10000); err != nil || !json.Valid([]byte(nested(10000))) {
		t.Errorf("10000 levels: %v", err)
	}
	if err := jsonwire.Valid([]byte(nested(10001)), 10000); !errors.Is(err, jsonwire.ErrTooDeep) || json.Valid([]byte(nested(10001))) {
		t.Errorf("10001 levels: %v", err)
	}
}

// checkValid compares Valid, Skip and an Iter over data with the oracle.
func checkValid(t *testing.T, data []byte, maxDepth int) {
	t.Helper()
	want := wantValid(data, maxDepth)
	err := jsonwire.Valid(data, maxDepth)
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("Valid(%.300q, %d) = %v, want %v", data, maxDepth, err, want)
	}
	var e *jsonwire.Error
	if err != nil && (!errors.As(err, &e) || e.Offset < 0 || e.Offset > len(data)) {
		t.Fatalf("Valid(%.300q, %d): error %#v is not an *Error with an offset in the input", data, maxDepth, err)
	}
	if json.Valid(data) && want == nil {
		// Skip stops right after the value; an Iter over a container
		// reads it the same way.
		end, err := jsonwire.Skip(data, 0, maxDepth)
		if err != nil || len(bytes.TrimRight(data[:end], " \t\r\n")) != len(bytes.TrimRight(data, " \t\r\n")) {
			t.Fatalf("Skip(%q) = %d, %v", data, end, err)
		}
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') {
			it := jsonwire.Elements(data, 0, maxDepth)
			if trimmed[0] == '{' {
				it = jsonwire.Members(data, 0, maxDepth)
			}
			for it.Next() {
				if v := it.Value(); v == nil || !json.Valid(v) {
					t.Fatalf("Iter over %q: value %q", data, v)
				}
			}
			if it.Err() != nil || it.End() != end {
				t.Fatalf("Iter over %q: end %d, error %v; Skip ends at %d", data, it.End(), it.Err(), end)
			}
		}
	}
}

// FuzzValid is the differential test of the lexer: on arbitrary input at
// any depth limit, Valid agrees with encoding/json's Valid (and a bracket
// count for the depth), and Skip and Iter read valid input to its end.
func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth uint8) {
		checkValid(t, data, int(depth%80)+1)
		checkValid(t, data, 10000)
	})
}
