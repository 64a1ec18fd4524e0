// Package jsonrpchttp is hivegate's JSON-RPC front end on net/http:
// Handler serves POST / (single calls and batches) and GET / (health),
// writing answers with their cache headers and, for clients that accept
// it, gzip; Guard refuses at once what is over limits.max_in_flight, a
// client's share of it (perclient.go) or a client's rate (ratelimit.go),
// naming the client by ClientAddr (a trusted proxy header or the peer
// address), and reads a request's body in full, within a deadline, before
// the request takes a place (readahead.go). The calls themselves go to a
// jsonrpc.Caller, the dispatcher: this package never talks to a backend or
// the cache.
package jsonrpchttp
