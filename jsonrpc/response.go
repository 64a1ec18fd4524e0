package jsonrpc

import "encoding/json"

// AppendResult appends {"jsonrpc":"2.0","result":<result>,"id":<id>} to b.
// result is copied through unchanged: the gateway never re-encodes a result.
// An empty result is written as null and an empty id as null, so the output
// is always valid JSON.
func AppendResult(b []byte, id, result json.RawMessage) []byte {
	if len(result) == 0 {
		result = nullID
	}
	if len(id) == 0 {
		id = nullID
	}
	b = append(b, `{"jsonrpc":"2.0","result":`...)
	b = append(b, result...)
	b = append(b, `,"id":`...)
	b = append(b, id...)
	return append(b, '}')
}

// AppendError appends {"jsonrpc":"2.0","error":<err>,"id":<id>} to b.
func AppendError(b []byte, id json.RawMessage, err *Error) []byte {
	if len(id) == 0 {
		id = nullID
	}
	b = append(b, `{"jsonrpc":"2.0","error":`...)
	b = err.AppendJSON(b)
	b = append(b, `,"id":`...)
	b = append(b, id...)
	return append(b, '}')
}
