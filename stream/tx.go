package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/jsonrpc"
)

// TxChain is what broadcast and confirm needs of the chain; DispatchChain
// implements it. A hub whose Chain does not implement it refuses
// BroadcastTransaction with unimplemented.
type TxChain interface {
	// Broadcast sends a signed transaction (hived JSON) once. A refusal by
	// the node is a *RefusedError.
	Broadcast(ctx context.Context, trx json.RawMessage) error
	// FindTransaction asks where transaction id is
	// (transaction_status_api.find_transaction).
	FindTransaction(ctx context.Context, id string, expiration time.Time) (TxStatus, error)
}

// RefusedError is a node's refusal of a broadcast transaction; Message is
// the node's own message.
type RefusedError struct{ Message string }

func (e *RefusedError) Error() string { return "the node refused the transaction: " + e.Message }

// deniedError is a broadcast the token policy (auth.require_token)
// refused before any node saw it: no token, or not the scope it asks for.
type deniedError struct {
	unauthenticated bool // no valid token; false: a token without the scope
	msg             string
}

func (e *deniedError) Error() string { return e.msg }

// code is the Connect code of the refusal.
func (e *deniedError) code() connect.Code {
	if e.unauthenticated {
		return connect.CodeUnauthenticated
	}
	return connect.CodePermissionDenied
}

// limitedError is a broadcast the client's rate limit or quota refused
// before any node saw it.
type limitedError struct {
	msg        string
	retryAfter time.Duration // when waiting helps; 0 when unknown
}

func (e *limitedError) Error() string { return e.msg }

// Transaction statuses, as transaction_status_api names them.
const (
	TxUnknown                 = "unknown"
	TxWithinMempool           = "within_mempool"
	TxWithinReversibleBlock   = "within_reversible_block"
	TxWithinIrreversibleBlock = "within_irreversible_block"
	TxExpiredReversible       = "expired_reversible"
	TxExpiredIrreversible     = "expired_irreversible"
	TxTooOld                  = "too_old"
)

// TxStatus is a transaction's status as find_transaction answers it, and
// the hub's head and last irreversible block when it was read.
type TxStatus struct {
	ID       string `json:"transaction_id"`
	Status   string `json:"status"`
	BlockNum uint64 `json:"block_num,omitempty"`
	Head     uint64 `json:"head_block_num"`
	LIB      uint64 `json:"last_irreversible_block_num"`
	Final    bool   `json:"final"`
}

// final reports whether status can no longer change.
func final(status string) bool {
	switch status {
	case TxWithinIrreversibleBlock, TxExpiredIrreversible, TxTooOld:
		return true
	}
	return false
}

// errNoTxChain: the hub's chain cannot broadcast.
var errNoTxChain = errors.New("broadcast is not available on this gateway")

// errBadTx: the transaction does not parse.
type errBadTx struct{ err error }

func (e errBadTx) Error() string {
	return "transaction_json is not a signed Hive transaction: " + e.err.Error()
}

// maxTxBytes bounds a transaction to broadcast (hived's
// HIVE_MAX_TRANSACTION_SIZE is 64 KiB).
const maxTxBytes = 64 << 10

// BroadcastAndTrack broadcasts raw (Broadcast) and tracks it (Track).
func (h *Hub) BroadcastAndTrack(ctx context.Context, raw []byte, emit func(TxStatus) error) error {
	t, err := h.Broadcast(ctx, raw)
	if err != nil {
		return err
	}
	defer t.Close()
	return t.Track(ctx, emit)
}

// TxTracker follows one broadcast transaction; it counts as one of the
// hub's subscribers until Close.
type TxTracker struct {
	closed     bool
	h          *Hub
	tc         TxChain
	id         string
	expiration time.Time
}

// Broadcast parses raw, a signed transaction as hived's JSON, and sends it
// once through the hub's chain. Over MaxSubscribers, nothing is sent
// (ErrTooMany).
func (h *Hub) Broadcast(ctx context.Context, raw []byte) (_ *TxTracker, err error) {
	tc, ok := h.opts.Chain.(TxChain)
	if !ok {
		return nil, errNoTxChain
	}
	if n := h.subs.Add(1); n > int64(h.opts.MaxSubscribers) {
		h.subs.Add(-1)
		return nil, ErrTooMany
	}
	defer func() {
		if err != nil {
			h.subs.Add(-1)
		}
	}()
	if len(raw) > maxTxBytes {
		return nil, errBadTx{fmt.Errorf("more than %d bytes", maxTxBytes)}
	}
	tx, err := hivetx.ParseTransaction(raw)
	if err != nil {
		return nil, errBadTx{err}
	}
	if err := tc.Broadcast(ctx, tx.AppendJSON(nil)); err != nil {
		return nil, err
	}
	return &TxTracker{h: h, tc: tc, id: tx.ID(), expiration: tx.Expiration}, nil
}

