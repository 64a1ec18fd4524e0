// Package server is hivegate's Connect front end: every read method of a
// Hive node as a typed RPC (API, planned from the schema server/schema
// links in, with the hived-JSON ⇄ protobuf codec of server/transcode),
// the generic hivegate.v1.JsonRpcService, gRPC health and server
// reflection, each over Connect, gRPC and gRPC-Web. API.Mount puts them on
// a mux; the calls go to the dispatcher (package dispatch), never to a
// backend or the cache directly. Package gateway assembles it with the
// other front ends.
package server
