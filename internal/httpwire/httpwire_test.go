package httpwire_test

import (
	"testing"

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
