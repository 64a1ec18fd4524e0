package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/hivegate/hivegate/internal/jsonscan"
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

// ParseBody parses a POST body. A body that is not JSON is a parse error; an
// empty batch or a batch over maxBatch is one error for the whole body.
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

// parseBody is ParseBody into b, whose slices' capacity is reused (the
// handler keeps one Body per pooled exchange). Method names are taken from
// names when it has them (nil: none).
func parseBody(b *Body, data []byte, maxBatch, maxDepth int, names *interner[string]) *Error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	data = trimWS(data)
	if err := checkJSON(data, maxDepth); err != nil {
		if errors.Is(err, errTooDeep) {
			return NewError(KindRequestTooLarge, fmt.Sprintf("JSON nested deeper than %d levels", maxDepth), err)
		}
		return NewError(KindParseError, "the body is not valid JSON", err)
	}
	if data[0] != '[' {
		b.Batch = false
		el, _ := parseElement(data, names)
		b.Elements = append(b.Elements[:0], el)
		return nil
	}
	// data is valid JSON, so the array can be split without re-validating
	// it, each element as it is parsed. Only the elements a batch may hold
	// are parsed; the rest are counted.
	n := 0
	elems := b.Elements[:0]
	for i := skipWS(data, 1); i < len(data) && data[i] != ']'; {
		var end int
		if maxBatch <= 0 || n < maxBatch {
			el, size := parseElement(data[i:], names)
			elems = append(elems, el)
			end = i + size
		} else {
			end = skipValue(data, i)
		}
		n++
		i = skipWS(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipWS(data, i+1)
		}
	}
	b.Elements = elems
	if n == 0 {
		return NewError(KindInvalidRequest, "empty batch", nil)
	}
	if maxBatch > 0 && n > maxBatch {
		return Errorf(KindBatchTooLarge, "%d requests in one batch; at most %d are allowed", n, maxBatch)
	}
	b.Batch = true
	return nil
}

