package signer

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"connectrpc.com/connect"
)

// Consent on chain, as HiveSigner's verifyPermissions checks it
// (ecency/hivesigner-api helpers/middleware.js): the chain is user → app
// account → broadcaster. The user lists the app's account in their posting
// authority's account_auths, the app's account lists the service account
// (the broadcaster) in its own, and hived, following posting account_auths
// two levels deep (HIVE_MAX_SIG_CHECK_DEPTH), accepts the service key's
// signature for the user. Removing one app's account revokes that app
// alone, and the service key signs only for users of apps that listed it.
//
// An app whose account is the service account itself is direct consent,
// hivegate's earlier model: the user lists the service account, and that one
// authorization covers every app naming it.

// linkWeight is the weight name has in the authority's account_auths, and
// whether it is listed at all.
func (au Authority) linkWeight(name string) (uint64, bool) {
	for _, p := range au.AccountAuths {
		var n string
		var w uint32
		if json.Unmarshal(p[0], &n) == nil && n == name && json.Unmarshal(p[1], &w) == nil {
			return uint64(w), true
		}
	}
	return 0, false
}

// link reports whether the account's posting authority lets name sign for
// it alone: name is listed with a weight meeting the threshold. When it
// does not, why says so for a listed name of too small a weight.
func (a *Account) link(name string) (ok bool, why string) {
	w, listed := a.Posting.linkWeight(name)
	switch {
	case !listed:
		return false, ""
	case w < uint64(a.Posting.WeightThreshold):
		return false, " (weight " + strconv.FormatUint(w, 10) + " of threshold " + strconv.FormatUint(uint64(a.Posting.WeightThreshold), 10) + ")"
	}
	return true, ""
}

// checkConsent checks both links of g's consent chain on the chain's
// current accounts (past the cache): the user's link to the app's account
// (or, direct, to the service account), then the app account's link to the
// service account. The refusal says which link is missing: 401
// unauthorized_client, as HiveSigner answers; Connect failed_precondition.
func (s *Signer) checkConsent(ctx context.Context, chain Caller, g Grant) *Error {
	refuse := func(msg string) *Error {
		return &Error{http.StatusUnauthorized, "unauthorized_client", msg, connect.CodeFailedPrecondition}
	}
	user, _, err := ReadAccount(ctx, chain, true, g.User)
	if err != nil {
		return chainAPIError(err)
	}
	app := g.AppAccount
	if app == "" || app == s.account {
		if ok, why := user.link(s.account); !ok {
			return refuse("@" + g.User + " has not given @" + s.account + " posting authority" + why + ": log in again through the authorize page to add it")
		}
		return nil
	}
	if ok, why := user.link(app); !ok {
		return refuse("@" + g.User + " has not authorized app @" + app + " (posting)" + why + ": log in again through the authorize page to add @" + app + " to your posting authority")
	}
	acct, _, err := ReadAccount(ctx, chain, true, app)
	if err != nil {
		if errors.Is(err, ErrNoAccount) {
			return refuse("app @" + app + " has no account on chain: its consent chain cannot reach @" + s.account + ", hivegate's broadcaster")
		}
		return chainAPIError(err)
	}
	if ok, why := acct.link(s.account); !ok {
		return refuse("app @" + app + " has not authorized @" + s.account + ", hivegate's broadcaster (posting)" + why + ": the app's owner adds @" + s.account + " to @" + app + "'s posting authority")
	}
	return nil
}
