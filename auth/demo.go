package auth

import (
	"net/http"
	"slices"

	"github.com/hivegate/hivegate/config"
)

// demoAuthority is POST /oauth2/demo-authority {session_id}, mounted only
// when Options.DemoAuthority is set, which `hivegate demo` alone does: a
// demo user without Hive Keychain cannot add the app's account to their
// posting authority (that takes the active key and a wallet), so the demo
// does it for them with its own copy of their key (every simulated
// account's keys derive from a published password). It acts only for the
// user of a verified login (a session) that asked for posting, and logs
// every use as a warning. A real deployment never holds a user's key and
// has no such endpoint.
func (s *Service) demoAuthority(w http.ResponseWriter, r *http.Request, body map[string]any) {
	if s.loginRate.limited(w, r) {
		return
	}
	ctx := r.Context()
	var sess sessionRecord
	if err := s.getJSON(ctx, kindSession, str(body, "session_id"), &sess); err != nil {
		s.storeFailure(w, err, "the login has expired: log in again")
		return
	}
	var req authRequest
	if err := s.getJSON(ctx, kindRequest, sess.Request, &req); err != nil {
		s.storeFailure(w, err, "the login request has expired: start again from the app")
		return
	}
	if !slices.Contains(req.Scopes, config.ScopePosting) {
		writeError(w, http.StatusBadRequest, "invalid_request", "this login does not ask for posting")
		return
	}
	account := s.appAccount(req.ClientID)
	s.log.Warn("auth: DEMO ONLY (hivegate demo): adding the app's account to a user's posting authority with the demo's copy of the user's active key",
		"user", sess.User, "account", account)
	if err := s.demoAuth(ctx, sess.User, account); err != nil {
		s.log.Warn("auth: DEMO ONLY: adding the authority failed", "user", sess.User, "account", account, "err", err)
		writeError(w, http.StatusBadGateway, "server_error", "the demo could not add @"+account+" to @"+sess.User+"'s posting authority")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"added": true, "username": sess.User, "authorize_account": account})
}
