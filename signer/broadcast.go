package signer

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivetx"
)

// postingOps are the operations the posting scope allows (HiveSigner's
// authorized_operations), each with the field naming the account it acts
// for: that account must be the grant's user.
var postingOps = []struct{ name, actor string }{
	{"vote", "voter"},
	{"comment", "author"},
	{"delete_comment", "author"},
	{"comment_options", "author"},
	{"custom_json", "required_posting_auths"},
	{"claim_reward_balance", "account"},
	{"account_update2", "account"},
}

// signerFields are the operation fields naming accounts that sign; an
// operation may name only the grant's user in them.
var signerFields = map[string]bool{
	"required_auths": true, "required_active_auths": true, "required_owner_auths": true, "required_posting_auths": true,
}

// OperationNames lists the operations scopes allow: HiveSigner's
// authorized operations for the posting scope, none for the others.
func OperationNames(scopes []string) []string {
	if !slices.Contains(scopes, config.ScopePosting) {
		return nil
	}
	out := make([]string, len(postingOps))
	for i, p := range postingOps {
		out[i] = p.name
	}
	return out
}

func actorField(op string) (string, bool) {
	for _, p := range postingOps {
		if p.name == op {
			return p.actor, true
		}
	}
	return "", false
}

// checkOperations refuses what the grant does not allow: an operation
// outside its scope (HiveSigner's 401 invalid_scope), or one acting for
// another account (401 unauthorized_client). An operation acts for the
// user when its actor field is the user; a custom_json's posting auths are
// exactly the user and it has no active auths; and every signer field any
// operation names, found by the extractor of limits.blacklist_accounts, is
// the user. account_update2 may change posting_json_metadata only.
func checkOperations(g Grant, ops []hivetx.Operation) *Error {
	if len(ops) == 0 {
		return &Error{http.StatusBadRequest, "invalid_request", "no operations", connect.CodeInvalidArgument}
	}
	var outside []string
	for _, op := range ops {
		if _, ok := actorField(op.Name()); !ok || !g.has(config.ScopePosting) {
			if !slices.Contains(outside, op.Name()) {
				outside = append(outside, op.Name())
			}
		}
	}
	if len(outside) > 0 {
		return &Error{http.StatusUnauthorized, "invalid_scope",
			"The access_token scope does not allow the following operation(s): " + strings.Join(outside, ", "), connect.CodePermissionDenied}
	}
	other := &Error{http.StatusUnauthorized, "unauthorized_client",
		"This access_token allow you to broadcast transaction only for the account @" + g.User, connect.CodePermissionDenied}
	for _, op := range ops {
		actor, _ := actorField(op.Name())
		switch op.Name() {
		case "custom_json":
			if !slices.Equal(op.Strings("required_posting_auths"), []string{g.User}) || len(op.Strings("required_auths")) > 0 {
				return other
			}
		case "account_update2":
			if op.Get("owner") != nil || op.Get("active") != nil || op.Get("posting") != nil || op.Get("memo_key") != nil || op.String("json_metadata") != "" {
				return &Error{http.StatusUnauthorized, "unauthorized_client",
					"account_update2 may change posting_json_metadata only: keys, authorities and json_metadata need the active key", connect.CodePermissionDenied}
			}
			fallthrough
		default:
			if op.String(actor) != g.User {
				return other
			}
		}
		if _, _, found := hivetx.AccountField(op.AppendJSON(nil), func(field, name string) bool {
			return signerFields[field] && name != g.User
		}); found {
			return other
		}
	}
	return nil
}

// Broadcast checks ops against g (checkOperations) and g's consent chain
// on chain (checkConsent: user → app account → service account), then
// builds the
// transaction on the head hivegate reads, signs it with the service key
// and broadcasts it with condenser_api.broadcast_transaction_synchronous
// through the dispatcher: a broadcast route, never retried or cached,
// screened by limits.blacklist_accounts. It returns the node's {id,
// block_num, trx_num, expired}.
func (s *Signer) Broadcast(ctx context.Context, g Grant, ops []hivetx.Operation) (json.RawMessage, *Error) {
	if e := checkOperations(g, ops); e != nil {
		return nil, e
	}
	chain := s.chain()
	if e := s.checkConsent(ctx, chain, g); e != nil {
		return nil, e
	}
	h, err := readHead(ctx, chain)
	if err != nil {
		return nil, chainAPIError(err)
	}
	tx := &hivetx.Transaction{RefBlockNum: h.num, RefBlockPrefix: h.prefix, Expiration: h.time.Add(txExpiration), Operations: ops}
	if err := tx.Sign(s.key, s.chainID); err != nil {
		s.log.Error("auth: signing a transaction", "err", err)
		return nil, &Error{http.StatusInternalServerError, "server_error", "could not sign the transaction", connect.CodeInternal}
	}
	params, _ := json.Marshal([]json.RawMessage{tx.AppendJSON(nil)})
	res := serve(ctx, chain, false, "condenser_api.broadcast_transaction_synchronous", params)
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name()
	}
	if res.Err != nil {
		ce := newChainError(res.Err)
		s.log.Info("auth: broadcast refused", "user", g.User, "app", g.App, "operations", strings.Join(names, ","), "trx_id", tx.ID(), "error", ce.msg)
		return nil, chainAPIError(ce)
	}
	s.log.Info("auth: broadcast", "user", g.User, "app", g.App, "operations", strings.Join(names, ","), "trx_id", tx.ID())
	return res.Result, nil
}

// chainAPIError is the answer to a failed chain call: the node's refusal
// (HiveSigner's 500 server_error with the node's message), or the
// gateway's own error with its status.
func chainAPIError(err error) *Error {
	var ce *chainError
	switch {
	case errors.Is(err, ErrNoAccount):
		return &Error{http.StatusBadRequest, "invalid_request", "the account does not exist", connect.CodeNotFound}
	case errors.As(err, &ce) && ce.gateway():
		status := ce.rpc.HTTPStatus()
		if status < 400 {
			status = http.StatusForbidden // a gateway refusal answered 200 in JSON-RPC (a blacklisted account)
		}
		return &Error{status, "server_error", ce.msg, 0}
	case errors.As(err, &ce):
		return &Error{http.StatusInternalServerError, "server_error", ce.msg, connect.CodeInvalidArgument} // the node refused it
	}
	return &Error{http.StatusBadGateway, "server_error", "the node's answer could not be read", connect.CodeUnavailable}
}
