package hivesim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/hivegate/hivegate/jsonwire"
)

// Case is one recorded request/response pair (a line of a .jsonl fixture file).
type Case struct {
	// Name is the case name ("case" member), e.g. "database_api_patterns/list_accounts/by_name".
	Name string
	// File is the path of the file the case was read from, and Line its 1-based line.
	File string
	Line int
	// Method and Params are the recorded request's method and params (params may be nil).
	Method string
	Params json.RawMessage
	// Result or Error holds the recorded response member; exactly one is set.
	Result json.RawMessage
	Error  json.RawMessage
}

// Replay is an http.Handler that answers JSON-RPC calls with recorded responses. A call
// matches a case when the method is equal and the params are equal as JSON values
// (member order, whitespace and number spelling do not matter). It is safe for
// concurrent use.
type Replay struct {
	cases []Case
	index map[string]int // method + "\x00" + canonical params -> case index

	mu    sync.Mutex
	calls map[string]int
}

// NewReplay answers the recorded cases (internal/fixtures reads them from
// the .jsonl files). When two cases record the same call, the first one is
// served. It fails when there is no case or a case's params are not JSON.
func NewReplay(cases []Case) (*Replay, error) {
	if len(cases) == 0 {
		return nil, errors.New("hivesim: no recorded cases")
	}
	r := &Replay{cases: slices.Clone(cases), index: make(map[string]int), calls: make(map[string]int)}
	for i, c := range r.cases {
		key, err := callKey(c.Method, c.Params)
		if err != nil {
			return nil, fmt.Errorf("hivesim: %s:%d: params: %w", c.File, c.Line, err)
		}
		if _, dup := r.index[key]; !dup {
			r.index[key] = i
		}
	}
	return r, nil
}

// Cases returns the loaded cases in file order.
func (r *Replay) Cases() []Case { return slices.Clone(r.cases) }

// Calls returns how many calls of method the replay has answered (matched or not).
func (r *Replay) Calls(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[method]
}

// Lookup returns the case recorded for method and params, compared as JSON values.
func (r *Replay) Lookup(method string, params json.RawMessage) (Case, bool) {
	key, err := callKey(method, params)
	if err != nil {
		return Case{}, false
	}
	i, ok := r.index[key]
	if !ok {
		return Case{}, false
	}
	return r.cases[i], true
}

// ServeHTTP answers JSON-RPC requests (single or batch) on POST with recorded responses.
func (r *Replay) ServeHTTP(w http.ResponseWriter, req *http.Request) { serveHTTP(w, req, r.Handle) }

// Handle answers one request body (single or batch).
func (r *Replay) Handle(body []byte) []byte { return handleBatch(body, r.handleOne, replayParseError) }

func replayParseError(err error) *rpcError {
	return &rpcError{code: codeParseError, message: "Parse Error:" + err.Error()}
}

func (r *Replay) handleOne(raw []byte) []byte {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return envelope(nil, nil, replayParseError(err))
	}
	r.mu.Lock()
	r.calls[req.Method]++
	r.mu.Unlock()
	c, ok := r.Lookup(req.Method, req.Params)
	if !ok {
		return envelope(req.ID, nil, &rpcError{code: codeMethodNotFound,
			message: "hivesim replay: no recorded response for " + req.Method + " with these params"})
	}
	if c.Error != nil {
		return envelope(req.ID, nil, &rpcError{raw: c.Error})
	}
	return envelope(req.ID, c.Result, nil)
}

// callKey is the lookup key of a call: the method and params in jsonwire's
// match form (members sorted, numbers by value); absent params are null.
func callKey(method string, params json.RawMessage) (string, error) {
	key := append([]byte(method), 0)
	if len(bytes.TrimSpace(params)) == 0 {
		return string(append(key, "null"...)), nil
	}
	key, err := jsonwire.AppendMatchForm(key, params)
	return string(key), err
}

// recordedArtifacts are recorded results that no backend returns: the
// pattern tests compared them loosely, so the file holds a placeholder.
var recordedArtifacts = map[string]string{
	// hived's database_api.verify_authority answers {"valid": true} or an
	// error; the pattern file of the failing case holds a bare false.
	"database_api_patterns/verify_authority/false": "a bare false where hived answers {\"valid\": ...} or an error",
}

// RecordedResult returns the result a backend really returned for a
// recorded case whose result member is a recording artifact, and why a
// case has no usable result. A few recordings hold a whole JSON-RPC
// response envelope ({"id", "jsonrpc", "result"|"error"}) as the result:
// the inner result is returned (ok), or for an inner error the reason. A
// result listed as a placeholder returns its reason. Any other result is
// returned unchanged.
func RecordedResult(caseName string, result json.RawMessage) (inner json.RawMessage, reason string) {
	if why, ok := recordedArtifacts[caseName]; ok {
		return nil, "recording artifact: " + why
	}
	trimmed := bytes.TrimSpace(result)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return result, ""
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(trimmed, &env) != nil || len(env) != 3 || env["jsonrpc"] == nil || env["id"] == nil {
		return result, ""
	}
	if r, ok := env["result"]; ok {
		return r, ""
	}
	if _, ok := env["error"]; ok {
		return nil, "recorded error (an envelope inside the result)"
	}
	return result, ""
}
