package router

import (
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/hivegate/hivegate/jsonwire"
)

// canonicalKey builds namespace.api.method[.params=<canonical JSON>] in one
// allocation when it can: the buffer is sized for the key, and the string
// shares it (as strings.Builder does; b is never written again). Keys live
// long in the cache, so when sorting an object made the buffer grow, the
// key is copied into an exactly sized string instead of keeping the slack.
func canonicalKey(segs []string, params json.RawMessage) (string, error) {
	n := len(segs)
	for _, s := range segs {
		n += len(s)
	}
	if params != nil {
		n += len(".params=") + len(params)
	}
	b, err := appendKey(make([]byte, 0, n), segs, params)
	if err != nil {
		return "", err
	}
	if cap(b)-len(b) > 16+len(b)/8 {
		return string(b), nil
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// appendKey appends namespace.api.method[.params=<canonical JSON>] to dst;
// the canonical form is jsonwire's (see jsonwire.AppendCanonical): it
// keeps number spellings, and strings that differ upstream, lone
// surrogates and invalid UTF-8 included, never share a key.
func appendKey(dst []byte, segs []string, params json.RawMessage) ([]byte, error) {
	for i, s := range segs {
		if i > 0 {
			dst = append(dst, '.')
		}
		dst = append(dst, s...)
	}
	if params != nil {
		dst = append(dst, ".params="...)
		var err error
		if dst, err = jsonwire.AppendCanonical(dst, params); err != nil {
			return nil, fmt.Errorf("%w: params are not valid JSON: %v", ErrInvalidMethod, err)
		}
	}
	return dst, nil
}
