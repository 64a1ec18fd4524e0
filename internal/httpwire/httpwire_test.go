package httpwire_test

import (
	"testing"
	"time"

	"github.com/hivegate/hivegate/internal/httpwire"
)

func TestValidHeaderName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"Content-Type", true},
		{"x-request-id", true},
		{"!#$%&'*+-.^_`|~09azAZ", true},
		{"", false},
		{"Content Type", false},
		{"Host:", false},
		{"X-\x00", false},
		{"Ä", false},
		{"(comment)", false},
		{"a\"b", false},
	} {
		if got := httpwire.ValidHeaderName(tc.name); got != tc.want {
			t.Errorf("ValidHeaderName(%q) = %v, want %v", tc.name, got, tc.want)
		}
		if got := httpwire.ValidHeaderName([]byte(tc.name)); got != tc.want {
			t.Errorf("ValidHeaderName([]byte(%q)) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestValidHeaderValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  bool
	}{
		{"", true},
		{"application/json; charset=utf-8", true},
		{"a\tb", true},
		{"caf\xc3\xa9", true},
		{"a\r\nX-Injected: 1", false},
		{"a\nb", false},
		{"a\x00b", false},
		{"a\x7fb", false},
	} {
		if got := httpwire.ValidHeaderValue(tc.value); got != tc.want {
			t.Errorf("ValidHeaderValue(%q) = %v, want %v", tc.value, got, tc.want)
		}
	}
}

func TestParseContentLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    string
		n    int64
		want bool
	}{
		{"0", 0, true},
		{"91", 91, true},
		{"000123", 123, true},
		{"999999999999999999", 999999999999999999, true},
		{"1000000000000000000", 0, false}, // 19 digits
		{"", 0, false},
		{"+1", 0, false},
		{"-1", 0, false},
		{" 1", 0, false},
		{"1,1", 0, false},
		{"0x10", 0, false},
	} {
		n, ok := httpwire.ParseContentLength(tc.v)
		if n != tc.n || ok != tc.want {
			t.Errorf("ParseContentLength(%q) = %d, %v; want %d, %v", tc.v, n, ok, tc.n, tc.want)
		}
		if nb, okb := httpwire.ParseContentLength([]byte(tc.v)); nb != n || okb != ok {
			t.Errorf("ParseContentLength([]byte(%q)) = %d, %v; the string form says %d, %v", tc.v, nb, okb, n, ok)
		}
	}
}

func TestTrimOWS(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                       "",
		"v":                      "v",
		" \tapplication/json\t ": "application/json",
		"a b":                    "a b",
		"\r v \r":                "\r v \r", // only spaces and tabs are OWS
	} {
		if got := httpwire.TrimOWS(in); got != want {
			t.Errorf("TrimOWS(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLongAgo(t *testing.T) {
	t.Parallel()
	if !httpwire.LongAgo().Before(time.Now()) {
		t.Error("LongAgo is not in the past")
	}
}
