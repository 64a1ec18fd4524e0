package jsonwire_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/jsonwire"
)

// TestAppendCanonical checks the canonical form byte for byte.
func TestAppendCanonical(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, in, want string
	}{
		{"number", `1`, `1`},
		{"number text kept", ` -0.5e+10 `, `-0.5e+10`},
		{"1.0 is not 1", `1.0`, `1.0`},
		{"true", `true`, `true`},
		{"false", `false`, `false`},
		{"null", `null`, `null`},
		{"empty string", `""`, `""`},
		{"plain string", `"plain"`, `"plain"`},
		{"escapes decoded", `"\u0041\n\t\"\\\/"`, `"A\n\t\"\\/"`},
		{"controls and HTML", `"\u001f\u007f<>&"`, `"\u001f` + "\x7f" + `<>&"`},
		{"short escapes for controls", `"\u0008\u000C\u000a\u000D\u0009"`, `"\b\f\n\r\t"`},
		{"surrogate pair", `"\ud83d\ude00"`, `"😀"`},
		{"upper-case hex", `"\u00C9\uD83D\uDE00"`, `"É😀"`},
		{"lone high surrogate kept", `"\ud800"`, `"\ud800"`},
		{"lone low surrogate kept", `"\udfff"`, `"\udfff"`},
		{"lone surrogate lower-cased", `"\uD800x"`, `"\ud800x"`},
		{"lone then pair", `"\ud83d\ud83d\ude00"`, `"\ud83d😀"`},
		{"U+FFFD", `"\ufffd"`, `"` + "\uFFFD" + `"`},
		{"invalid UTF-8 kept", "\"bad \xff utf8\"", "\"bad \xff utf8\""},
		{"invalid UTF-8 kept beside escapes", "\"\\u0041\xff\"", "\"A\xff\""},
		{"U+2028 raw", `"\u2028"`, "\"\u2028\""},
		{"empty array", `[]`, `[]`},
		{"spaced array", `[ ]`, `[]`},
		{"empty object", `{}`, `{}`},
		{"spaced object", `{ }`, `{}`},
		{"nested arrays", `[1, [2, [3, []]], {}]`, `[1,[2,[3,[]]],{}]`},
		{"whitespace everywhere", " \t\r\n{ \"b\" : [ 1 , 2 ] ,\n\"a\":{ } } ", `{"a":{},"b":[1,2]}`},
		{"key order", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"key order at every level", `{"b":{"z":[{"y":1,"x":2}],"a":null},"a":[]}`, `{"a":[],"b":{"a":null,"z":[{"x":2,"y":1}]}}`},
		{"duplicates in order", `{"a":1,"a":2}`, `{"a":1,"a":2}`},
		{"duplicates in order, reversed", `{"a":2,"a":1}`, `{"a":2,"a":1}`},
		{"duplicates keep their order when sorted", `{"b":1,"a":1,"b":0}`, `{"a":1,"b":1,"b":0}`},
		{"UTF-8 byte order", `{"é":1,"z":2,"A":3}`, `{"A":3,"z":2,"é":1}`},
		{"escaped key", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
		{"escaped key kept lone", `{"\udc00":1,"a":2}`, `{"\\udc00":1,"a":2}`},
		{"ten keys", `{"k1":1,"k0":0,"k3":3,"k2":2,"k5":5,"k4":4,"k7":7,"k6":6,"k9":9,"k8":8}`, `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := strings.ReplaceAll(tc.want, `\\udc00`, `\udc00`)
			got, err := jsonwire.AppendCanonical([]byte("prefix:"), []byte(tc.in))
			if err != nil {
				t.Fatalf("AppendCanonical(%s): %v", tc.in, err)
			}
			if string(got) != "prefix:"+want {
				t.Fatalf("AppendCanonical(%s) = %s, want prefix:%s", tc.in, got, want)
			}
			again, err := jsonwire.AppendCanonical(nil, got[len("prefix:"):])
			if err != nil || string(again) != want {
				t.Fatalf("canonical form of %s is not stable: %s, %v", want, again, err)
			}
		})
	}
}

// TestCanonicalSameValue checks pairs of spellings: one key exactly when
// they mean the same for routing and caching.
func TestCanonicalSameValue(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name string
		a, b string
		same bool
	}{
		{"\\u0041 and A", `["\u0041"]`, `["A"]`, true},
		{"\\/ and /", `["\/trending"]`, `["/trending"]`, true},
		{"escaped and raw é", `["\u00e9"]`, `["é"]`, true},
		{"escaped and raw emoji", `["\ud83d\ude00"]`, `["😀"]`, true},
		{"escaped and raw U+FFFD", `["\ufffd"]`, "[\"\uFFFD\"]", true},
		{"whitespace", `[ 1 ]`, "\n[1]\t", true},
		{"key order", `{"permlink":"p","author":"a"}`, `{"author":"a","permlink":"p"}`, true},
		{"escaped key", `{"\u0061uthor":"a"}`, `{"author":"a"}`, true},
		{"duplicates among others", `{"b":0,"a":1,"a":2}`, `{"a":1,"b":0,"a":2}`, true},
		{"lone high and lone low", `["\ud800"]`, `["\udfff"]`, false},
		{"lone high and U+FFFD", `["\ud800"]`, `["\ufffd"]`, false},
		{"lone low and U+FFFD", `["\udfff"]`, `["\ufffd"]`, false},
		{"invalid byte and U+FFFD", "[\"\xff\"]", `["\ufffd"]`, false},
		{"invalid byte and raw U+FFFD", "[\"\xff\"]", "[\"\uFFFD\"]", false},
		{"two invalid bytes", "[\"\xff\"]", "[\"\xfe\"]", false},
		{"CESU-8 surrogate bytes and escaped surrogate", "[\"\xed\xa0\x80\"]", `["\ud800"]`, false},
		{"duplicates swapped", `{"a":1,"a":2}`, `{"a":2,"a":1}`, false},
		{"1 and 1.0", `[1]`, `[1.0]`, false},
		{"1 and 1e0", `[1]`, `[1e0]`, false},
		{"array order", `[["a","b"]]`, `[["b","a"]]`, false},
		{"empty list and object", `{}`, `[]`, false},
		{"null and empty", `null`, `[]`, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := jsonwire.AppendCanonical(nil, []byte(tc.a))
			if err != nil {
				t.Fatal(err)
			}
			b, err := jsonwire.AppendCanonical(nil, []byte(tc.b))
			if err != nil {
				t.Fatal(err)
			}
			if (string(a) == string(b)) != tc.same {
				t.Errorf("%q → %q and %q → %q: same = %v, want %v", tc.a, a, tc.b, b, string(a) == string(b), tc.same)
			}
			checkCanonicalPair(t, []byte(tc.a), []byte(tc.b))
		})
	}
}

// TestAppendCanonicalErrors checks that invalid JSON is refused, and that
// too deep is told apart.
func TestAppendCanonicalErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		``, ` `, `[`, `]`, `{`, `}`, `[1,]`, `[,1]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{a:1}`, `{"a" 1}`, `[1 2]`,
		`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`, `Infinity`, `tru`, `nul`, `falsey`,
		`"unterminated`, `"bad \x escape"`, `"\u12"`, "\"tab\there\"", `"\`, `1 2`, `[1] x`, `{"a":1}}`,
		`{"a":1 "b":2}`, `{"a":01}`,
	} {
		got, err := jsonwire.AppendCanonical(nil, []byte(in))
		if !errors.Is(err, jsonwire.ErrInvalid) {
			t.Errorf("AppendCanonical(%q) = %s, %v; want an invalid-JSON error", in, got, err)
		}
	}
	for _, in := range []string{
		strings.Repeat("[", jsonwire.MaxDepth+1) + strings.Repeat("]", jsonwire.MaxDepth+1),
		strings.Repeat(`{"a":`, jsonwire.MaxDepth+1) + "1" + strings.Repeat("}", jsonwire.MaxDepth+1),
		strings.Repeat("[", 200_000),
	} {
		if _, err := jsonwire.AppendCanonical(nil, []byte(in)); !errors.Is(err, jsonwire.ErrTooDeep) {
			t.Errorf("AppendCanonical(%.20s… %d bytes): %v; want too deep", in, len(in), err)
		}
	}
	deep := strings.Repeat("[", jsonwire.MaxDepth) + strings.Repeat("]", jsonwire.MaxDepth)
	if _, err := jsonwire.AppendCanonical(nil, []byte(deep)); err != nil {
		t.Errorf("%d levels: %v", jsonwire.MaxDepth, err)
	}
}

// canonicalOf is AppendCanonical for the oracle checks: ok is false when
// the input is not valid JSON within MaxDepth (then AppendCanonical must
// have said why, in agreement with Valid).
func canonicalOf(t *testing.T, data []byte) ([]byte, bool) {
	t.Helper()
	got, err := jsonwire.AppendCanonical(nil, data)
	if verr := jsonwire.Valid(data, jsonwire.MaxDepth); (err == nil) != (verr == nil) || errors.Is(err, jsonwire.ErrTooDeep) != errors.Is(verr, jsonwire.ErrTooDeep) {
		t.Fatalf("AppendCanonical(%.300q): %v; Valid: %v", data, err, verr)
	}
	return got, err == nil
}

// checkCanonical checks one input against the oracle: its canonical form is
// valid, means the same value, and is its own canonical form.
func checkCanonical(t *testing.T, data []byte) {
	t.Helper()
	canon, ok := canonicalOf(t, data)
	if !ok {
		return
	}
	if !json.Valid(canon) {
		t.Fatalf("canonical form %q of %q is not JSON", canon, data)
	}
	a, err := decodeTree(data)
	if err != nil {
		t.Fatalf("oracle cannot read %q: %v", data, err)
	}
	b, err := decodeTree(canon)
	if err != nil {
		t.Fatalf("oracle cannot read %q: %v", canon, err)
	}
	if identity(a) != identity(b) {
		t.Fatalf("canonical form %q means something else than %q", canon, data)
	}
	if again, _ := jsonwire.AppendCanonical(nil, canon); string(again) != string(canon) {
		t.Fatalf("canonical form %q is not stable: %q", canon, again)
	}
}

// checkCanonicalPair checks that two inputs share a canonical form exactly
// when the oracle says they are the same value.
func checkCanonicalPair(t *testing.T, a, b []byte) {
	t.Helper()
	ca, okA := canonicalOf(t, a)
	cb, okB := canonicalOf(t, b)
	if !okA || !okB {
		return
	}
	ta, errA := decodeTree(a)
	tb, errB := decodeTree(b)
	if errA != nil || errB != nil {
		t.Fatalf("oracle cannot read %q or %q: %v, %v", a, b, errA, errB)
	}
	same := identity(ta) == identity(tb)
	if (string(ca) == string(cb)) != same {
		t.Fatalf("%q → %q and %q → %q: same key = %v, same value = %v", a, ca, b, cb, string(ca) == string(cb), same)
	}
}

var canonicalSeeds = []string{
	`[1]`, `[1.0]`, `{"b":1,"a":[true,null,"x"]}`, `{"a":1,"a":2}`, `["\ud800"]`, `["\udfff"]`, `["\ufffd"]`,
	"[\"\xff\"]", `["\ud83d\ude00"]`, `{"\u0061":"\/"}`, `"\u001f\b"`, ` { "k" : [ { "y" : 1 , "x" : 2 } ] } `,
}

// FuzzCanonical is the differential test of the canonical form: two
// arbitrary inputs get one canonical form exactly when the oracle (package
// encoding/json and the string rule, oracle_test.go) calls them the same
// value, and each input's form means the input and is stable.
func FuzzCanonical(f *testing.F) {
	for i, a := range canonicalSeeds {
		f.Add([]byte(a), []byte(canonicalSeeds[(i+1)%len(canonicalSeeds)]))
		f.Add([]byte(a), []byte(a))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkCanonical(t, a)
		checkCanonical(t, b)
		checkCanonicalPair(t, a, b)
	})
}

// FuzzCanonicalRespell checks the other half on inputs that mean the same:
// a valid input and a random re-spelling of it (whitespace, member order,
// escapes) share one canonical form.
func FuzzCanonicalRespell(f *testing.F) {
	for i, s := range canonicalSeeds {
		f.Add([]byte(s), uint64(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		if jsonwire.Valid(data, jsonwire.MaxDepth) != nil || !json.Valid(data) {
			return
		}
		tree, err := decodeTree(data)
		if err != nil {
			t.Fatalf("oracle cannot read %q: %v", data, err)
		}
		other := respell(nil, tree, rand.New(rand.NewPCG(seed, 7)))
		if !json.Valid(other) {
			t.Fatalf("re-spelling %q of %q is not JSON", other, data)
		}
		a, _ := jsonwire.AppendCanonical(nil, data)
		b, err := jsonwire.AppendCanonical(nil, other)
		if err != nil || string(a) != string(b) {
			t.Fatalf("%q → %q, its re-spelling %q → %q, %v", data, a, other, b, err)
		}
		checkCanonicalPair(t, data, other)
	})
}
