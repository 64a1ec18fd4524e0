package cache

import (
	"errors"
	"fmt"
)

// The one-byte header in front of every value hivegate stores in Redis.
const (
	valueRaw  byte = 0 // the rest is the value as is
	valueZstd byte = 1 // the rest is one zstd frame holding the value
)

// maxDecodedBytes bounds what one compressed value may expand to, so that a
// corrupted or hostile value cannot make a replica allocate without limit.
const maxDecodedBytes = 256 << 20

// encode returns value with its header, zstd-compressed when it is at least
// compressMin bytes long and compression makes it smaller.
func (r *Redis) encode(value []byte) (out []byte, compressed bool) {
	if r.compressMin >= 0 && len(value) >= r.compressMin {
		out = r.enc.EncodeAll(value, append(make([]byte, 0, 1+len(value)/4), valueZstd))
		if len(out) < 1+len(value) {
			return out, true
		}
	}
	out = make([]byte, 1+len(value))
	out[0] = valueRaw
	copy(out[1:], value)
	return out, false
}

// decode reverses encode. raw is not kept when the value was compressed;
// otherwise the value aliases it.
func (r *Redis) decode(raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return nil, errors.New("empty value: no header byte")
	}
	switch raw[0] {
	case valueRaw:
		return raw[1:], nil
	case valueZstd:
		v, err := r.dec.DecodeAll(raw[1:], nil)
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("unknown value header %#x (written by a newer hivegate?)", raw[0])
}
