package stream

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
)

// Cursor is a place in the chain: after block Num (whose id is ID), or,
// when Pos >= 0, after operation Pos of that block. It holds chain data
// only, so any replica can resume from it.
type Cursor struct {
	Num uint64
	ID  string
	// Pos is the position of the last operation delivered in the block, -1
	// when the whole block was.
	Pos int
}

// cursorVersion is the first byte of an encoded cursor.
const cursorVersion = 1

// ErrBadCursor is Decode's error for a string that is not a cursor.
var ErrBadCursor = errors.New("invalid cursor")

// String encodes c: base64url (no padding) of a version byte, the block
// number (uvarint), the 20 bytes of the block id and Pos+1 (uvarint).
func (c Cursor) String() string {
	id, err := hex.DecodeString(c.ID)
	if err != nil || len(id) != 20 {
		id = make([]byte, 20)
	}
	b := make([]byte, 0, 1+binary.MaxVarintLen64+20+binary.MaxVarintLen64)
	b = append(b, cursorVersion)
	b = binary.AppendUvarint(b, c.Num)
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(c.Pos+1))
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads a cursor String wrote.
func DecodeCursor(s string) (Cursor, error) {
	if len(s) > 64 {
		return Cursor{}, ErrBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 1 || b[0] != cursorVersion {
		return Cursor{}, ErrBadCursor
	}
	b = b[1:]
	num, n := binary.Uvarint(b)
	if n <= 0 || num == 0 || len(b) < n+20 {
		return Cursor{}, ErrBadCursor
	}
	id := hex.EncodeToString(b[n : n+20])
	b = b[n+20:]
	pos, n := binary.Uvarint(b)
	if n <= 0 || n != len(b) || pos > 1<<20 {
		return Cursor{}, ErrBadCursor
	}
	return Cursor{Num: num, ID: id, Pos: int(pos) - 1}, nil
}
