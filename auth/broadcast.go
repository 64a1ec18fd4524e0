package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivetx"
)

// postingOps are the operations the posting scope allows (HiveSigner's
// authorized_operations), each with the field naming the account it acts
// for: that account must be the token's user.
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
// operation may name only the token's user in them.
var signerFields = map[string]bool{
	"required_auths": true, "required_active_auths": true, "required_owner_auths": true, "required_posting_auths": true,
}

// postingOperationNames lists the operations scopes allow.
func postingOperationNames(scopes []string) []string {
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

// checkOperations refuses what the token may not broadcast: an operation
// outside its scope (HiveSigner's 401 invalid_scope), or one acting for
// another account (401 unauthorized_client). An operation acts for the
// user when its actor field is the user; a custom_json's posting auths are
// exactly the user and it has no active auths; and every signer field any
// operation names, found by the extractor of limits.blacklist_accounts, is
// the user. account_update2 may change posting_json_metadata only.
func checkOperations(tok Token, ops []hivetx.Operation) *apiError {
	if len(ops) == 0 {
		return &apiError{http.StatusBadRequest, "invalid_request", "no operations", connect.CodeInvalidArgument}
	}
	var outside []string
	for _, op := range ops {
		if _, ok := actorField(op.Name()); !ok || !tok.Has(config.ScopePosting) {
			if !slices.Contains(outside, op.Name()) {
				outside = append(outside, op.Name())
			}
		}
	}
	if len(outside) > 0 {
		return &apiError{http.StatusUnauthorized, "invalid_scope",
			"The access_token scope does not allow the following operation(s): " + strings.Join(outside, ", "), connect.CodePermissionDenied}
	}
	other := &apiError{http.StatusUnauthorized, "unauthorized_client",
		"This access_token allow you to broadcast transaction only for the account @" + tok.User, connect.CodePermissionDenied}
	for _, op := range ops {
		actor, _ := actorField(op.Name())
		switch op.Name() {
		case "custom_json":
			if !slices.Equal(op.Strings("required_posting_auths"), []string{tok.User}) || len(op.Strings("required_auths")) > 0 {
				return other
			}
		case "account_update2":
			if op.Get("owner") != nil || op.Get("active") != nil || op.Get("posting") != nil || op.Get("memo_key") != nil || op.String("json_metadata") != "" {
				return &apiError{http.StatusUnauthorized, "unauthorized_client",
					"account_update2 may change posting_json_metadata only: keys, authorities and json_metadata need the active key", connect.CodePermissionDenied}
			}
			fallthrough
		default:
			if op.String(actor) != tok.User {
				return other
			}
		}
		if _, _, found := hivetx.AccountField(op.AppendJSON(nil), func(field, name string) bool {
			return signerFields[field] && name != tok.User
		}); found {
			return other
		}
	}
	return nil
}

// broadcastOps checks ops for tok, then builds the transaction on the head
// hivegate reads, signs it with the service key and broadcasts it with
// condenser_api.broadcast_transaction_synchronous through the dispatcher:
// a broadcast route, never retried or cached, screened by
// limits.blacklist_accounts. It returns the node's {id, block_num, trx_num,
// expired}.
func (s *Service) broadcastOps(ctx context.Context, tok Token, ops []hivetx.Operation) (json.RawMessage, *apiError) {
	if e := checkOperations(tok, ops); e != nil {
		return nil, e
	}
	chain := s.chain()
	acct, _, err := readAccount(ctx, chain, true, tok.User)
	if err != nil {
		return nil, chainAPIError(err)
	}
	if !acct.authorizes(s.set.ServiceAccount) {
		return nil, &apiError{http.StatusUnauthorized, "unauthorized_client",
			"@" + tok.User + " has not given @" + s.set.ServiceAccount + " posting authority: log in again through the authorize page to add it",
			connect.CodeFailedPrecondition}
	}
	h, err := readHead(ctx, chain)
	if err != nil {
		return nil, chainAPIError(err)
	}
	tx := &hivetx.Transaction{RefBlockNum: h.num, RefBlockPrefix: h.prefix, Expiration: h.time.Add(txExpiration), Operations: ops}
	if err := tx.Sign(s.serviceKey, s.chainID); err != nil {
		s.log.Error("auth: signing a transaction", "err", err)
		return nil, &apiError{http.StatusInternalServerError, "server_error", "could not sign the transaction", connect.CodeInternal}
	}
	params, _ := json.Marshal([]json.RawMessage{tx.AppendJSON(nil)})
	res := serve(ctx, chain, false, "condenser_api.broadcast_transaction_synchronous", params)
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name()
	}
	if res.Err != nil {
		ce := newChainError(res.Err)
		s.log.Info("auth: broadcast refused", "user", tok.User, "app", tok.ClientID, "operations", strings.Join(names, ","), "trx_id", tx.ID(), "error", ce.msg)
		return nil, chainAPIError(ce)
	}
	s.log.Info("auth: broadcast", "user", tok.User, "app", tok.ClientID, "operations", strings.Join(names, ","), "trx_id", tx.ID())
	return res.Result, nil
}

// chainAPIError is the answer to a failed chain call: the node's refusal
// (HiveSigner's 500 server_error with the node's message), or the
// gateway's own error with its status.
func chainAPIError(err error) *apiError {
	var ce *chainError
	switch {
	case errors.Is(err, errNoAccount):
		return &apiError{http.StatusBadRequest, "invalid_request", "the account does not exist", connect.CodeNotFound}
	case errors.As(err, &ce) && ce.gateway():
		status := ce.rpc.HTTPStatus()
		if status < 400 {
			status = http.StatusForbidden // a gateway refusal answered 200 in JSON-RPC (a blacklisted account)
		}
		return &apiError{status, "server_error", ce.msg, 0}
	case errors.As(err, &ce):
		return &apiError{http.StatusInternalServerError, "server_error", ce.msg, connect.CodeInvalidArgument} // the node refused it
	}
	return &apiError{http.StatusBadGateway, "server_error", "the node's answer could not be read", connect.CodeUnavailable}
}

// maxBroadcastBody bounds a /api/broadcast request (HiveSigner allows
// large posts; a comment body is at most 64 KB on chain).
const maxBroadcastBody = 1 << 20

// broadcastHTTP is POST /api/broadcast {"operations": [[type, {...}], ...]}
// with the token in Authorization; it answers {"result": {id, block_num,
// trx_num, expired}}.
func (s *Service) broadcastHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use POST")
		return
	}
	tok, err := s.verify(r.Context(), bearer(r))
	if err != nil {
		writeAPIError(w, tokenError(err))
		return
	}
	var body struct {
		Operations json.RawMessage `json:"operations"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBroadcastBody)).Decode(&body); err != nil || len(body.Operations) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", `want {"operations": [["vote", {...}], ...]}`)
		return
	}
	ops, err := hivetx.ParseOperations(body.Operations)
	if err != nil {
		if errors.Is(err, hivetx.ErrUnsupportedOperation) {
			writeError(w, http.StatusUnauthorized, "invalid_scope", "The access_token scope does not allow the following operation(s): "+unsupportedName(err))
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	result, e := s.broadcastOps(r.Context(), tok, ops)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, map[string]json.RawMessage{"result": result})
}

// unsupportedName is the operation name an ErrUnsupportedOperation names.
func unsupportedName(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, hivetx.ErrUnsupportedOperation.Error()+": "); i >= 0 {
		return msg[i+len(hivetx.ErrUnsupportedOperation.Error())+2:]
	}
	return msg
}
