package backend

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/hivegate/hivegate/jsonwire"
)

// answerDepth is the nesting limit the pool gives jsonwire for a node's
// answer: none in practice. A node's answer is as deep as its data, and
// jsonwire's stack of open containers costs one bit per level, so the
// memory a deep answer takes stays bounded by its size, which
// Options.MaxResponseBytes caps.
const answerDepth = math.MaxInt32

// envelope is a validated JSON-RPC answer: exactly one of result and errObj
// is set, both slices of the body they were found in.
type envelope struct {
	result []byte
	errObj []byte
	buf    []byte // a result's buffer when it has a prefix (withPrefix)
	lease  *Lease // the pooled buffer result lives in, when lent (Request.PooledResult)
	// maxAge is the answer's Cache-Control lifetime (cacheMaxAge).
	maxAge time.Duration
}

// reasonWrongID is parseEnvelope's reason for a response to another
// request: bytes an earlier exchange may have left on a kept-alive
// connection (see Pool.attempt).
const reasonWrongID = "a response to another request (wrong id)"

// parseEnvelope checks that body is one JSON-RPC 2.0 response object to the
// request numbered wantID and locates its result or error member without
// decoding it. On failure it returns a short, client-safe reason that
// completes "backend X answered ...". An answer with a null id is refused
// like one with another id: the pool's requests always carry a valid id,
// so such an answer is not to this request (it may be a stray one left on
// a kept-alive connection).
func parseEnvelope(body []byte, wantID uint64) (envelope, string) {
	env, id, reason := parseResponse(body)
	if reason == "" && (id == nil || !idMatches(id, wantID)) {
		return envelope{}, reasonWrongID
	}
	return env, reason
}

// parseResponse checks that body is one JSON-RPC 2.0 response object and
// locates its id and its result or error member (parseEnvelope). The id is
// nil when it is null, which is allowed only with an error.
//
// Accepted: the id as a number or a string of that number; "error": null
// beside a result (some servers send it, JSON-RPC forbids it, nothing is
// lost by ignoring it); "id": null together with an error (JSON-RPC's answer
// when the server could not read the request's id — the error is the
// backend's and is worth passing on). The "jsonrpc" member is not required.
func parseResponse(body []byte) (envelope, []byte, string) {
	var env envelope
	i := jsonwire.SkipSpace(body, 0)
	if i >= len(body) {
		return env, nil, "an empty body"
	}
	switch body[i] {
	case '{':
	case '[':
		if _, err := jsonwire.Skip(body, i, answerDepth); err != nil {
			return env, nil, describe(body, err)
		}
		return env, nil, "a JSON array instead of a response object"
	default:
		if jsonwire.Valid(body, answerDepth) == nil {
			return env, nil, "a JSON value that is not a response object"
		}
		return env, nil, "a body that is not JSON"
	}
	env, id, end, reason, err := scanResponse(body, i, answerDepth)
	switch {
	case err != nil:
		return envelope{}, nil, describe(body, err)
	case end > 0 && jsonwire.SkipSpace(body, end) != len(body): // end is 0 after a repeated member
		return envelope{}, nil, "data after the response object"
	case reason != "":
		return env, nil, reason
	}
	return env, id, ""
}

// scanResponse walks the response object that starts at data[i] (a '{'),
// nested at most depth levels deep, in one pass: it checks its syntax,
// locates its id and its result or error member, and makes parseResponse's
// checks of them. It returns the index just after the object, or the
// syntax error that stopped the walk (err), or a reason the object is not
// a valid response (see parseResponse). A repeated member is reported as
// soon as it is seen, before the rest of the object is read, with end 0.
func scanResponse(data []byte, i, depth int) (env envelope, id []byte, end int, reason string, err error) {
	var haveID, haveResult, haveError bool
	it := jsonwire.Members(data, i, depth)
	for it.Next() {
		var slot *[]byte
		var seen *bool
		var twice string
		switch name := it.Name(); {
		case jsonwire.EqualString(name, "id"):
			slot, seen, twice = &id, &haveID, `a response with two "id" members`
		case jsonwire.EqualString(name, "result"):
			slot, seen, twice = &env.result, &haveResult, `a response with two "result" members`
		case jsonwire.EqualString(name, "error"):
			slot, seen, twice = &env.errObj, &haveError, `a response with two "error" members`
		default:
			continue // Next skips (and checks) the value
		}
		val := it.Value()
		if val == nil {
			break // invalid: it.Err says why
		}
		if *seen {
			return envelope{}, nil, 0, twice, nil
		}
		*seen, *slot = true, val
	}
	if err := it.Err(); err != nil {
		return envelope{}, nil, 0, "", err
	}
	end = it.End()
	if haveError && string(env.errObj) == "null" {
		haveError, env.errObj = false, nil
	}
	switch {
	case !haveID:
		return env, nil, end, "a response without an id", nil
	case string(id) == "null":
		if !haveError || haveResult {
			return env, nil, end, "a response with a null id", nil
		}
		id = nil
	}
	switch {
	case haveResult && haveError:
		return env, nil, end, "a response with both result and error", nil
	case !haveResult && !haveError:
		return env, nil, end, "a response with neither result nor error", nil
	case haveError && env.errObj[0] != '{':
		return env, nil, end, "an error member that is not an object", nil
	}
	return env, id, end, "", nil
}

// describe turns a jsonwire error about body into a client-safe reason:
// "truncated JSON" when body is the beginning of a valid JSON text (it
// ended inside a value), "invalid JSON" otherwise.
func describe(body []byte, err error) string {
	if truncated(body, err) {
		return "truncated JSON"
	}
	return "invalid JSON"
}

// truncated reports whether err, which jsonwire returned for body, is there
// only because body ends too early. jsonwire gives such errors the offset
// len(body), except for a literal (tru) or a \u escape (\u00) cut short,
// which it reports where they start.
func truncated(body []byte, err error) bool {
	var e *jsonwire.Error
	if !errors.As(err, &e) {
		return false
	}
	tail := body[min(e.Offset, len(body)):]
	if len(tail) == 0 {
		return true
	}
	if tail[0] == '\\' {
		if len(tail) >= 6 || len(tail) < 2 || tail[1] != 'u' {
			return false
		}
		for _, c := range tail[2:] {
			if !isHex(c) {
				return false
			}
		}
		return true
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(tail) < len(lit) && string(tail) == lit[:len(tail)] {
			return true
		}
	}
	return false
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// idMatches reports whether the raw id value equals want: the string of
// its decimal digits, as the pool sends it (appendBody), or that number.
// Other spellings of the number (7.0, 7e0, "007") are another id: a node
// echoes the id it was sent.
func idMatches(raw []byte, want uint64) bool {
	var tmp [20]byte
	return bytes.Equal(idText(raw), strconv.AppendUint(tmp[:0], want, 10))
}

// idText returns the text of a raw id value: a number as it is, a string
// literal decoded.
func idText(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return raw
	}
	if bytes.IndexByte(raw, '\\') >= 0 {
		return []byte(jsonwire.Unquote(raw))
	}
	return raw[1 : len(raw)-1]
}
