// Package jsonrpc is hivegate's JSON-RPC 2.0 vocabulary: requests and
// batches and their parsing (ParseBody, Parser), answers and their
// encoding (AppendResult, AppendError), the gateway's error table (Errors,
// Kind, Code, Error) and the headers that tell a client how a call was
// served (HeaderCache, HeaderRoute). It reads JSON with jsonwire and
// imports no HTTP: the POST / handler is package jsonrpchttp, and the
// Connect front end (package server) and the dispatcher use these types
// as well.
package jsonrpc
