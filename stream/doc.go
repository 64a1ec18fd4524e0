// Package stream pushes the chain to clients: one follower per gateway
// reads each new block once from the nodes (through the dispatcher, so the
// gateway's router, cache and backends), keeps a bounded window of recent
// blocks and the events it announced (blocks, forks), and every subscriber
// reads from that window at its own pace. A subscriber starting in the past
// reads history (cached) until it reaches the window, then continues live
// with no gap and no duplicate. A subscriber that falls more than the
// buffer behind the follower is ended with its cursor; nothing is queued
// per subscriber, so memory does not grow with slow readers.
//
// Cursors (cursor.go) carry only chain data (block number, block id,
// position in the block): a client may resume on any replica.
//
// The front ends are the Connect service hive.stream.v1.StreamService
// (connect.go), Server-Sent Events (sse.go) and a WebSocket JSON-RPC
// subscription endpoint (ws.go). The package sits with the front ends:
// it reaches the nodes and the cache through the dispatcher only.
package stream
