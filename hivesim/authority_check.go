package hivesim

import (
	"bytes"
	"slices"

	"github.com/hivegate/hivegate/hivetx"
)

// The authority walks of hived's protocol/transaction_util.cpp and
// transaction.cpp before HF28 (no strict or mixed authorities, no redundant
// signatures), shared by the broadcast path and the database_api and
// condenser_api authority methods so that the node agrees with itself.

// authProblem is hived's verify_authority_problem: what a transaction's
// signatures fail to satisfy.
type authProblem uint8

const (
	authOK authProblem = iota
	authMixedWithPosting
	authMissingPosting
	authMissingActive
	authMissingOwner
	authUnusedSignature
)

// newSignState is a sign_state over keys whose member accounts resolve in
// the role of get; seen, when set, is called with every authority the walk
// fetches (get_potential_signatures collects their keys).
func (ch *chain) newSignState(get func(*Account) *Authority, keys []hivetx.PublicKey, seen func(*Authority)) *signState {
	s := &signState{ch: ch, get: get, seen: seen, used: map[hivetx.PublicKey]bool{}, approved: map[string]bool{}}
	for _, k := range keys {
		s.used[k] = false
	}
	return s
}

// checkAuthorities is verify_authority_impl: a transaction needing posting
// authority may not need any other; each required posting account is met
// by its posting authority (members resolved by theirs) or its active or
// owner authority standing in, each active account by its active or owner
// authority (members by their active), each owner account by its owner
// authority; and no key may go unused. It returns the first problem and
// the account it concerns.
func (ch *chain) checkAuthorities(req hivetx.Required, keys []hivetx.PublicKey) (authProblem, string) {
	if len(req.Posting) > 0 {
		if len(req.Active) > 0 || len(req.Owner) > 0 {
			return authMixedWithPosting, ""
		}
		s := ch.newSignState(posting, keys, nil)
		for _, id := range sortedUniq(req.Posting) {
			if !s.checkAccount(id) && !s.checkAuthority(s.authOf(id, active)) && !s.checkAuthority(s.authOf(id, owner)) {
				return authMissingPosting, id
			}
		}
		if s.unused() {
			return authUnusedSignature, ""
		}
		return authOK, ""
	}
	s := ch.newSignState(active, keys, nil)
	for _, id := range sortedUniq(req.Active) {
		if !s.checkAccount(id) && !s.checkAuthority(s.authOf(id, owner)) {
			return authMissingActive, id
		}
	}
	for _, id := range sortedUniq(req.Owner) {
		if !s.checkAuthority(s.authOf(id, owner)) {
			return authMissingOwner, id
		}
	}
	if s.unused() {
		return authUnusedSignature, ""
	}
	return authOK, ""
}

// requiredSignatures is signed_transaction::get_required_signatures: the
// signatures' keys and the available keys are offered to a sign_state;
// each required posting account is checked by its posting authority only,
// or, without posting, each required owner account by its owner authority
// and then each active account by its active authority (no role stands in
// for another, and a missing authority is no error). The available keys
// the walk used are returned in hived's order (by their bytes). mixed
// reports a transaction needing posting and active or owner authority.
func (ch *chain) requiredSignatures(req hivetx.Required, sigKeys, available []hivetx.PublicKey, seen func(*Authority)) (keys []hivetx.PublicKey, mixed string) {
	if len(req.Posting) > 0 {
		switch {
		case len(req.Owner) > 0:
			return nil, "!required_owner.size()"
		case len(req.Active) > 0:
			return nil, "!required_active.size()"
		}
	}
	s := ch.newSignState(posting, sigKeys, seen)
	for _, k := range available {
		if _, ok := s.used[k]; !ok {
			s.used[k] = false
		}
	}
	if len(req.Posting) > 0 {
		for _, id := range sortedUniq(req.Posting) {
			s.checkAccount(id)
		}
	} else {
		s.get = active
		for _, id := range sortedUniq(req.Owner) {
			s.checkAuthority(s.authOf(id, owner))
		}
		for _, id := range sortedUniq(req.Active) {
			s.checkAccount(id)
		}
	}
	for _, k := range available {
		if s.used[k] && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b hivetx.PublicKey) int { return bytes.Compare(a[:], b[:]) })
	return keys, ""
}

// sortedUniq is a flat_set of account names: sorted, each once.
func sortedUniq(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}
