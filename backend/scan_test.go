package backend

import (
	"encoding/json"
	"strings"
	"testing"
)

// validJSON reports whether b is exactly one JSON value with optional
// surrounding whitespace, by the pool's scanner.
func validJSON(b []byte) bool {
	i, err := skipValue(b, 0)
	return err == nil && skipSpace(b, i) == len(b)
}

// scanSeeds are inputs on which the scanner must agree with encoding/json.
var scanSeeds = []string{
	``, ` `, `{}`, `[]`, `[`, `]`, `{`, `}`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1,]`, `[,1]`,
	`[1 2]`, `"`, `"abc`, `"a\"b"`, `"\u00e9"`, `"\u00g9"`, `"\u00e"`, `"\x"`, "\"\t\"", "\"\xff\"",
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `1e5.5`, `-a`, `+1`, `123456789012345678901234567890`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `nulll`, `[true,false,null]`, ` {"a" : [ 1 , { "b" : null } ] } `,
	`{"a":{"b":{"c":{"d":[[[[[]]]]]}}}}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, `{"a":[}`, `[{]`,
	`1 2`, `{} {}`, "\u00a01", `"\/\\\b\f\n\r\t"`, `{"":""}`, `{"a":"b"}x`,
}

func TestSkipValueAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range scanSeeds {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid = %v", s, got, want)
		}
	}
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	if !validJSON([]byte(deep)) {
		t.Error("deeply nested array rejected")
	}
}

func TestSkipValueTruncation(t *testing.T) {
	t.Parallel()
	full := `{"a":[1,-2.5e3,"x\u00e9",true,false,null,{"b":{}}]}`
	for n := 0; n < len(full); n++ {
		_, err := skipValue([]byte(full[:n]), 0)
		if err != errTruncated {
			t.Errorf("prefix %q: err %v, want errTruncated", full[:n], err)
		}
	}
}

func FuzzSkipValue(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid = %v", b, got, want)
		}
	})
}
