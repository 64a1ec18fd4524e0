package jsonrpc

import "github.com/hivegate/hivegate/jsonwire"

// AppendString appends s to dst as a JSON string (see jsonwire.AppendString).
//
// Deprecated: use jsonwire.AppendString; kept until backend moves to jsonwire.
func AppendString[S []byte | string](dst []byte, s S) []byte {
	return jsonwire.AppendString(dst, s)
}
