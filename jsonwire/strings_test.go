package jsonwire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/hivegate/hivegate/jsonwire"
)

// rawUnits reads the code units of raw bytes as the package rule does:
// valid UTF-8 sequences as code points, other bytes as -1-b.
func rawUnits(s string) []int32 {
	lit := append(append([]byte{'"'}, s...), '"')
	// Control characters, quotes and backslashes are units like any
	// other here; units() reads raw bytes only between escapes.
	var out []int32
	for i := 1; i < len(lit)-1; {
		r, n := utf8.DecodeRune(lit[i : len(lit)-1])
		if r == utf8.RuneError && n == 1 {
			r = -1 - int32(lit[i])
		}
		out = append(out, r)
		i += n
	}
	return out
}

var stringSeeds = []string{
	`""`, `"plain"`, `"\u0041"`, `"\ud800"`, `"\udfff"`, `"\ufffd"`, `"\ud83d\ude00"`, `"\ud83d\ud83d\ude00"`,
	`"\ud800\u0041"`, "\"\xff\"", "\"\xed\xa0\x80\"", `"a\"b\\c\/d\b\f\n\r\t"`, "\"é\\u00e9\"", `"\uDBFF\uDFFF"`,
}

// FuzzStrings checks the string functions on every valid string literal:
// AppendUnquote and Unquote agree with encoding/json (U+FFFD for lone
// surrogates and invalid bytes), EqualString is exact code-unit equality,
// and AppendString writes what encoding/json reads back as the same text.
func FuzzStrings(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add([]byte(s), "A")
	}
	f.Fuzz(func(t *testing.T, lit []byte, s string) {
		lit = bytes.Trim(lit, " \t\r\n")
		end, escaped, err := jsonwire.ScanString(lit, 0)
		if err != nil || end != len(lit) {
			if json.Valid(lit) && len(lit) > 0 && lit[0] == '"' {
				t.Fatalf("ScanString(%q) = %d, %v; encoding/json accepts it", lit, end, err)
			}
			return
		}
		if !json.Valid(lit) {
			t.Fatalf("ScanString accepted %q, encoding/json does not", lit)
		}
		if escaped != bytes.Contains(lit, []byte{'\\'}) {
			t.Fatalf("ScanString(%q): escaped = %v", lit, escaped)
		}
		var want string
		if err := json.Unmarshal(lit, &want); err != nil {
			t.Fatal(err)
		}
		if got := string(jsonwire.AppendUnquote([]byte("x"), lit)); got != "x"+want {
			t.Fatalf("AppendUnquote(%q) = %q, want x%q", lit, got, want)
		}
		if got := jsonwire.Unquote(lit); got != want {
			t.Fatalf("Unquote(%q) = %q, want %q", lit, got, want)
		}
		// EqualString is the oracle's equality of code units.
		for _, other := range []string{s, want} {
			exact := fmt.Sprint(units(lit)) == fmt.Sprint(rawUnits(other))
			if got := jsonwire.EqualString(lit, other); got != exact {
				t.Fatalf("EqualString(%q, %q) = %v, want %v", lit, other, got, exact)
			}
		}
		// AppendString round-trips text through encoding/json, and writes
		// what encoding/json writes without HTML escaping.
		enc := jsonwire.AppendString(nil, want)
		var back string
		if err := json.Unmarshal(enc, &back); err != nil || back != want {
			t.Fatalf("AppendString(%q) = %s, read back as %q, %v", want, enc, back, err)
		}
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetEscapeHTML(false)
		if err := e.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := jsonwire.AppendString(nil, s); string(got) != string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))) {
			t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, buf.Bytes())
		}
	})
}

func TestEqualString(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		lit, s string
		want   bool
	}{
		{`"method"`, "method", true},
		{`"m\u0065thod"`, "method", true},
		{`"method"`, "methods", false},
		{`"methods"`, "method", false},
		{`"m\u0065thods"`, "method", false},
		{`"\u00e9"`, "é", true},
		{`"\ud83d\ude00"`, "😀", true},
		{`"\ufffd"`, "\uFFFD", true},
		{`"\ud800"`, "\uFFFD", false},
		{`"\udfff"`, "\uFFFD", false},
		{"\"\xff\"", "\uFFFD", false},
		{"\"\xff\"", "\xff", true},
		{`"\ud800"`, "\xed\xa0\x80", false},
		{`x`, "x", false},
		{``, "", false},
	}
	for _, tc := range testCases {
		if got := jsonwire.EqualString([]byte(tc.lit), tc.s); got != tc.want {
			t.Errorf("EqualString(%q, %q) = %v, want %v", tc.lit, tc.s, got, tc.want)
		}
	}
}

func TestScanErrors(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		in, want string
	}{
		{`"x`, "unterminated string at offset 2"},
		{"\"x\ty\"", "invalid control character 0x9 in string at offset 2"},
		{`"\q"`, "invalid escape character 'q' in string at offset 2"},
		{`"\u12x4"`, `invalid \u escape in string at offset 1`},
		{`1.`, "invalid number: no digits after the decimal point at offset 2"},
		{`1e+`, "invalid number: no digits in the exponent at offset 3"},
		{`-x`, "expected a digit after '-', got invalid character 'x' at offset 1"},
		{`tru`, "invalid literal, expected true at offset 0"},
		{`[1 2]`, "expected ',' or ']', got a number at offset 3"},
		{`{"a" 1}`, "expected ':' after object key, got a number at offset 5"},
		{`{1:2}`, "expected a member name, got a number at offset 1"},
		{`[1] [`, "invalid character '[' after top-level value at offset 4"},
		{`[[1]]`, "JSON nested deeper than 1 levels at offset 1"},
		{``, "unexpected end of JSON input at offset 0"},
	}
	for _, tc := range testCases {
		if err := jsonwire.Valid([]byte(tc.in), 1); err == nil || err.Error() != tc.want {
			t.Errorf("Valid(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