// Close ends the tracker's hold on a subscriber slot.
func (t *TxTracker) Close() {
	if !t.closed {
		t.closed = true
		t.h.subs.Add(-1)
	}
}

// Track calls emit with the transaction's status: at once, then each time
// it changes, asking the nodes once per new block the hub's follower reads
// (and once more when the last irreversible block passes the
// transaction's block), until the status is final or ctx ends.
func (t *TxTracker) Track(ctx context.Context, emit func(TxStatus) error) error {
	h, tc, id := t.h, t.tc, t.id
	var last TxStatus
	var askedTip, askedLIB uint64
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return ErrClosed
		}
		tip, lib, ch := h.tip, h.lib, h.notify
		h.mu.Unlock()
		// Ask on the first round, on a new block, and when the last
		// irreversible block reaches the transaction's block.
		ask := askedTip == 0 || tip > askedTip ||
			(last.BlockNum > 0 && lib >= last.BlockNum && askedLIB < last.BlockNum)
		if ask {
			st, err := tc.FindTransaction(ctx, id, t.expiration)
			if err != nil {
				return err
			}
			askedTip, askedLIB = max(tip, 1), lib
			st.ID, st.Head, st.LIB, st.Final = id, tip, lib, final(st.Status)
			if st.Status != last.Status || st.BlockNum != last.BlockNum {
				last = st
				if err := emit(st); err != nil {
					return err
				}
			}
			if st.Final {
				return nil
			}
		}
		if err := wait(ctx, ch, 0); err != nil {
			return err
		}
	}
}

// Broadcast implements TxChain with network_broadcast_api.broadcast_transaction
// through the dispatcher, to every node of the broadcast backend in
// service at once (dispatch.Call.AllNodes): each gets it once, never
// retried, and it is accepted when any node accepted it (one node that
// says it has it already, from another, does not make it a failure).
func (c DispatchChain) Broadcast(ctx context.Context, trx json.RawMessage) error {
	params := append(append([]byte(`{"trx":`), trx...), '}')
	var h *dispatch.Hooks
	if c.Hooks != nil {
		h = c.Hooks() // the client's own call: the token policy and quotas apply
	}
	res := c.serveCall(ctx, h, dispatch.Call{AllNodes: true}, "network_broadcast_api.broadcast_transaction", params)
	if res.Err != nil {
		switch res.Err.Code {
		case jsonrpc.CodeUpstreamTimeout, jsonrpc.CodeUpstreamUnavailable, jsonrpc.CodeInvalidUpstreamResponse,
			jsonrpc.CodeOverloaded, jsonrpc.CodeUpstreamResponseTooLarge, jsonrpc.CodeInternal:
			// No answer from a node: the transaction may be on its way.
			return fmt.Errorf("%w: broadcast: %s", errUpstream, res.Err.Message)
		case jsonrpc.CodeRateLimited:
			// The client's rate limit or quota (the gateway's own, before any
			// node): nothing was sent.
			return &limitedError{msg: res.Err.Message, retryAfter: res.RetryAfter}
		case jsonrpc.CodeUnauthorized, jsonrpc.CodeForbidden:
			// The token policy (auth.require_token): nothing was sent.
			return &deniedError{unauthenticated: res.Err.Code == jsonrpc.CodeUnauthorized, msg: res.Err.Message}
		}
		// The node (or the gateway's policy) looked at it and refused it.
		return &RefusedError{Message: res.Err.Message}
	}
	return nil
}

// FindTransaction implements TxChain with a fresh
// transaction_status_api.find_transaction.
func (c DispatchChain) FindTransaction(ctx context.Context, id string, expiration time.Time) (TxStatus, error) {
	p, _ := json.Marshal(struct {
		ID         string `json:"transaction_id"`
		Expiration string `json:"expiration"`
	}{id, expiration.UTC().Format("2006-01-02T15:04:05")})
	r, err := c.call(ctx, true, "transaction_status_api.find_transaction", string(p))
	if err != nil {
		return TxStatus{}, err
	}
	var st TxStatus
	if err := json.Unmarshal(r, &st); err != nil || st.Status == "" {
		return TxStatus{}, fmt.Errorf("%w: find_transaction: %s", errUpstream, r)
	}
	return st, nil
}
