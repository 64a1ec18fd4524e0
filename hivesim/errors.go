package hivesim

import (
	"time"

	"github.com/hivegate/hivegate/jsonwire"
)

// JSON-RPC error codes used by hived's json_rpc plugin.
const (
	codeParseError      = -32700
	codeInvalidRequest  = -32600
	codeMethodNotFound  = -32601
	codeInvalidParams   = -32602
	codeServerError     = -32000
	codeNoParams        = -32001
	codeParseParams     = -32002
	codeErrorDuringCall = -32003
)

// errStyle selects which backend's error shape a method reproduces.
type errStyle uint8

const (
	// styleHived: hived's fc exception in data {code,name,message,stack,extension?}.
	styleHived errStyle = iota
	// styleHAfAH: HAfAH (block_api, account_history_api on API nodes): same codes and
	// messages, no data member.
	styleHAfAH
	// styleHivemind: hivemind's PostgREST implementation, code -32602 with an fc-like data object.
	styleHivemind
	// stylePython: hivemind's older Python implementation (list_comments):
	// {"code":-32602,"message":"Invalid parameters","data":"<text>"}.
	stylePython
)

// rpcError is a JSON-RPC error object; data holds pre-encoded JSON or is
// nil; raw, when set, is the whole error object, pre-encoded (Replay's).
type rpcError struct {
	code    int
	message string
	data    []byte
	raw     []byte
}

// callCtx carries what a method needs while it serves one call.
type callCtx struct {
	n      *Node
	head   uint32
	api    string // e.g. "database_api"
	method string // e.g. "list_accounts"
	style  errStyle
}

// now is the chain time of the head block, used in error timestamps so that
// responses stay deterministic for a given head.
func (c *callCtx) now() time.Time { return c.n.ch.blockTime(c.head) }

// abortOn ends the call of a raising method (hivemind.go's raising) with
// err, if there is one.
func abortOn(err *rpcError) {
	if err != nil {
		panic(abortCall{err})
	}
}

// fcException is the data of an fc exception as hived writes it: code,
// name, message and a one-entry stack (its context, format and data), then
// the assertion when there is one.
type fcException struct {
	code                        int
	name, what, format          string
	level, file, method, thread string
	line                        int64
	data                        func(w *jw) // the stack entry's data members
	assertion                   string
	assertHash                  bool // hivemind adds the assertion's hash
}

func (c *callCtx) writeFC(x fcException) []byte {
	var w jw
	data := func(w *jw) {
		w.objBegin()
		if x.data != nil {
			x.data(w)
		}
		w.objEnd()
	}
	stack := []obj{{"context", obj{"level", x.level, "file", x.file, "line", x.line, "method", x.method, "hostname", "",
		"thread_name", x.thread, "timestamp", c.now()}, "format", x.format, "data", data}}
	w.objBegin()
	w.members(false, "code", x.code, "name", x.name, "message", x.what, "stack", stack)
	if x.assertion != "" {
		w.members(false, "extension", obj{"assertion_expression", x.assertion})
	}
	if x.assertHash {
		w.kstr("assert_hash", hexHash(20, hashString(x.assertion)))
	}
	w.objEnd()
	return w.b
}

// fcError builds an error carrying an fc exception.
func (c *callCtx) fcError(code, fcCode int, name, what, format, assertion string) *rpcError {
	e := &rpcError{code: code, message: what + ":" + format}
	switch c.style {
	case styleHAfAH:
		return e
	case styleHivemind, stylePython:
		return c.hivemindError(format)
	}
	level := "error"
	if fcCode != 10 {
		level = "warn"
	}
	e.data = c.writeFC(fcException{code: fcCode, name: name, what: what, format: format, level: level,
		file: c.api + ".cpp", line: 1, method: c.method, thread: "th_0", assertion: assertion})
	return e
}

// assertFail is a failed FC_ASSERT inside an API call (-32003 ERROR_DURING_CALL).
func (c *callCtx) assertFail(expr, msg string) *rpcError {
	return c.fcError(codeErrorDuringCall, 10, "assert_exception", "Assert Exception", expr+": "+msg, expr)
}

// parseError is fc's parse_error_exception, e.g. "Couldn't parse uint64_t" (-32000).
func (c *callCtx) parseError(msg string) *rpcError {
	return c.fcError(codeServerError, 4, "parse_error_exception", "Parse Error", msg, "")
}

// badCast is fc's bad_cast_exception (-32000).
func (c *callCtx) badCast(msg string) *rpcError {
	return c.fcError(codeServerError, 7, "bad_cast_exception", "Bad Cast", msg, "")
}

// unknownKey is the std::out_of_range that chainbase's get<>() throws for a missing object.
func (c *callCtx) unknownKey() *rpcError {
	return c.fcError(codeServerError, 13,
		"N5boost16exception_detail10clone_implINS0_19error_info_injectorISt12out_of_rangeEEEE",
		"unknown key", "unknown key: ", "")
}

// hivemindError is an assert raised by hivemind (-32602, "Assert Exception:<msg>").
func (c *callCtx) hivemindError(msg string) *rpcError {
	if c.style == stylePython {
		return &rpcError{code: codeInvalidParams, message: "Invalid parameters", data: jsonwire.AppendString(nil, msg)}
	}
	return &rpcError{code: codeInvalidParams, message: "Assert Exception:" + msg, data: c.writeFC(fcException{
		code: 10, name: "assert_exception", what: "Assert Exception", level: "error",
		data: func(w *jw) { w.kstr("category", "hivemind") }, assertion: msg, assertHash: true})}
}

// envelopeError builds the errors json_rpc raises before an API method runs. They carry
// hived's data object, with the context of the json_rpc plugin.
func (n *Node) envelopeError(code int, fcCode int, name, what, format, assertion string, head uint32) *rpcError {
	c := callCtx{n: n, head: head, api: "json_rpc_plugin", method: "rpc", style: styleHived}
	e := c.fcError(code, fcCode, name, what, format, assertion)
	if fcCode == 0 {
		// Plain messages (e.g. "Array is invalid") are not fc exceptions.
		e.message = format
		e.data = nil
	}
	return e
}

// envelopeAssert is a failed FC_ASSERT of the json_rpc plugin.
func (n *Node) envelopeAssert(code int, expr, msg string, head uint32) *rpcError {
	return n.envelopeError(code, 10, "assert_exception", "Assert Exception", expr+": "+msg, expr, head)
}

// methodNotFound reproduces hived's -32601 for an unknown API or method.
func (n *Node) methodNotFound(api, method string, apiKnown bool, head uint32) *rpcError {
	if !apiKnown {
		return n.envelopeAssert(codeMethodNotFound, "api_itr != data._registered_apis.end()", "Could not find API "+api, head)
	}
	return n.envelopeAssert(codeMethodNotFound, "method_itr != api_itr->second.end()", "Could not find method "+method, head)
}
