package jsonrpc_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/jsonrpc"
)

// FuzzParseBody checks ParseBody on arbitrary bodies: it never panics; a
// body error is one of the codes a body can earn; every element is either a
// valid request or carries an error; every id is a valid JSON-RPC id (an
// integer, a string or null); and a valid request agrees with what
// encoding/json reads from the same object.
func FuzzParseBody(f *testing.F) {
	// More seeds are in testdata/fuzz/FuzzParseBody.
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":"a","method":"m"},1,{"id":1.5}]`))
	const maxBatch = 8
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		b, perr := jsonrpc.ParseBody(data, maxBatch, 16)
		if !bytes.Equal(orig, data) {
			t.Fatalf("ParseBody modified its input")
		}
		if perr != nil {
			switch perr.Code {
			case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeBatchTooLarge, jsonrpc.CodeRequestTooLarge:
			default:
				t.Fatalf("body error with code %d: %v", perr.Code, perr)
			}
			if b != nil {
				t.Fatalf("both a body and an error")
			}
			if !json.Valid(perr.AppendJSON(nil)) {
				t.Fatalf("error object is not JSON: %s", perr.AppendJSON(nil))
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted a body that is not JSON: %q", data)
		}
		if len(b.Elements) == 0 || len(b.Elements) > maxBatch || (!b.Batch && len(b.Elements) != 1) {
			t.Fatalf("batch=%v with %d elements", b.Batch, len(b.Elements))
		}
		for i, el := range b.Elements {
			if !validID(el.Req.ID) {
				t.Fatalf("element %d: id %q is not an integer, a string or null", i, el.Req.ID)
			}
			out := jsonrpc.AppendResult(nil, el.Req.ID, json.RawMessage(`1`))
			if !json.Valid(out) {
				t.Fatalf("element %d: response is not JSON: %s", i, out)
			}
			if el.Err != nil {
				if !json.Valid(jsonrpc.AppendError(nil, el.Req.ID, el.Err)) {
					t.Fatalf("element %d: error response is not JSON", i)
				}
				continue
			}
			checkValidRequest(t, i, el.Req)
		}
	})
}

// checkValidRequest compares a request ParseBody accepted with what
// encoding/json reads from it.
func checkValidRequest(t *testing.T, i int, req jsonrpc.Request) {
	t.Helper()
	if req.Method == "" {
		t.Fatalf("element %d: valid request without a method", i)
	}
	if req.Params != nil && (!json.Valid(req.Params) || (req.Params[0] != '[' && req.Params[0] != '{')) {
		t.Fatalf("element %d: params %q are not an array or an object", i, req.Params)
	}
}

// validID is the JSON-RPC id rule, written independently of the parser.
func validID(id []byte) bool {
	if !json.Valid(id) {
		return false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return false
	}
	switch x := v.(type) {
	case nil, string:
		return true
	case json.Number:
		return !bytes.ContainsAny([]byte(x), ".eE")
	}
	return false
}

// FuzzParseBodyAgreesWithEncodingJSON checks single requests against a
// decode by encoding/json into a map (exact, case-sensitive member names,
// the last of duplicate members wins, as in ParseBody).
func FuzzParseBodyAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"\u0031","method":"\u006d","params":{"a":1},"method":"n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, perr := jsonrpc.ParseBody(data, 8, 64)
		if perr != nil || b.Batch || b.Elements[0].Err != nil {
			return
		}
		req := b.Elements[0].Req
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("ParseBody accepted what encoding/json rejects: %v", err)
		}
		var method string
		if err := json.Unmarshal(m["method"], &method); err != nil || method != req.Method {
			t.Fatalf("method %q, encoding/json reads %q (%v)", req.Method, method, err)
		}
		if !bytes.Equal(m["id"], req.ID) {
			t.Fatalf("id %s, encoding/json reads %s", req.ID, m["id"])
		}
		wantParams := m["params"]
		if string(wantParams) == "null" {
			wantParams = nil
		}
		if !bytes.Equal(wantParams, req.Params) {
			t.Fatalf("params %s, encoding/json reads %s", req.Params, wantParams)
		}
	})
}
