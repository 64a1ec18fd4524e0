package backend

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// envelope is a validated JSON-RPC answer: exactly one of result and errObj
// is set, both slices of the body they were found in.
type envelope struct {
	result []byte
	errObj []byte
	buf    []byte // a result's buffer when it has a prefix (withPrefix)
	lease  *Lease // the pooled buffer result lives in, when lent (Request.Lend)
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
// completes "backend X answered ...".
func parseEnvelope(body []byte, wantID uint64) (envelope, string) {
	env, id, reason := parseResponse(body)
	if reason == "" && id != nil && !idMatches(id, wantID) {
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
	i := skipSpace(body, 0)
	if i >= len(body) {
		return env, nil, "an empty body"
	}
	switch body[i] {
	case '{':
	case '[':
		if _, err := skipValue(body, i); err != nil {
			return env, nil, describe(err)
		}
		return env, nil, "a JSON array instead of a response object"
	default:
		if end, err := skipValue(body, i); err == nil && skipSpace(body, end) == len(body) {
			return env, nil, "a JSON value that is not a response object"
		}
		return env, nil, "a body that is not JSON"
	}
	var id []byte
	var haveID, haveResult, haveError bool
	i = skipSpace(body, i+1)
	if i >= len(body) {
		return env, nil, describe(errTruncated)
	}
	if body[i] == '}' {
		i++
	} else {
		for {
			if body[i] != '"' {
				return env, nil, describe(errSyntax)
			}
			keyStart := i + 1
			end, err := skipKey(body, i)
			if err != nil {
				return env, nil, describe(err)
			}
			key := body[keyStart:bytes.LastIndexByte(body[:end], '"')]
			valStart := skipSpace(body, end)
			i, err = skipValue(body, valStart)
			if err != nil {
				return env, nil, describe(err)
			}
			val := body[valStart:i]
			if bytes.IndexByte(key, '\\') >= 0 {
				key = []byte(unescape(key))
			}
			switch string(key) {
			case "id":
				if haveID {
					return env, nil, `a response with two "id" members`
				}
				haveID, id = true, val
			case "result":
				if haveResult {
					return env, nil, `a response with two "result" members`
				}
				haveResult, env.result = true, val
			case "error":
				if haveError {
					return env, nil, `a response with two "error" members`
				}
				haveError, env.errObj = true, val
			}
			i = skipSpace(body, i)
			if i >= len(body) {
				return env, nil, describe(errTruncated)
			}
			if body[i] == '}' {
				i++
				break
			}
			if body[i] != ',' {
				return env, nil, describe(errSyntax)
			}
			i = skipSpace(body, i+1)
			if i >= len(body) {
				return env, nil, describe(errTruncated)
			}
		}
	}
	if skipSpace(body, i) != len(body) {
		return env, nil, "data after the response object"
	}
	if haveError && string(env.errObj) == "null" {
		haveError, env.errObj = false, nil
	}
	switch {
	case !haveID:
		return env, nil, "a response without an id"
	case string(id) == "null":
		if !haveError || haveResult {
			return env, nil, "a response with a null id"
		}
		id = nil
	}
	switch {
	case haveResult && haveError:
		return env, nil, "a response with both result and error"
	case !haveResult && !haveError:
		return env, nil, "a response with neither result nor error"
	case haveError && env.errObj[0] != '{':
		return env, nil, "an error member that is not an object"
	}
	return env, id, ""
}

// describe turns a scanner error into a client-safe reason.
func describe(err error) string {
	if err == errTruncated {
		return "truncated JSON"
	}
	return "invalid JSON"
}

// unescape decodes the contents of a JSON string (without its quotes).
func unescape(raw []byte) string {
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	if json.Unmarshal(quoted, &s) != nil {
		return ""
	}
	return s
}

// idMatches reports whether the raw id value equals want, as a JSON number
// or as a string holding that number.
func idMatches(raw []byte, want uint64) bool {
	if len(raw) >= 2 && raw[0] == '"' {
		s := raw[1 : len(raw)-1]
		if bytes.IndexByte(s, '\\') >= 0 {
			s = []byte(unescape(s))
		}
		return numberEquals(s, want)
	}
	return numberEquals(raw, want)
}

// numberEquals reports whether the decimal text s denotes want.
func numberEquals(s []byte, want uint64) bool {
	var tmp [20]byte
	if bytes.Equal(s, strconv.AppendUint(tmp[:0], want, 10)) {
		return true
	}
	// Rare spellings: 7.0, 7e0, "007". Exact only within float64 precision.
	f, err := strconv.ParseFloat(string(s), 64)
	return err == nil && want <= 1<<53 && f == float64(want)
}
