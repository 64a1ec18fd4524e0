package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/signer"
)

// broadcastOps hands ops to the signer within tok's grant: its user, its
// app and the app's account (whose link the signer checks on chain), and
// its scopes.
func (s *Service) broadcastOps(ctx context.Context, tok Token, ops []hivetx.Operation) (json.RawMessage, *apiError) {
	g := signer.Grant{User: tok.User, App: tok.ClientID, Scopes: tok.Scopes, AppAccount: s.appAccount(tok.ClientID)}
	res, e := s.signer.Broadcast(ctx, g, ops)
	if e != nil {
		return nil, &apiError{e.Status, e.Code, e.Description, e.Connect}
	}
	return res, nil
}

// appAccount is the account a user authorizes for an app: its
// auth.apps[].account (the client id by default; the service account for
// direct consent). consent.go in package signer checks both links.
func (s *Service) appAccount(clientID string) string {
	if a, ok := s.app(clientID); ok && a.Account != "" {
		return a.Account
	}
	return clientID
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
	tok, err := s.Verify(r.Context(), Bearer(r))
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