// trimWS removes JSON whitespace (space, tab, CR, LF) around data; unlike
// bytes.TrimSpace it leaves other Unicode spaces, which JSON does not allow,
// for the validator to reject.
func trimWS(data []byte) []byte {
	i := skipWS(data, 0)
	j := len(data)
	for j > i && isWS(data[j-1]) {
		j--
	}
	return data[i:j]
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// parseElement parses the request that starts data, valid JSON that may go
// on after it (the rest of a batch), and returns it with its size in bytes.
func parseElement(data []byte, names *interner[string]) (Element, int) {
	if len(data) == 0 || data[0] != '{' {
		var e Element
		e.Req.ID = nullID
		e.Err = NewError(KindInvalidRequest, "a request must be a JSON object", nil)
		return e, skipValue(data, 0)
	}
	it := memberIter{obj: data, i: 1}
	e := parseRequest(&it, names)
	if it.err != nil || it.end == 0 {
		// Not on valid JSON; measured the slow way to be safe.
		return e, skipValue(data, 0)
	}
	return e, it.end
}

// parseRequest reads a request object's members from it.
func parseRequest(it *memberIter, names *interner[string]) Element {
	var e Element
	e.Req.ID = nullID
	var (
		version, method, params, id json.RawMessage
		hasID                       bool
	)
	for {
		key, value, ok := it.next()
		if !ok {
			break
		}
		switch string(key) {
		case "jsonrpc":
			version = value
		case "method":
			method = value
		case "params":
			params = value
		case "id":
			id, hasID = value, true
		}
	}
	if it.err != nil {
		e.Err = NewError(KindInvalidRequest, "malformed request object", it.err)
		return e
	}
	if hasID {
		if !validID(id) {
			e.Err = NewError(KindInvalidRequest, "id must be an integer, a string or null", nil)
			return e
		}
		e.Req.ID = id
	}
	switch {
	case !bytes.Equal(version, []byte(`"2.0"`)) && decodeString(version) != "2.0":
		e.Err = NewError(KindInvalidRequest, `jsonrpc must be "2.0"`, nil)
	case !hasID:
		e.Err = NewError(KindInvalidRequest, "id is missing", nil)
	case len(method) == 0 || method[0] != '"':
		e.Err = NewError(KindInvalidRequest, "method must be a string", nil)
	}
	if e.Err != nil {
		return e
	}
	if e.Req.Method = methodName(method, names); e.Req.Method == "" {
		e.Err = NewError(KindInvalidRequest, "method must be a non-empty string", nil)
		return e
	}
	switch {
	case len(params) == 0, bytes.Equal(params, []byte("null")):
		// absent
	case params[0] == '[' || params[0] == '{':
		e.Req.Params = params
	default:
		e.Err = NewError(KindInvalidRequest, "params must be an array or an object", nil)
	}
	return e
}

// validID accepts an integer, a string or null.
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

// memberIter walks the members of a valid JSON object without allocating
// (unless a member name holds escapes). Start it with i at 1, just after the
// opening brace.
type memberIter struct {
	obj  []byte
	i    int
	end  int // once done without an error: the index after the closing brace
	done bool
	err  error
}

// next returns the next member's decoded name and raw value bytes; ok is
// false at the end of the object or on an error (then err is set).
func (m *memberIter) next() (key, value []byte, ok bool) {
	if m.done {
		return nil, nil, false
	}
	obj := m.obj
	i := skipWS(obj, m.i)
	if i < len(obj) && obj[i] == '}' {
		m.done, m.end = true, i+1
		return nil, nil, false
	}
	if i >= len(obj) || obj[i] != '"' {
		return m.fail("want a member name")
	}
	end, esc := scanString(obj, i)
	key = obj[i+1 : max(end-1, i+1)]
	if esc {
		var k string
		if err := json.Unmarshal(obj[i:end], &k); err != nil {
			m.done, m.err = true, err
			return nil, nil, false
		}
		key = []byte(k)
	}
	i = skipWS(obj, end)
	if i >= len(obj) || obj[i] != ':' {
		return m.fail("want :")
	}
	i = skipWS(obj, i+1)
	vend := skipValue(obj, i)
	value = obj[i:vend]
	i = skipWS(obj, vend)
	switch {
	case i < len(obj) && obj[i] == ',':
		i++
	case i < len(obj) && obj[i] == '}':
	default:
		return m.fail("unterminated object")
	}
	m.i = i
	return key, value, true
}

func (m *memberIter) fail(msg string) ([]byte, []byte, bool) {
	m.done, m.err = true, errors.New(msg)
	return nil, nil, false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// decodeString decodes a valid JSON string literal; without escapes it is a
// plain copy, with them (or with invalid UTF-8, which becomes U+FFFD)
// encoding/json does the work. It returns "" when s is not a string.
func decodeString(s []byte) string {
	if len(s) < 2 || s[0] != '"' {
		return ""
	}
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s[1 : len(s)-1])
	}
	var out string
	if json.Unmarshal(s, &out) != nil {
		return ""
	}
	return out
}

// methodName is decodeString for a method name, taken from names when it
// is there (and added to it when it is not): the usual methods are then
// decoded without allocating.
func methodName(s []byte, names *interner[string]) string {
	if names == nil || len(s) < 2 || s[0] != '"' {
		return decodeString(s)
	}
	raw := s[1 : len(s)-1]
	if name, ok := names.lookupBytes(raw); ok {
		return name
	}
	name := decodeString(s)
	if name != "" && len(name) == len(raw) && name == string(raw) {
		// Only names spelled without escapes are looked up by their bytes.
		name = names.add(name, name)
	}
	return name
}

// scanString returns the index after the string starting at b[i] == '"' and
// whether it holds escapes.
func scanString(b []byte, i int) (int, bool) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		j = jsonscan.PlainRun(b, j)
		if j >= len(b) {
			break
		}
		switch b[j] {
		case '\\':
			esc = true
			j++
		case '"':
			return j + 1, esc
		}
		// A control character (not in valid JSON) is skipped as content.
	}
	return len(b), esc
}

// skipValue returns the index after the valid JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := scanString(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}
