package hivesim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// maxBody bounds request bodies.
const maxBody = 16 << 20

// ServeHTTP answers JSON-RPC 2.0 requests (single or batch) on POST.
func (n *Node) ServeHTTP(w http.ResponseWriter, r *http.Request) { serveHTTP(w, r, n.Handle) }

// serveHTTP answers a POST with handle's response to its body.
func serveHTTP(w http.ResponseWriter, r *http.Request, handle func([]byte) []byte) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "only POST is supported", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(handle(body))
}

// Handle serves one JSON-RPC request body (single or batch) and returns the response body.
func (n *Node) Handle(body []byte) []byte {
	head := n.Head()
	return handleBatch(body, n.handleOne, func(err error) *rpcError { return n.parseFailure(err, head) })
}

// handleBatch answers a body: one request object, or a batch whose elements
// one answers in turn; parseErr is the error for a batch that is not JSON.
func handleBatch(body []byte, one func([]byte) []byte, parseErr func(error) *rpcError) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return one(trimmed)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(trimmed, &elems); err != nil {
		return envelope(nil, nil, parseErr(err))
	}
	if len(elems) == 0 {
		return envelope(nil, nil, &rpcError{code: codeServerError, message: "Array is invalid"})
	}
	out := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, one(e)...)
	}
	return append(out, ']')
}

func (n *Node) parseFailure(err error, head uint32) *rpcError {
	return n.envelopeError(codeParseError, 4, "parse_error_exception", "Parse Error", err.Error(), "", head)
}

// handleOne serves one request object and returns its response object.
func (n *Node) handleOne(raw []byte) []byte {
	head := n.Head()
	var req map[string]json.RawMessage
	if err := json.Unmarshal(raw, &req); err != nil {
		if !json.Valid(raw) {
			return envelope(nil, nil, n.parseFailure(err, head))
		}
		return envelope(nil, nil, &rpcError{code: codeInvalidRequest, message: `jsonrpc value is not "2.0"`})
	}
	id, hasID := req["id"]
	if hasID && !validID(id) {
		return envelope(nil, nil, &rpcError{code: codeInvalidRequest, message: `Only integer value or string is allowed for member "id"`})
	}
	if !hasID {
		id = nil
	}
	var version string
	if json.Unmarshal(req["jsonrpc"], &version) != nil || version != "2.0" {
		return envelope(id, nil, &rpcError{code: codeInvalidRequest, message: `jsonrpc value is not "2.0"`})
	}
	var name string
	if json.Unmarshal(req["method"], &name) != nil {
		return envelope(id, nil, &rpcError{code: codeInvalidRequest, message: `A member "method" does not exist`})
	}
	rawParams, hasParams := req["params"]
	params, err := decodeValue(rawParams)
	if err != nil {
		return envelope(id, nil, n.parseFailure(err, head))
	}
	var api, meth string
	if name == "call" {
		if !hasParams {
			return envelope(id, nil, &rpcError{code: codeNoParams, message: `A member "params" does not exist`})
		}
		arr, ok := params.([]any)
		if !ok || (len(arr) != 2 && len(arr) != 3) {
			return envelope(id, nil, n.envelopeAssert(codeParseParams, "v.is_array() && (v.size() == 2 || v.size() == 3)",
				`params should be {"api", "method", "args"`, head))
		}
		api, _ = arr[0].(string)
		meth, _ = arr[1].(string)
		params = nil
		if len(arr) == 3 {
			params = arr[2]
			var parts []json.RawMessage
			if json.Unmarshal(rawParams, &parts) == nil && len(parts) == 3 {
				rawParams = parts[2]
			}
		}
	} else {
		var ok bool
		api, meth, ok = strings.Cut(name, ".")
		if !ok || strings.Contains(meth, ".") {
			return envelope(id, nil, n.envelopeAssert(codeParseParams, "v.size() == 2", "method specification invalid. Should be api.method", head))
		}
	}
	full := api + "." + meth
	n.countCall(full)
	m, found := n.methods[full]
	if !found {
		return envelope(id, nil, n.methodNotFound(api, meth, n.apis[api], head))
	}
	c := &callCtx{n: n, head: head, api: api, method: meth, style: m.style}
	var w jw
	// Broadcasts change the chain (broadcast.go): they run alone.
	broadcast := isBroadcast(full)
	lock := n.state.RLocker()
	if broadcast {
		lock = &n.state
	}
	lock.Lock()
	e := m.fn(c, params, &w)
	lock.Unlock()
	if e != nil {
		return envelope(id, nil, e)
	}
	if broadcast {
		n.recordBroadcast(rawParams)
	}
	return envelope(id, w.b, nil)
}

// validID reports whether id is an integer or a string, the only types hived accepts.
func validID(id json.RawMessage) bool {
	v, err := decodeValue(id)
	if err != nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return true
	case json.Number:
		_, e1 := x.Int64()
		return e1 == nil || !strings.ContainsAny(string(x), ".eE")
	}
	return false
}

// decodeValue decodes JSON keeping numbers as json.Number (fc keeps integers exact).
func decodeValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// envelope writes {"jsonrpc":"2.0","result"|"error":…,"id":…}; id is omitted when the
// request had none, as hived does.
func envelope(id json.RawMessage, result []byte, e *rpcError) []byte {
	var w jw
	w.objBegin()
	w.kstr("jsonrpc", "2.0")
	switch {
	case e != nil && e.raw != nil:
		w.key("error")
		w.raw(e.raw)
	case e != nil:
		w.key("error")
		w.objBegin()
		w.knum("code", int64(e.code))
		w.kstr("message", e.message)
		if e.data != nil {
			w.key("data")
			w.raw(e.data)
		}
		w.objEnd()
	default:
		w.key("result")
		w.raw(result)
	}
	if id != nil {
		w.key("id")
		w.raw(bytes.TrimSpace(id))
	}
	w.objEnd()
	return w.b
}
