package jsonwire_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hivegate/hivegate/jsonwire"
)

// TestMember checks member lookup: names compared exactly as decoded
// strings, the last duplicate wins, and the whole object is checked.
func TestMember(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, obj, member string
		want              string // "" = not found
		err               error
	}{
		{"found", `{"a":1,"block_id":"00ff"}`, "block_id", `"00ff"`, nil},
		{"escaped name", `{"bl\u006fck_id":"00ff"}`, "block_id", `"00ff"`, nil},
		{"last duplicate", `{"a":1,"a":[2]}`, "a", `[2]`, nil},
		{"nested is not top", `{"x":{"a":1}}`, "a", "", nil},
		{"in a string is not a member", `{"x":"\"a\":1"}`, "a", "", nil},
		{"lone surrogate is not U+FFFD", `{"\ud800":1}`, "\uFFFD", "", nil},
		{"whitespace", " { \"a\" :\n[ 1 ] } ", "a", `[ 1 ]`, nil},
		{"absent", `{}`, "a", "", nil},
		{"invalid after the member", `{"a":1,"b":tru}`, "a", "", jsonwire.ErrInvalid},
		{"not an object", `[1]`, "a", "", jsonwire.ErrInvalid},
		{"too deep", `{"a":[[1]]}`, "a", "", jsonwire.ErrTooDeep},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, found, err := jsonwire.Member([]byte(tc.obj), tc.member, 2)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || found != (tc.want != "") || string(v) != tc.want {
				t.Fatalf("Member = %q, %v, %v; want %q", v, found, err, tc.want)
			}
		})
	}
}

// TestIterNested walks nested values with SetValueEnd: the input is read
// once, and the outer Iter goes on after each inner one.
func TestIterNested(t *testing.T) {
	t.Parallel()
	data := []byte(`[ {"a": [1, 2]}, [], {"b": {}} , "s" ] tail`)
	var got []string
	outer := jsonwire.Elements(data, 0, 4)
	for outer.Next() {
		switch data[outer.Offset()] {
		case '{':
			inner := jsonwire.Members(data, outer.Offset(), outer.Depth())
			for inner.Next() {
				got = append(got, fmt.Sprintf("%s=%s", inner.Name(), inner.Value()))
			}
			if inner.Err() != nil {
				t.Fatal(inner.Err())
			}
			outer.SetValueEnd(inner.End())
		default:
			got = append(got, string(outer.Value()))
		}
	}
	if outer.Err() != nil || string(data[outer.End():]) != " tail" {
		t.Fatalf("end %d, error %v", outer.End(), outer.Err())
	}
	if want := `["a"=[1, 2] [] "b"={} "s"]`; fmt.Sprint(got) != want {
		t.Fatalf("got %s, want %s", fmt.Sprint(got), want)
	}
}

// TestIterErrors checks that an Iter stops at the first error.
func TestIterErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`[1,]`, `[1 2]`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `[`, `{`, `x`, `[1,[2,]]`} {
		it := jsonwire.Elements([]byte(in), 0, 8)
		if in[0] == '{' {
			it = jsonwire.Members([]byte(in), 0, 8)
		}
		n := 0
		for it.Next() {
			if n++; n > 10 {
				t.Fatalf("%s: no end", in)
			}
		}
		if !errors.Is(it.Err(), jsonwire.ErrInvalid) {
			t.Errorf("%s: error %v, want invalid", in, it.Err())
		}
		if it.Next() {
			t.Errorf("%s: Next after an error", in)
		}
	}
}
