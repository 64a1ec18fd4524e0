// Package backend is hivegate's upstream pool: a pool of keep-alive
// HTTP/1.1 connections per configured backend (hived, hivemind, ...) on
// net/http's Transport (transport.go), JSON-RPC calls with a per-call
// deadline and bounded retries, validation of every answer with jsonwire
// (a connection whose answer is rejected carries nothing more: conn.go),
// the backends' health, and the last-irreversible-block tracker that the
// cache's irreversibility policy reads.
//
// Every node is probed for what it serves and judged by it (probe.go): a
// hived node by its head block, a hivemind node by the last block it
// imported, a HAfAH node by the blocks it has. The head and last
// irreversible block the gateway trusts are what the hived nodes of a
// backend agree on, claims that cannot be true set aside (agree.go): one
// lying node neither takes the honest ones out nor makes a block final.
//
// A call forwards the caller's params bytes exactly as given and returns the
// backend's result bytes exactly as received: Hive clients sign and compare
// JSON, and hived's answers carry numbers (uint128, int64) that a decode and
// re-encode round trip through float64 would corrupt.
//
// Errors the gateway itself reports are *jsonrpc.Error values of a gateway
// kind; their client-visible message names the backend (its configured name)
// but never its URL, host or port, which stay in the error's cause for logs.
// A backend's own JSON-RPC error is not a Go error: it is returned in
// Response.Error and passes through to the client unchanged.
package backend
