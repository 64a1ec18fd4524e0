package stream

import (
	"context"
	"errors"
	"math"
	"strconv"

	"connectrpc.com/connect"

	streamv1 "github.com/hivegate/hivegate/gen/hive/stream/v1"
	transaction_status_apiv1 "github.com/hivegate/hivegate/gen/hive/transaction_status_api/v1"
)

// txStatusCodes maps hived's status names to the Protobuf enum.
var txStatusCodes = map[string]transaction_status_apiv1.TransactionStatus{
	TxUnknown:                 transaction_status_apiv1.TransactionStatus_TRANSACTION_STATUS_UNKNOWN,
	TxWithinMempool:           transaction_status_apiv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_MEMPOOL,
	TxWithinReversibleBlock:   transaction_status_apiv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_REVERSIBLE_BLOCK,
	TxWithinIrreversibleBlock: transaction_status_apiv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_IRREVERSIBLE_BLOCK,
	TxExpiredReversible:       transaction_status_apiv1.TransactionStatus_TRANSACTION_STATUS_EXPIRED_REVERSIBLE,
	TxExpiredIrreversible:     transaction_status_apiv1.TransactionStatus_TRANSACTION_STATUS_EXPIRED_IRREVERSIBLE,
	TxTooOld:                  transaction_status_apiv1.TransactionStatus_TRANSACTION_STATUS_TOO_OLD,
}

// BroadcastTransaction implements hive.stream.v1.StreamService.BroadcastTransaction.
func (c connectImpl) BroadcastTransaction(ctx context.Context, req *connect.Request[streamv1.BroadcastTransactionRequest], out *connect.ServerStream[streamv1.BroadcastTransactionResponse]) error {
	err := c.s.hub.BroadcastAndTrack(ctx, []byte(req.Msg.GetTransactionJson()), func(st TxStatus) error {
		c.s.beforeSend(ctx)
		return out.Send(&streamv1.BroadcastTransactionResponse{
			TransactionId:            st.ID,
			Status:                   txStatusCodes[st.Status],
			BlockNum:                 st.BlockNum,
			HeadBlockNum:             st.Head,
			LastIrreversibleBlockNum: st.LIB,
			Final:                    st.Final,
		})
	})
	if err == nil {
		return nil
	}
	return txConnectError(ctx, err)
}

// txConnectError is the Connect error a broadcast stream ends with.
func txConnectError(ctx context.Context, err error) error {
	var refused *RefusedError
	var bad errBadTx
	var ce *connect.Error
	var denied *deniedError
	var limited *limitedError
	switch {
	case ctx.Err() != nil:
		return connect.NewError(connect.CodeCanceled, errors.New("the stream ended"))
	case errors.As(err, &ce):
		return ce // a send failed: the client is gone
	case errors.As(err, &denied):
		return connect.NewError(denied.code(), errors.New(denied.msg))
	case errors.As(err, &limited):
		e := connect.NewError(connect.CodeResourceExhausted, errors.New(limited.msg+" (the transaction was not sent)"))
		if limited.retryAfter > 0 {
			e.Meta().Set("Retry-After", strconv.Itoa(int(math.Ceil(limited.retryAfter.Seconds()))))
		}
		return e
	case errors.As(err, &refused):
		return connect.NewError(connect.CodeFailedPrecondition, errors.New(refused.Message))
	case errors.As(err, &bad):
		return connect.NewError(connect.CodeInvalidArgument, bad)
	case errors.Is(err, errNoTxChain):
		return connect.NewError(connect.CodeUnimplemented, err)
	case errors.Is(err, ErrTooMany):
		return connect.NewError(connect.CodeResourceExhausted, errors.New("too many stream subscribers; retry later (the transaction was not sent)"))
	case errors.Is(err, ErrClosed):
		return connect.NewError(connect.CodeUnavailable, errors.New("the gateway is shutting down; ask for the transaction's status on another replica"))
	}
	return connect.NewError(connect.CodeUnavailable, errors.New("the nodes did not answer; the transaction may or may not have been sent"))
}

// txBody is the JSON error of a broadcast subscription.
func txBody(err error) ErrorBody {
	var refused *RefusedError
	var bad errBadTx
	var denied *deniedError
	var limited *limitedError
	switch {
	case errors.As(err, &denied):
		return ErrorBody{Code: denied.code().String(), Message: denied.msg}
	case errors.As(err, &limited):
		return ErrorBody{Code: "resource_exhausted", Message: limited.msg + " (the transaction was not sent)"}
	case errors.As(err, &refused):
		return ErrorBody{Code: "failed_precondition", Message: refused.Message}
	case errors.As(err, &bad):
		return ErrorBody{Code: "invalid_argument", Message: bad.Error()}
	case errors.Is(err, errNoTxChain):
		return ErrorBody{Code: "unimplemented", Message: err.Error()}
	}
	return errorBody(err, Cursor{})
}
