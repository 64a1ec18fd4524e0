package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hivegate/hivegate/jsonwire"
)

// Request is one validated JSON-RPC 2.0 request.
type Request struct {
	Method string
	// Params are the params bytes exactly as sent; nil when absent or null.
	Params json.RawMessage
	// ID is the id exactly as sent: an integer, a string or null.
	ID json.RawMessage
}

// nullID is the id of responses to requests whose id could not be read.
var nullID = json.RawMessage("null")

// DefaultMaxDepth is the default limit on JSON nesting in a request body.
const DefaultMaxDepth = 64

// Body is a parsed POST body: one request, or a batch of elements each of
// which is a request or the error that makes it invalid.
type Body struct {
	Batch    bool
	Elements []Element
}

// Element is one request of a body, or why it is invalid.
type Element struct {
	Req Request
	Err *Error // set when the element is invalid; Req.ID is still set when it could be read
}

// ParseBody parses a POST body. A body that is not JSON is a parse error, a
// body nested deeper than maxDepth levels a request too large (whatever
// follows the level too many); an empty batch or a batch over maxBatch is
// one error for the whole body.
//
// The returned requests alias data: their method, params and id bytes are
// slices of it, so data must outlive them.
func ParseBody(data []byte, maxBatch, maxDepth int) (*Body, *Error) {
	b := new(Body)
	if perr := parseBody(b, data, maxBatch, maxDepth, nil); perr != nil {
		return nil, perr
	}
	return b, nil
}

// Parser parses bodies as ParseBody does, for a server that parses many:
// Parse reuses the capacity of the Body it is given, and method names the
// Parser has decoded before cost no allocation. The zero value is ready;
// it is safe for concurrent use.
type Parser struct {
	methods Interner[string] // method names, decoded once
}

// Parse is ParseBody into b, whose slices' capacity is reused.
func (p *Parser) Parse(b *Body, data []byte, maxBatch, maxDepth int) *Error {
	return parseBody(b, data, maxBatch, maxDepth, &p.methods)
}

// parseBody is ParseBody into b, whose slices' capacity is reused (the
// handler keeps one Body per pooled exchange). Method names are taken from
// names when it has them (nil: none). The body is read once: each element
// is checked as it is parsed, and the elements past maxBatch are checked
// and counted.
func parseBody(b *Body, data []byte, maxBatch, maxDepth int, names *Interner[string]) *Error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	i := jsonwire.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		el, end, err := parseElement(data, i, maxDepth, names)
		if err == nil {
			err = checkEnd(data, end)
		}
		if err != nil {
			return bodyError(err, maxDepth)
		}
		b.Batch = false
		b.Elements = append(b.Elements[:0], el)
		return nil
	}
	n := 0
	elems := b.Elements[:0]
	it := jsonwire.Elements(data, i, maxDepth)
	for it.Next() {
		if maxBatch <= 0 || n < maxBatch {
			el, end, err := parseElement(data, it.Offset(), it.Depth(), names)
			if err != nil {
				b.Elements = elems
				return bodyError(err, maxDepth)
			}
			it.SetValueEnd(end)
			elems = append(elems, el)
		}
		n++
	}
	b.Elements = elems
	err := it.Err()
	if err == nil {
		err = checkEnd(data, it.End())
	}
	if err != nil {
		return bodyError(err, maxDepth)
	}
	if n == 0 {
		return NewError(KindInvalidRequest, "empty batch", nil)
	}
	if maxBatch > 0 && n > maxBatch {
		return Errorf(KindBatchTooLarge, "%d requests in one batch; at most %d are allowed", n, maxBatch)
	}
	b.Batch = true
	return nil
}

// checkEnd checks that only whitespace follows the body's value.
func checkEnd(data []byte, end int) error {
	if jsonwire.SkipSpace(data, end) != len(data) {
		// Valid reports what follows the value, and where.
		return jsonwire.Valid(data, jsonwire.MaxDepth)
	}
	return nil
}

