// Package gateway assembles one running hivegate from its config: the
// router, the cache and its Redis tier, the backend pool and the
// last-irreversible-block tracker, the dispatcher, and the front ends on
// one handler tree (JSON-RPC from jsonrpchttp, Connect/gRPC/gRPC-Web from
// server, the app authorization service from auth), with CORS, the access
// log, metrics, tracing, the admin listener, config reloads (a new
// generation swapped in atomically) and the http.Server that serves it
// all. It is the only package that knows every layer; the front ends see
// the dispatcher only.
package gateway
