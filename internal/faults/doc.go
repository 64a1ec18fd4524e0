// Package faults provides real HTTP servers on 127.0.0.1 that play a Hive
// node and misbehave on purpose — refusing or resetting connections,
// stalling before or during an answer, answering HTTP 5xx, HTML, truncated
// JSON, another request's id or more bytes than the gateway accepts, or
// flapping between healthy and down — and a gateway assembled in-process
// from a config (router, cache, backend pool, dispatcher, JSON-RPC handler
// and Guard) to put in front of them. It is for tests: the fault suite, the
// limit tests and the soak test (internal/soak) use it. Nothing here is
// used by the hivegate binary.
package faults
