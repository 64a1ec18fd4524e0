package stream

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
)

// TestCursorRoundTrip: a cursor decodes to what was encoded; anything
// else is refused.
func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	id := "0000000a" + strings.Repeat("3f", 16)
	for _, c := range []Cursor{{Num: 10, ID: id, Pos: -1}, {Num: 10, ID: id, Pos: 0}, {Num: 1 << 40, ID: id, Pos: 1234}} {
		got, err := DecodeCursor(c.String())
		if err != nil || got != c {
			t.Errorf("%+v: decoded %+v, %v", c, got, err)
		}
	}
	good := Cursor{Num: 10, ID: id, Pos: 3}.String()
	for _, bad := range []string{"", "nope", good + "A", "B" + good[1:], strings.Repeat("A", 65), Cursor{Num: 0, ID: id}.String()} {
		if _, err := DecodeCursor(bad); !errors.Is(err, ErrBadCursor) {
			t.Errorf("%q: %v, want ErrBadCursor", bad, err)
		}
	}
}

// FuzzDecodeCursor: decoding never panics, and what decodes encodes back.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(Cursor{Num: 10, ID: "0000000a" + strings.Repeat("00", 16), Pos: 2}.String())
	f.Add("AQ")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := DecodeCursor(s)
		if err != nil {
			return
		}
		if again, err := DecodeCursor(c.String()); err != nil || again != c {
			t.Fatalf("%q: %+v re-decodes to %+v, %v", s, c, again, err)
		}
	})
}

// TestEndError: a lagged subscriber's stream ends with resource_exhausted
// and its cursor in the message and the trailer; a gone node is
// unavailable; a client's own end is canceled.
func TestEndError(t *testing.T) {
	t.Parallel()
	place := Cursor{Num: 42, ID: "0000002a" + strings.Repeat("ab", 16), Pos: -1}
	trailer := http.Header{}
	err := endError(t.Context(), ErrLagged, place, trailer)
	if connect.CodeOf(err) != connect.CodeResourceExhausted || !strings.Contains(err.Error(), place.String()) || trailer.Get(CursorTrailer) != place.String() {
		t.Fatalf("lagged: %v, trailer %v", err, trailer)
	}
	if err := endError(t.Context(), errUpstream, place, http.Header{}); connect.CodeOf(err) != connect.CodeUnavailable {
		t.Fatalf("upstream: %v", err)
	}
	if e := errorBody(ErrLagged, place); e.Code != "resource_exhausted" || e.Cursor != place.String() {
		t.Fatalf("JSON error body %+v", e)
	}
}
