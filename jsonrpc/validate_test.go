package jsonrpc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// refCheckJSON is the two-pass check checkJSON replaced: json.Valid, then a
// depth count outside strings.
func refCheckJSON(data []byte, maxDepth int) error {
	if len(data) == 0 {
		return errEmptyBody
	}
	if !json.Valid(data) {
		return errInvalid
	}
	depth, inStr := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			if depth++; depth > maxDepth {
				return errTooDeep
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

// checkSeeds are bodies on which checkJSON must agree with refCheckJSON.
var checkSeeds = []string{
	``, ` `, `{}`, `[]`, `[`, `]`, `{`, `}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1,]`, `[,1]`,
	`[1 2]`, `"`, `"abc`, `"a\"b"`, `"\u00e9"`, `"\u00g9"`, `"\u00e"`, `"\x"`, "\"\t\"", "\"\xff\"",
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e5.5`, `-a`, `+1`, `123456789012345678901234567890`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `[true,false,null]`, ` {"a" : [ 1 , { } ] } `, `{}{}`, `[] x`,
	`{"a":{"b":{"c":[[[]]]}}}`, `[[[[[[[[[`, `[[[[1]]]]`, `[[[[1]]]`, `[[[[1]]]]]`, `{"a":[}`, `["[","{"]`,
	`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`,
	`[{"jsonrpc":"2.0","id":"a","method":"m"},1,{"id":1.5}]`, "\ufeff{}", "{}\x00", "[1,\n2]",
	`["\\"]`, `["\\\""]`, `"\/"`, `"\b\f\n\r\t"`, `{"a":"b",}`, `{,}`, `[-]`, `[0.e1]`, `[1e+-1]`,
}

func TestCheckJSONAgreesWithTwoPasses(t *testing.T) {
	t.Parallel()
	for _, s := range checkSeeds {
		for _, depth := range []int{1, 3, DefaultMaxDepth} {
			if got, want := checkJSON([]byte(s), depth), refCheckJSON([]byte(s), depth); !errors.Is(got, want) && got != want {
				t.Errorf("checkJSON(%q, %d) = %v; want %v", s, depth, got, want)
			}
		}
	}
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	for _, depth := range []int{199, 200, 201, 1000} {
		if got, want := checkJSON([]byte(deep), depth), refCheckJSON([]byte(deep), depth); got != want {
			t.Errorf("200 nested arrays, max depth %d: %v; want %v", depth, got, want)
		}
	}
	if got := checkJSON([]byte(deep[:300]), 10); got != errInvalid {
		t.Errorf("unclosed and too deep: %v; want %v", got, errInvalid)
	}
}

func FuzzCheckJSON(f *testing.F) {
	for _, s := range checkSeeds {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth uint8) {
		d := int(depth%80) + 1
		if got, want := checkJSON(data, d), refCheckJSON(data, d); got != want {
			t.Fatalf("checkJSON(%q, %d) = %v; want %v", data, d, got, want)
		}
	})
}
