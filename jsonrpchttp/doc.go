// Package jsonrpchttp is hivegate's JSON-RPC front end on net/http:
// Handler serves POST / (single calls and batches) and GET / (health),
// writing answers with their cache headers and, for clients that accept
// it, gzip. It stands behind package guard, the front door of every front
// end, and charges a batch's further elements to its client's rate there
// (guard.ChargeBatch). It parses the calls into router calls itself and
// serves them through the dispatcher's one door (Dispatcher,
// dispatch.Dispatcher.Serve) with the hooks it is given: this package
// never talks to a backend or the cache.
package jsonrpchttp