// bodyError is the answer to a body that is not JSON or is too deep.
func bodyError(err error, maxDepth int) *Error {
	if errors.Is(err, jsonwire.ErrTooDeep) {
		return NewError(KindRequestTooLarge, fmt.Sprintf("JSON nested deeper than %d levels", maxDepth), err)
	}
	return NewError(KindParseError, "the body is not valid JSON", err)
}

// parseElement parses the request that starts at data[i], within maxDepth
// levels, and returns it with the index after it. An error is about the
// body's syntax or depth; a request that is valid JSON but not a valid
// request is an Element with Err set.
func parseElement(data []byte, i, maxDepth int, names *Interner[string]) (Element, int, error) {
	var e Element
	e.Req.ID = nullID
	if i >= len(data) || data[i] != '{' {
		end, err := jsonwire.Skip(data, i, maxDepth)
		e.Err = NewError(KindInvalidRequest, "a request must be a JSON object", nil)
		return e, end, err
	}
	var (
		version, method, params, id []byte
		hasID                       bool
	)
	it := jsonwire.Members(data, i, maxDepth)
	for it.Next() {
		var slot *[]byte
		name := it.Name()
		raw := name[1 : len(name)-1]
		if bytes.IndexByte(raw, '\\') >= 0 {
			raw = jsonwire.AppendUnquote(nil, name) // rare: escapes in a member name
		}
		switch string(raw) {
		case "jsonrpc":
			slot = &version
		case "method":
			slot = &method
		case "params":
			slot = &params
		case "id":
			slot, hasID = &id, true
		default:
			continue // Next skips (and checks) the value
		}
		if *slot = it.Value(); *slot == nil {
			break
		}
	}
	if err := it.Err(); err != nil {
		return e, 0, err
	}
	e.Err = checkRequest(&e.Req, version, method, params, id, hasID, names)
	return e, it.End(), nil
}

// checkRequest fills req from a request object's members and returns why
// it is not a valid request, or nil.
func checkRequest(req *Request, version, method, params, id []byte, hasID bool, names *Interner[string]) *Error {
	if hasID {
		if !validID(id) {
			return NewError(KindInvalidRequest, "id must be an integer, a string or null", nil)
		}
		req.ID = id
	}
	switch {
	case !jsonwire.EqualString(version, "2.0"):
		return NewError(KindInvalidRequest, `jsonrpc must be "2.0"`, nil)
	case !hasID:
		return NewError(KindInvalidRequest, "id is missing", nil)
	case len(method) == 0 || method[0] != '"':
		return NewError(KindInvalidRequest, "method must be a string", nil)
	}
	if req.Method = methodName(method, names); req.Method == "" {
		return NewError(KindInvalidRequest, "method must be a non-empty string", nil)
	}
	switch {
	case len(params) == 0, bytes.Equal(params, []byte("null")):
		// absent
	case params[0] == '[' || params[0] == '{':
		req.Params = params
	default:
		return NewError(KindInvalidRequest, "params must be an array or an object", nil)
	}
	return nil
}

// validID accepts an integer, a string or null (id is valid JSON).
func validID(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return true
	case bytes.Equal(id, []byte("null")):
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		for _, d := range id[1:] {
			if d < '0' || d > '9' {
				return false
			}
		}
		return len(id) > 1 || c != '-'
	}
	return false
}

// methodName decodes a method name (jsonwire.Unquote), taken from names
// when it is there (and added to it when it is not): the usual methods are
// then decoded without allocating.
func methodName(s []byte, names *Interner[string]) string {
	if names == nil || len(s) < 2 || s[0] != '"' {
		return jsonwire.Unquote(s)
	}
	raw := s[1 : len(s)-1]
	if name, ok := names.LookupBytes(raw); ok {
		return name
	}
	name := jsonwire.Unquote(s)
	if name != "" && len(name) == len(raw) && name == string(raw) {
		// Only names spelled without escapes are looked up by their bytes.
		name = names.Add(name, name)
	}
	return name
}
