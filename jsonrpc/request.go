package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
func ParseBody(data []byte, maxBatch, maxDepth int) (*Body, *Error) {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	data = bytes.TrimSpace(data)
	if err := checkJSON(data, maxDepth); err != nil {
		if errors.Is(err, errTooDeep) {
			return nil, NewError(KindRequestTooLarge, fmt.Sprintf("JSON nested deeper than %d levels", maxDepth), err)
		}
		return nil, NewError(KindParseError, "the body is not valid JSON", err)
	}
	if data[0] != '[' {
		return &Body{Elements: []Element{parseElement(data)}}, nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, NewError(KindParseError, "the body is not valid JSON", err)
	}
	if len(raw) == 0 {
		return nil, NewError(KindInvalidRequest, "empty batch", nil)
	}
	if maxBatch > 0 && len(raw) > maxBatch {
		return nil, Errorf(KindBatchTooLarge, "%d requests in one batch; at most %d are allowed", len(raw), maxBatch)
	}
	b := &Body{Batch: true, Elements: make([]Element, len(raw))}
	for i, r := range raw {
		b.Elements[i] = parseElement(r)
	}
	return b, nil
}

func parseElement(data []byte) Element {
	var e Element
	e.Req.ID = nullID
	if len(data) == 0 || data[0] != '{' {
		e.Err = NewError(KindInvalidRequest, "a request must be a JSON object", nil)
		return e
	}
	var (
		version, method, params, id json.RawMessage
		hasID                       bool
	)
	err := eachMember(data, func(key string, value []byte) {
		switch key {
		case "jsonrpc":
			version = value
		case "method":
			method = value
		case "params":
			params = value
		case "id":
			id, hasID = value, true
		}
	})
	if err != nil {
		e.Err = NewError(KindInvalidRequest, "malformed request object", err)
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
	case !bytes.Equal(version, []byte(`"2.0"`)):
		e.Err = NewError(KindInvalidRequest, `jsonrpc must be "2.0"`, nil)
	case !hasID:
		e.Err = NewError(KindInvalidRequest, "id is missing", nil)
	case len(method) == 0 || method[0] != '"':
		e.Err = NewError(KindInvalidRequest, "method must be a string", nil)
	}
	if e.Err != nil {
		return e
	}
	if err := json.Unmarshal(method, &e.Req.Method); err != nil || e.Req.Method == "" {
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

var errTooDeep = errors.New("nested too deeply")

// checkJSON validates data as one JSON value no deeper than maxDepth.
func checkJSON(data []byte, maxDepth int) error {
	if len(data) == 0 {
		return errors.New("empty body")
	}
	if !json.Valid(data) {
		return errors.New("invalid JSON")
	}
	depth := 0
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			depth++
			if depth > maxDepth {
				return errTooDeep
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

// eachMember calls f for each member of a valid JSON object, with the decoded
// key and the raw value bytes.
func eachMember(obj []byte, f func(key string, value []byte)) error {
	i := skipWS(obj, 1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return errors.New("want a member name")
		}
		end, esc := scanString(obj, i)
		var key string
		if esc {
			if err := json.Unmarshal(obj[i:end], &key); err != nil {
				return err
			}
		} else {
			key = string(obj[i+1 : end-1])
		}
		i = skipWS(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return errors.New("want :")
		}
		i = skipWS(obj, i+1)
		vend := skipValue(obj, i)
		f(key, obj[i:vend])
		i = skipWS(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
			continue
		}
		return nil
	}
	return errors.New("unterminated object")
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the string starting at b[i] == '"' and
// whether it holds escapes.
func scanString(b []byte, i int) (int, bool) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			esc = true
			j++
		case '"':
			return j + 1, esc
		}
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
