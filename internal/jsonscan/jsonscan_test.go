package jsonscan_test

import (
	"testing"

	"github.com/hivegate/hivegate/internal/jsonscan"
)

// FuzzPlainRun checks the eight-bytes-at-a-time scan against a byte loop.
func FuzzPlainRun(f *testing.F) {
	for _, s := range []string{"", `abc"`, `abcdefgh\ijk`, "abcdefghijklmno\x1f", "\x00", `"`, "ééééééééé\"", "0123456789abcdef0123456789abcdef"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, start uint8) {
		i := min(int(start), len(b))
		want := i
		for want < len(b) && b[want] >= 0x20 && b[want] != '"' && b[want] != '\\' {
			want++
		}
		if got := jsonscan.PlainRun(b, i); got != want {
			t.Fatalf("PlainRun(%q, %d) = %d, want %d", b, i, got, want)
		}
	})
}
