// Package jsonscan holds the eight-bytes-at-a-time string scan of
// backend's answer scanner.
//
// Deprecated: use package jsonwire (whose ScanString, Skip and Iter use the
// same scan); kept until backend moves to jsonwire, then deleted.
package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// SWAR constants for PlainRun: every byte 0x01, every byte 0x80.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// PlainRun returns the index of the first byte at or after i that ends a
// run of plain string content: a quote, a backslash or a control
// character (len(b) when there is none). It tests eight bytes at a time.
//
// Deprecated: use jsonwire.ScanString; kept until backend moves to
// jsonwire.
func PlainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q := w ^ (lsb * '"')
		s := w ^ (lsb * '\\')
		// A byte of the mask is set where q or s has a zero byte, or w a
		// byte under 0x20. Only the lowest flagged byte is exact (borrows
		// may flag bytes above it), and it is the one wanted.
		mask := ((q - lsb) &^ q) | ((s - lsb) &^ s) | ((w - lsb*0x20) &^ w)
		if mask &= msb; mask != 0 {
			return i + bits.TrailingZeros64(mask)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}
